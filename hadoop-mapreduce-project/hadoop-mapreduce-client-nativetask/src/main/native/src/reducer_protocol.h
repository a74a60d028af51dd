// The reducer protocol (DESIGN.md §3): a reduce task talks to its node's NetMerger over a Unix
// stream socket in the fetch protocol's frames (12-byte header: magic "JBSM", version 2,
// type u16, body length u32; big-endian) with frame types 16..25. Strings are u16 length +
// bytes. S = NetMerger, C = reduce task.
//
//   16 HELLO        S->C  nonce[16]
//   17 REGISTER     C->S  partition u32, num_maps u32, key_type u8, codec u8, reserved u16 = 0,
//                         job string, auth string (RegisterMac over the HELLO nonce),
//                         client nonce[16]
//   18 REGISTERED   S->C  status u16, message string, proof string (status 0: RegisteredMac
//                         over both nonces, 20 bytes, which the reduce checks; else empty)
//   19 MAP_OUTPUT   C->S  map_index u32, port u16, attempt string, host string
//   20 MAP_FETCHED  S->C  map_index u32, part_length u64, attempt string
//   21 FETCH_FAILED S->C  map_index u32, connect_failed u8, attempt string, message string
//   22 MERGE        C->S  empty
//   23 DATA         S->C  crc32 u32 (of the bytes that follow), then <= 256 KiB of stream
//   24 END          S->C  records u64, stream_bytes u64, fetched_bytes u64, merge_passes u32,
//                         spilled_bytes u64
//   25 ERROR        S->C  code u16, message string
//
// Decoders never trust the peer: the header's body length is bounded per type before any body
// is read, fields may not run past the body, the body must be consumed exactly, ids must have
// YARN's shapes, hosts are 1..255 bytes without NUL or control characters.
#ifndef HADOOP_ACCEL_JBS_REDUCER_PROTOCOL_H
#define HADOOP_ACCEL_JBS_REDUCER_PROTOCOL_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "job_auth.h"
#include "wire_format.h"

namespace hadoop_accel::jbs {

enum class ReducerFrame : uint16_t {
  kHello = 16,
  kRegister = 17,
  kRegistered = 18,
  kMapOutput = 19,
  kMapFetched = 20,
  kFetchFailed = 21,
  kMerge = 22,
  kData = 23,
  kEnd = 24,
  kError = 25,
};

constexpr size_t kMaxDataPayload = 256 * 1024;  // merged-stream bytes in one DATA frame
constexpr size_t kMaxHostLength = 255;
constexpr size_t kMaxMessageLength = 1024;       // REGISTERED / FETCH_FAILED / ERROR text
constexpr size_t kMaxReducerControlBody = 2048;  // every frame but DATA is far below this

enum class KeyType : uint8_t { kText = 1, kBytesWritable = 2, kInt = 3, kLong = 4 };
// kSnappy, kLz4: Hadoop's SnappyCodec / Lz4Codec block framing (block_codec.h); a build
// without the library refuses them at REGISTER (kUnsupported), and the reduce falls back.
enum class Codec : uint8_t { kNone = 0, kZlib = 1, kSnappy = 2, kLz4 = 3 };

enum class RegisterStatus : uint16_t {
  kOk = 0,
  kUnauthorized = 1,
  kUnsupported = 2,
  kBusy = 3,
  kBadRequest = 4,
};

// ERROR codes (ours; DESIGN.md leaves them open). Any ERROR ends the session.
enum class ErrorCode : uint16_t {
  kProtocol = 1,        // a frame out of order, malformed, or naming an unknown map
  kCorruptSegment = 2,  // a segment failed its IFile CRC or could not be parsed
  kFetch = 3,           // a segment's later chunk could not be fetched after retries
  kLocalIo = 4,         // a spill run could not be written or read
  kShutdown = 5,        // the daemon is stopping
};

struct Hello {
  uint8_t nonce[kNonceLength] = {};
};
struct Register {
  uint32_t partition = 0;
  uint32_t num_maps = 0;
  uint8_t key_type = 0;  // raw values: unsupported ones are answered, not undecodable
  uint8_t codec = 0;
  std::string job;
  std::string auth;
  uint8_t client_nonce[kNonceLength] = {};
};
struct Registered {
  RegisterStatus status = RegisterStatus::kOk;
  std::string message;
  std::string proof;  // RegisteredMac (kMacLength bytes) when status is kOk, else empty
};
struct MapOutput {
  uint32_t map_index = 0;
  uint16_t port = 0;
  std::string attempt;
  std::string host;
};
struct MapFetched {
  uint32_t map_index = 0;
  uint64_t part_length = 0;
  std::string attempt;
};
struct FetchFailed {
  uint32_t map_index = 0;
  bool connect_failed = false;
  std::string attempt;
  std::string message;
};
struct EndStats {
  uint64_t records = 0;
  uint64_t stream_bytes = 0;
  uint64_t fetched_bytes = 0;
  uint32_t merge_passes = 0;
  uint64_t spilled_bytes = 0;
};
struct ErrorFrame {
  ErrorCode code = ErrorCode::kProtocol;
  std::string message;
};

// Header check for types 16..25: magic, version, type, and the body bound of the type
// (DATA: 4..4 + kMaxDataPayload; MERGE: 0; others <= kMaxReducerControlBody).
WireStatus DecodeReducerHeader(const uint8_t* data, size_t len, ReducerFrame* type,
                               uint32_t* body_length);

bool IsSaneHost(const std::string& host);

// Encoders append a whole frame to out; they refuse (kMalformed / kBadJobId / ...) what the
// decoders would refuse, so a frame we send always decodes.
WireStatus EncodeHello(const Hello& m, std::vector<uint8_t>* out);
WireStatus EncodeRegister(const Register& m, std::vector<uint8_t>* out);
WireStatus EncodeRegistered(const Registered& m, std::vector<uint8_t>* out);
WireStatus EncodeMapOutput(const MapOutput& m, std::vector<uint8_t>* out);
WireStatus EncodeMapFetched(const MapFetched& m, std::vector<uint8_t>* out);
WireStatus EncodeFetchFailed(const FetchFailed& m, std::vector<uint8_t>* out);
WireStatus EncodeMerge(std::vector<uint8_t>* out);
WireStatus EncodeEnd(const EndStats& m, std::vector<uint8_t>* out);
WireStatus EncodeError(const ErrorFrame& m, std::vector<uint8_t>* out);
// DATA: header + crc32 of payload; the payload itself is sent after these 16 bytes.
constexpr size_t kDataPrefixSize = kFrameHeaderSize + 4;
WireStatus EncodeDataPrefix(const uint8_t* payload, size_t len, uint8_t out[kDataPrefixSize]);

// Body decoders: body/len is exactly the frame's body (after the 12-byte header).
WireStatus DecodeHello(const uint8_t* body, size_t len, Hello* out);
WireStatus DecodeRegister(const uint8_t* body, size_t len, Register* out);
WireStatus DecodeRegistered(const uint8_t* body, size_t len, Registered* out);
WireStatus DecodeMapOutput(const uint8_t* body, size_t len, MapOutput* out);
WireStatus DecodeMapFetched(const uint8_t* body, size_t len, MapFetched* out);
WireStatus DecodeFetchFailed(const uint8_t* body, size_t len, FetchFailed* out);
WireStatus DecodeMerge(const uint8_t* body, size_t len);
// DATA: checks the CRC; *payload points into body.
WireStatus DecodeData(const uint8_t* body, size_t len, const uint8_t** payload, size_t* n);
WireStatus DecodeEnd(const uint8_t* body, size_t len, EndStats* out);
WireStatus DecodeError(const uint8_t* body, size_t len, ErrorFrame* out);

}  // namespace hadoop_accel::jbs

#endif
