#include "wire_format.h"

#include <cstring>
#include <limits>

#include "body_reader.h"
#include "byte_order.h"
#include "ids.h"

namespace hadoop_accel::jbs {
namespace {

constexpr size_t kRequestFixedSize = 8 + 4 + 8 + 4;
constexpr uint64_t kMaxSignedLong = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
constexpr uint32_t kMaxSignedInt = static_cast<uint32_t>(std::numeric_limits<int32_t>::max());

void PutFrameHeader(uint8_t* p, FrameType type, uint32_t body_length) {
  StoreBe32(p, kFrameMagic);
  StoreBe16(p + 4, kProtocolVersion);
  StoreBe16(p + 6, static_cast<uint16_t>(type));
  StoreBe32(p + 8, body_length);
}

void PutString(std::vector<uint8_t>* out, const std::string& s) {
  uint8_t len[2];
  StoreBe16(len, static_cast<uint16_t>(s.size()));
  out->insert(out->end(), len, len + 2);
  out->insert(out->end(), s.begin(), s.end());
}

}  // namespace

const char* WireStatusName(WireStatus s) {
  switch (s) {
    case WireStatus::kOk:
      return "ok";
    case WireStatus::kNeedMore:
      return "need more bytes";
    case WireStatus::kBadMagic:
      return "bad magic";
    case WireStatus::kBadVersion:
      return "unsupported protocol version";
    case WireStatus::kBadType:
      return "unknown message type";
    case WireStatus::kTooLarge:
      return "message too large";
    case WireStatus::kMalformed:
      return "malformed message";
    case WireStatus::kBadJobId:
      return "bad job id";
    case WireStatus::kBadAttemptId:
      return "bad map attempt id";
    case WireStatus::kBadLength:
      return "bad length";
    case WireStatus::kBadAuth:
      return "bad auth field";
    case WireStatus::kBadStatus:
      return "bad response status";
    case WireStatus::kBufferTooSmall:
      return "buffer too small";
  }
  return "unknown";
}

WireStatus DecodeFrameHeader(const uint8_t* data, size_t len, FrameHeader* out) {
  if (len < 4) {
    // Reject a wrong magic as early as its first bytes allow, so junk is never waited on.
    uint8_t magic[4];
    StoreBe32(magic, kFrameMagic);
    for (size_t i = 0; i < len; ++i)
      if (data[i] != magic[i]) return WireStatus::kBadMagic;
    return WireStatus::kNeedMore;
  }
  if (LoadBe32(data) != kFrameMagic) return WireStatus::kBadMagic;
  if (len < kFrameHeaderSize) return WireStatus::kNeedMore;
  uint16_t version = LoadBe16(data + 4);
  if (version != kProtocolVersion) return WireStatus::kBadVersion;
  uint16_t type = LoadBe16(data + 6);
  uint32_t body = LoadBe32(data + 8);
  if (type == static_cast<uint16_t>(FrameType::kFetchRequest)) {
    if (body > kMaxRequestBodySize) return WireStatus::kTooLarge;
  } else if (type == static_cast<uint16_t>(FrameType::kFetchResponse)) {
    if (body < kResponseHeaderBodySize) return WireStatus::kMalformed;
    if (body - kResponseHeaderBodySize > kMaxChunkLength) return WireStatus::kTooLarge;
  } else {
    return WireStatus::kBadType;
  }
  out->version = version;
  out->type = static_cast<FrameType>(type);
  out->body_length = body;
  return WireStatus::kOk;
}

WireStatus ValidateRequest(const FetchRequest& req) {
  if (!IsValidJobId(req.job_id)) return WireStatus::kBadJobId;
  if (!AttemptBelongsToJob(req.map_attempt_id, req.job_id)) return WireStatus::kBadAttemptId;
  if (req.max_length == 0 || req.max_length > kMaxChunkLength) return WireStatus::kBadLength;
  if (req.offset > kMaxSignedLong || req.partition > kMaxSignedInt) return WireStatus::kBadLength;
  if (req.auth.size() > kMaxAuthLength) return WireStatus::kBadAuth;
  return WireStatus::kOk;
}

WireStatus EncodeRequest(const FetchRequest& req, std::vector<uint8_t>* out) {
  WireStatus v = ValidateRequest(req);
  if (v != WireStatus::kOk) return v;
  size_t body =
      kRequestFixedSize + 6 + req.job_id.size() + req.map_attempt_id.size() + req.auth.size();
  size_t start = out->size();
  out->resize(start + kFrameHeaderSize + kRequestFixedSize);
  uint8_t* p = out->data() + start;
  PutFrameHeader(p, FrameType::kFetchRequest, static_cast<uint32_t>(body));
  p += kFrameHeaderSize;
  StoreBe64(p, req.request_id);
  StoreBe32(p + 8, req.partition);
  StoreBe64(p + 12, req.offset);
  StoreBe32(p + 20, req.max_length);
  PutString(out, req.job_id);
  PutString(out, req.map_attempt_id);
  PutString(out, req.auth);
  return WireStatus::kOk;
}

WireStatus DecodeRequest(const uint8_t* data, size_t len, FetchRequest* out, size_t* consumed) {
  FrameHeader fh;
  WireStatus s = DecodeFrameHeader(data, len, &fh);
  if (s != WireStatus::kOk) return s;
  if (fh.type != FrameType::kFetchRequest) return WireStatus::kBadType;
  if (len - kFrameHeaderSize < fh.body_length) return WireStatus::kNeedMore;

  BodyReader r(data + kFrameHeaderSize, fh.body_length);
  FetchRequest req;
  bool too_long = false;
  if (!r.U64(&req.request_id) || !r.U32(&req.partition) || !r.U64(&req.offset) ||
      !r.U32(&req.max_length))
    return WireStatus::kMalformed;
  if (!r.String(&req.job_id, kMaxJobIdLength, &too_long))
    return too_long ? WireStatus::kBadJobId : WireStatus::kMalformed;
  if (!r.String(&req.map_attempt_id, kMaxAttemptIdLength, &too_long))
    return too_long ? WireStatus::kBadAttemptId : WireStatus::kMalformed;
  if (!r.String(&req.auth, kMaxAuthLength, &too_long))
    return too_long ? WireStatus::kBadAuth : WireStatus::kMalformed;
  if (!r.AtEnd()) return WireStatus::kMalformed;
  s = ValidateRequest(req);
  if (s != WireStatus::kOk) return s;
  *out = std::move(req);
  *consumed = kFrameHeaderSize + fh.body_length;
  return WireStatus::kOk;
}

WireStatus ValidateResponseHeader(const FetchResponseHeader& h) {
  if (static_cast<uint16_t>(h.status) > static_cast<uint16_t>(ResponseStatus::kBusy))
    return WireStatus::kBadStatus;
  if (h.status != ResponseStatus::kOk && h.chunk_length != 0) return WireStatus::kBadStatus;
  if (h.chunk_length > kMaxChunkLength) return WireStatus::kBadLength;
  if (!h.reply_mac.empty() && h.reply_mac.size() != kReplyMacLength) return WireStatus::kBadAuth;
  if (h.raw_length > kMaxSignedLong || h.part_length > kMaxSignedLong)
    return WireStatus::kBadLength;
  // Both below 2^63 and 2^24, so the sum cannot wrap.
  if (h.chunk_offset > h.part_length || h.chunk_length > h.part_length - h.chunk_offset)
    return WireStatus::kBadLength;
  return WireStatus::kOk;
}

WireStatus EncodeResponsePrefix(const FetchResponseHeader& h, uint8_t* out, size_t cap) {
  WireStatus v = ValidateResponseHeader(h);
  if (v != WireStatus::kOk) return v;
  if (cap < kResponsePrefixSize) return WireStatus::kBufferTooSmall;
  PutFrameHeader(out, FrameType::kFetchResponse,
                 static_cast<uint32_t>(kResponseHeaderBodySize + h.chunk_length));
  uint8_t* p = out + kFrameHeaderSize;
  StoreBe64(p, h.request_id);
  StoreBe16(p + 8, static_cast<uint16_t>(h.status));
  StoreBe16(p + 10, 0);
  StoreBe64(p + 12, h.raw_length);
  StoreBe64(p + 20, h.part_length);
  StoreBe64(p + 28, h.chunk_offset);
  StoreBe32(p + 36, h.chunk_length);
  if (h.reply_mac.empty())
    std::memset(p + 40, 0, kReplyMacLength);
  else
    std::memcpy(p + 40, h.reply_mac.data(), kReplyMacLength);
  return WireStatus::kOk;
}

WireStatus DecodeResponsePrefix(const uint8_t* data, size_t len, FetchResponseHeader* out) {
  FrameHeader fh;
  WireStatus s = DecodeFrameHeader(data, len, &fh);
  if (s != WireStatus::kOk) return s;
  if (fh.type != FrameType::kFetchResponse) return WireStatus::kBadType;
  if (len < kResponsePrefixSize) return WireStatus::kNeedMore;
  const uint8_t* p = data + kFrameHeaderSize;
  if (LoadBe16(p + 10) != 0) return WireStatus::kBadStatus;
  FetchResponseHeader h;
  h.request_id = LoadBe64(p);
  h.status = static_cast<ResponseStatus>(LoadBe16(p + 8));
  h.raw_length = LoadBe64(p + 12);
  h.part_length = LoadBe64(p + 20);
  h.chunk_offset = LoadBe64(p + 28);
  h.chunk_length = LoadBe32(p + 36);
  h.reply_mac.assign(reinterpret_cast<const char*>(p + 40), kReplyMacLength);
  s = ValidateResponseHeader(h);
  if (s != WireStatus::kOk) return s;
  if (fh.body_length != kResponseHeaderBodySize + h.chunk_length) return WireStatus::kMalformed;
  *out = h;
  return WireStatus::kOk;
}

}  // namespace hadoop_accel::jbs
