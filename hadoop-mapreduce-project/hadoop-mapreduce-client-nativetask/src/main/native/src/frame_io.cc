#include "frame_io.h"

#include <vector>

namespace hadoop_accel::jbs {

FrameIoResult SendRequest(Connection* c, const FetchRequest& req) {
  std::vector<uint8_t> frame;
  WireStatus s = EncodeRequest(req, &frame);
  if (s != WireStatus::kOk) return {0, s};
  return {c->SendFrame(frame.data(), frame.size(), nullptr, 0), WireStatus::kOk};
}

FrameIoResult ReceiveRequest(Connection* c, FetchRequest* out) {
  uint8_t buf[kFrameHeaderSize + kMaxRequestBodySize];
  if (int e = c->RecvExact(buf, kFrameHeaderSize)) return {e, WireStatus::kOk};
  FrameHeader fh;
  WireStatus s = DecodeFrameHeader(buf, kFrameHeaderSize, &fh);
  if (s != WireStatus::kOk) return {0, s};
  if (fh.type != FrameType::kFetchRequest) return {0, WireStatus::kBadType};
  // body_length <= kMaxRequestBodySize was checked by DecodeFrameHeader.
  if (int e = c->RecvExact(buf + kFrameHeaderSize, fh.body_length)) return {e, WireStatus::kOk};
  size_t consumed = 0;
  return {0, DecodeRequest(buf, kFrameHeaderSize + fh.body_length, out, &consumed)};
}

FrameIoResult SendResponse(Connection* c, const FetchResponseHeader& h, const uint8_t* chunk) {
  uint8_t prefix[kResponsePrefixSize];
  WireStatus s = EncodeResponsePrefix(h, prefix, sizeof(prefix));
  if (s != WireStatus::kOk) return {0, s};
  return {c->SendFrame(prefix, sizeof(prefix), chunk, h.chunk_length), WireStatus::kOk};
}

FrameIoResult ReceiveResponse(Connection* c, FetchResponseHeader* out, uint8_t* buf, size_t cap) {
  uint8_t prefix[kResponsePrefixSize];
  // The frame header alone first: a wrong or short frame is refused without waiting for more.
  if (int e = c->RecvExact(prefix, kFrameHeaderSize)) return {e, WireStatus::kOk};
  FrameHeader fh;
  WireStatus s = DecodeFrameHeader(prefix, kFrameHeaderSize, &fh);
  if (s != WireStatus::kOk) return {0, s};
  if (fh.type != FrameType::kFetchResponse) return {0, WireStatus::kBadType};
  if (int e = c->RecvExact(prefix + kFrameHeaderSize, kResponseHeaderBodySize))
    return {e, WireStatus::kOk};
  FetchResponseHeader h;
  s = DecodeResponsePrefix(prefix, sizeof(prefix), &h);
  if (s != WireStatus::kOk) return {0, s};
  if (h.chunk_length > cap) return {0, WireStatus::kBufferTooSmall};
  if (h.chunk_length > 0) {
    if (int e = c->RecvExact(buf, h.chunk_length)) return {e, WireStatus::kOk};
  }
  *out = h;
  return {0, WireStatus::kOk};
}

}  // namespace hadoop_accel::jbs
