// The MOFSupplier wire protocol (ours, not Hadoop's HTTP shuffle): every message is a frame
//
//   frame header (12 bytes): magic u32 "JBSM" | version u16 | type u16 | body length u32
//   body (body length bytes, type-specific)
//
// all integers big-endian. A fetch request body is
//   request id u64 | partition u32 | offset u64 | max length u32 |
//   job id (u16 length + bytes) | map attempt id (u16 + bytes) | auth (u16 + bytes)
// and a fetch response body is a fixed 60-byte header followed by the chunk's bytes:
//   request id u64 | status u16 | reserved u16 (0) | raw length u64 | part length u64 |
//   chunk offset u64 | chunk length u32 | reply mac[20] | <chunk length bytes>
// (reply mac: the supplier's proof that it holds the job secret, ReplyMac in job_auth.h, on OK
// answers; zeros on refusals. Version 2 added it.)
// (raw/part length: the whole partition's uncompressed and on-disk sizes, from the index;
// chunk offset: where in the partition this chunk starts). One request returns one chunk of
// at most one transport buffer; the client asks again from the next offset.
//
// Decoders never trust the peer: every length is bounded before use, a body must be consumed
// exactly, ids must have YARN's shapes, the attempt must belong to the job.
#ifndef HADOOP_ACCEL_JBS_WIRE_FORMAT_H
#define HADOOP_ACCEL_JBS_WIRE_FORMAT_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hadoop_accel::jbs {

constexpr uint32_t kFrameMagic = 0x4A42534D;  // "JBSM"
constexpr uint16_t kProtocolVersion = 2;      // 2: server proofs (reply mac, REGISTERED mac)
constexpr size_t kFrameHeaderSize = 12;

enum class FrameType : uint16_t { kFetchRequest = 1, kFetchResponse = 2 };

// Bounds enforced by both encoder and decoder.
constexpr size_t kMaxAuthLength = 128;           // an HMAC-SHA1 in base64 is 28
constexpr size_t kMaxRequestBodySize = 512;      // fixed 24 + 3 length-prefixed fields < 512
constexpr uint32_t kMaxChunkLength = 16u << 20;  // largest transport buffer we allow
constexpr size_t kReplyMacLength = 20;
constexpr size_t kResponseHeaderBodySize = 40 + kReplyMacLength;

// Values match the C API's HJBS_* codes (mof_supplier.h).
enum class WireStatus : int {
  kOk = 0,
  kNeedMore = 1,  // a valid prefix: read more bytes and decode again
  kBadMagic = -1,
  kBadVersion = -2,
  kBadType = -3,
  kTooLarge = -4,   // body length above the limit for its type
  kMalformed = -5,  // a field runs past the body, or bytes are left over after the last
  kBadJobId = -6,
  kBadAttemptId = -7,  // also: an attempt of another job, or not a map attempt
  kBadLength = -8,     // max/chunk length zero or above kMaxChunkLength, chunk past partition
  kBadAuth = -9,       // auth field longer than kMaxAuthLength
  kBadStatus = -10,    // unknown response status, reserved field not zero, data on error
  kBufferTooSmall = -11,
};

const char* WireStatusName(WireStatus s);

struct FrameHeader {
  uint16_t version = 0;
  FrameType type = FrameType::kFetchRequest;
  uint32_t body_length = 0;
};

struct FetchRequest {
  uint64_t request_id = 0;  // the client's handle, echoed in the response
  uint32_t partition = 0;   // reduce partition
  uint64_t offset = 0;      // within the partition's on-disk bytes
  uint32_t max_length = 0;  // 1..kMaxChunkLength
  std::string job_id;
  std::string map_attempt_id;
  std::string auth;  // empty until job-token HMACs are wired in
};

enum class ResponseStatus : uint16_t {
  kOk = 0,
  kBadRequest = 1,
  kNotFound = 2,  // unknown job/attempt, or partition out of range
  kUnauthorized = 3,
  kServerError = 4,  // I/O or checksum failure on the server side
  kBusy = 5,         // try again later
};

struct FetchResponseHeader {
  uint64_t request_id = 0;
  ResponseStatus status = ResponseStatus::kOk;
  uint64_t raw_length = 0;
  uint64_t part_length = 0;
  uint64_t chunk_offset = 0;
  uint32_t chunk_length = 0;  // bytes that follow this header in the frame
  std::string reply_mac;      // empty or kReplyMacLength bytes (sent as zeros when empty)
};

// Checks a frame header: kNeedMore below 12 bytes, else magic, version, type and the body
// length limit of the type (a response may carry up to kMaxChunkLength bytes of data).
WireStatus DecodeFrameHeader(const uint8_t* data, size_t len, FrameHeader* out);

// Validates a request without encoding it (the encoder refuses what the decoder would).
WireStatus ValidateRequest(const FetchRequest& req);
WireStatus ValidateResponseHeader(const FetchResponseHeader& h);

// Appends a whole request frame to `out`.
WireStatus EncodeRequest(const FetchRequest& req, std::vector<uint8_t>* out);
// Decodes one request frame from the front of data; *consumed = frame size on kOk.
WireStatus DecodeRequest(const uint8_t* data, size_t len, FetchRequest* out, size_t* consumed);

// Writes frame header + response header (12 + 60 bytes) into out (cap >= 72); the chunk's
// h.chunk_length bytes are sent right after it (writev, or straight from a transport buffer).
constexpr size_t kResponsePrefixSize = kFrameHeaderSize + kResponseHeaderBodySize;
WireStatus EncodeResponsePrefix(const FetchResponseHeader& h, uint8_t* out, size_t cap);
// Decodes frame header + response header from the front of data (needs 72 bytes; the chunk
// follows). Checks that the frame's body length equals 60 + chunk length.
WireStatus DecodeResponsePrefix(const uint8_t* data, size_t len, FetchResponseHeader* out);

}  // namespace hadoop_accel::jbs

#endif
