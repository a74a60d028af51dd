#include "reducer_protocol.h"

#include <hadoop_accel/accel.h>

#include "body_reader.h"
#include "byte_order.h"
#include "ids.h"

namespace hadoop_accel::jbs {
namespace {

// Builds one frame: fields appended to a body, the header patched in at Finish.
class Writer {
 public:
  Writer(std::vector<uint8_t>* out, ReducerFrame type) : out_(out), start_(out->size()) {
    out_->resize(start_ + kFrameHeaderSize);
    StoreBe32(out_->data() + start_, kFrameMagic);
    StoreBe16(out_->data() + start_ + 4, kProtocolVersion);
    StoreBe16(out_->data() + start_ + 6, static_cast<uint16_t>(type));
  }
  void U8(uint8_t v) { out_->push_back(v); }
  void U16(uint16_t v) { Put(v, 2); }
  void U32(uint32_t v) { Put(v, 4); }
  void U64(uint64_t v) { Put(v, 8); }
  void Bytes(const uint8_t* p, size_t n) { out_->insert(out_->end(), p, p + n); }
  void String(const std::string& s) {
    U16(static_cast<uint16_t>(s.size()));
    out_->insert(out_->end(), s.begin(), s.end());
  }
  WireStatus Finish() {
    StoreBe32(out_->data() + start_ + 8,
              static_cast<uint32_t>(out_->size() - start_ - kFrameHeaderSize));
    return WireStatus::kOk;
  }

 private:
  void Put(uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) out_->push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  std::vector<uint8_t>* out_;
  size_t start_;
};

bool IsKnownType(uint16_t t) { return t >= 16 && t <= 25; }

WireStatus Done(const BodyReader& r) {
  return r.AtEnd() ? WireStatus::kOk : WireStatus::kMalformed;
}

}  // namespace

bool IsSaneHost(const std::string& host) {
  if (host.empty() || host.size() > kMaxHostLength) return false;
  for (char c : host) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7F) return false;  // NUL, control characters, spaces
  }
  return true;
}

WireStatus DecodeReducerHeader(const uint8_t* data, size_t len, ReducerFrame* type,
                               uint32_t* body_length) {
  if (len < 4) {
    uint8_t magic[4];
    StoreBe32(magic, kFrameMagic);
    for (size_t i = 0; i < len; ++i)
      if (data[i] != magic[i]) return WireStatus::kBadMagic;
    return WireStatus::kNeedMore;
  }
  if (LoadBe32(data) != kFrameMagic) return WireStatus::kBadMagic;
  if (len < kFrameHeaderSize) return WireStatus::kNeedMore;
  if (LoadBe16(data + 4) != kProtocolVersion) return WireStatus::kBadVersion;
  uint16_t t = LoadBe16(data + 6);
  if (!IsKnownType(t)) return WireStatus::kBadType;
  uint32_t body = LoadBe32(data + 8);
  auto ft = static_cast<ReducerFrame>(t);
  if (ft == ReducerFrame::kData) {
    if (body < 4) return WireStatus::kMalformed;
    if (body - 4 > kMaxDataPayload) return WireStatus::kTooLarge;
  } else if (ft == ReducerFrame::kMerge) {
    if (body != 0) return WireStatus::kMalformed;
  } else if (body > kMaxReducerControlBody) {
    return WireStatus::kTooLarge;
  }
  *type = ft;
  *body_length = body;
  return WireStatus::kOk;
}

WireStatus EncodeHello(const Hello& m, std::vector<uint8_t>* out) {
  Writer w(out, ReducerFrame::kHello);
  w.Bytes(m.nonce, kNonceLength);
  return w.Finish();
}

static WireStatus ValidateRegister(const Register& m) {
  if (!IsValidJobId(m.job)) return WireStatus::kBadJobId;
  if (m.auth.size() > kMaxAuthLength) return WireStatus::kBadAuth;
  return WireStatus::kOk;
}

WireStatus EncodeRegister(const Register& m, std::vector<uint8_t>* out) {
  if (WireStatus s = ValidateRegister(m); s != WireStatus::kOk) return s;
  Writer w(out, ReducerFrame::kRegister);
  w.U32(m.partition);
  w.U32(m.num_maps);
  w.U8(m.key_type);
  w.U8(m.codec);
  w.U16(0);
  w.String(m.job);
  w.String(m.auth);
  w.Bytes(m.client_nonce, kNonceLength);
  return w.Finish();
}

WireStatus EncodeRegistered(const Registered& m, std::vector<uint8_t>* out) {
  if (static_cast<uint16_t>(m.status) > 4) return WireStatus::kBadStatus;
  if (m.message.size() > kMaxMessageLength) return WireStatus::kMalformed;
  if (m.proof.size() > kMaxAuthLength) return WireStatus::kBadAuth;
  Writer w(out, ReducerFrame::kRegistered);
  w.U16(static_cast<uint16_t>(m.status));
  w.String(m.message);
  w.String(m.proof);
  return w.Finish();
}

WireStatus EncodeMapOutput(const MapOutput& m, std::vector<uint8_t>* out) {
  if (!IsValidMapAttemptId(m.attempt)) return WireStatus::kBadAttemptId;
  if (!IsSaneHost(m.host)) return WireStatus::kMalformed;
  Writer w(out, ReducerFrame::kMapOutput);
  w.U32(m.map_index);
  w.U16(m.port);
  w.String(m.attempt);
  w.String(m.host);
  return w.Finish();
}

WireStatus EncodeMapFetched(const MapFetched& m, std::vector<uint8_t>* out) {
  if (!IsValidMapAttemptId(m.attempt)) return WireStatus::kBadAttemptId;
  Writer w(out, ReducerFrame::kMapFetched);
  w.U32(m.map_index);
  w.U64(m.part_length);
  w.String(m.attempt);
  return w.Finish();
}

WireStatus EncodeFetchFailed(const FetchFailed& m, std::vector<uint8_t>* out) {
  if (!IsValidMapAttemptId(m.attempt)) return WireStatus::kBadAttemptId;
  if (m.message.size() > kMaxMessageLength) return WireStatus::kMalformed;
  Writer w(out, ReducerFrame::kFetchFailed);
  w.U32(m.map_index);
  w.U8(m.connect_failed ? 1 : 0);
  w.String(m.attempt);
  w.String(m.message);
  return w.Finish();
}

WireStatus EncodeMerge(std::vector<uint8_t>* out) {
  return Writer(out, ReducerFrame::kMerge).Finish();
}

WireStatus EncodeEnd(const EndStats& m, std::vector<uint8_t>* out) {
  Writer w(out, ReducerFrame::kEnd);
  w.U64(m.records);
  w.U64(m.stream_bytes);
  w.U64(m.fetched_bytes);
  w.U32(m.merge_passes);
  w.U64(m.spilled_bytes);
  return w.Finish();
}

WireStatus EncodeError(const ErrorFrame& m, std::vector<uint8_t>* out) {
  if (m.message.size() > kMaxMessageLength) return WireStatus::kMalformed;
  Writer w(out, ReducerFrame::kError);
  w.U16(static_cast<uint16_t>(m.code));
  w.String(m.message);
  return w.Finish();
}

WireStatus EncodeDataPrefix(const uint8_t* payload, size_t len, uint8_t out[kDataPrefixSize]) {
  if (len > kMaxDataPayload) return WireStatus::kTooLarge;
  StoreBe32(out, kFrameMagic);
  StoreBe16(out + 4, kProtocolVersion);
  StoreBe16(out + 6, static_cast<uint16_t>(ReducerFrame::kData));
  StoreBe32(out + 8, static_cast<uint32_t>(4 + len));
  StoreBe32(out + 12, hacc_crc32_update(0, payload, len));
  return WireStatus::kOk;
}

WireStatus DecodeHello(const uint8_t* body, size_t len, Hello* out) {
  BodyReader r(body, len);
  if (!r.Bytes(out->nonce, kNonceLength)) return WireStatus::kMalformed;
  return Done(r);
}

WireStatus DecodeRegister(const uint8_t* body, size_t len, Register* out) {
  BodyReader r(body, len);
  Register m;
  uint16_t reserved;
  if (!r.U32(&m.partition) || !r.U32(&m.num_maps) || !r.U8(&m.key_type) || !r.U8(&m.codec) ||
      !r.U16(&reserved) || reserved != 0 || !r.String(&m.job, kMaxJobIdLength))
    return WireStatus::kMalformed;
  if (!r.String(&m.auth, kMaxAuthLength)) return WireStatus::kBadAuth;
  if (!r.Bytes(m.client_nonce, kNonceLength)) return WireStatus::kMalformed;
  if (!r.AtEnd()) return WireStatus::kMalformed;
  if (WireStatus s = ValidateRegister(m); s != WireStatus::kOk) return s;
  *out = std::move(m);
  return WireStatus::kOk;
}

WireStatus DecodeRegistered(const uint8_t* body, size_t len, Registered* out) {
  BodyReader r(body, len);
  uint16_t status;
  Registered m;
  if (!r.U16(&status) || !r.String(&m.message, kMaxMessageLength)) return WireStatus::kMalformed;
  if (!r.String(&m.proof, kMaxAuthLength)) return WireStatus::kBadAuth;
  if (status > 4) return WireStatus::kBadStatus;
  m.status = static_cast<RegisterStatus>(status);
  if (!r.AtEnd()) return WireStatus::kMalformed;
  *out = std::move(m);
  return WireStatus::kOk;
}

WireStatus DecodeMapOutput(const uint8_t* body, size_t len, MapOutput* out) {
  BodyReader r(body, len);
  MapOutput m;
  if (!r.U32(&m.map_index) || !r.U16(&m.port) || !r.String(&m.attempt, kMaxAttemptIdLength) ||
      !r.String(&m.host, kMaxHostLength) || !r.AtEnd())
    return WireStatus::kMalformed;
  if (!IsValidMapAttemptId(m.attempt)) return WireStatus::kBadAttemptId;
  if (!IsSaneHost(m.host)) return WireStatus::kMalformed;
  *out = std::move(m);
  return WireStatus::kOk;
}

WireStatus DecodeMapFetched(const uint8_t* body, size_t len, MapFetched* out) {
  BodyReader r(body, len);
  MapFetched m;
  if (!r.U32(&m.map_index) || !r.U64(&m.part_length) ||
      !r.String(&m.attempt, kMaxAttemptIdLength) || !r.AtEnd())
    return WireStatus::kMalformed;
  if (!IsValidMapAttemptId(m.attempt)) return WireStatus::kBadAttemptId;
  *out = std::move(m);
  return WireStatus::kOk;
}

WireStatus DecodeFetchFailed(const uint8_t* body, size_t len, FetchFailed* out) {
  BodyReader r(body, len);
  FetchFailed m;
  uint8_t flag;
  if (!r.U32(&m.map_index) || !r.U8(&flag) || flag > 1 ||
      !r.String(&m.attempt, kMaxAttemptIdLength) || !r.String(&m.message, kMaxMessageLength) ||
      !r.AtEnd())
    return WireStatus::kMalformed;
  if (!IsValidMapAttemptId(m.attempt)) return WireStatus::kBadAttemptId;
  m.connect_failed = flag == 1;
  *out = std::move(m);
  return WireStatus::kOk;
}

WireStatus DecodeMerge(const uint8_t*, size_t len) {
  return len == 0 ? WireStatus::kOk : WireStatus::kMalformed;
}

WireStatus DecodeData(const uint8_t* body, size_t len, const uint8_t** payload, size_t* n) {
  if (len < 4) return WireStatus::kMalformed;
  if (len - 4 > kMaxDataPayload) return WireStatus::kTooLarge;
  if (LoadBe32(body) != hacc_crc32_update(0, body + 4, len - 4)) return WireStatus::kMalformed;
  *payload = body + 4;
  *n = len - 4;
  return WireStatus::kOk;
}

WireStatus DecodeEnd(const uint8_t* body, size_t len, EndStats* out) {
  BodyReader r(body, len);
  EndStats m;
  if (!r.U64(&m.records) || !r.U64(&m.stream_bytes) || !r.U64(&m.fetched_bytes) ||
      !r.U32(&m.merge_passes) || !r.U64(&m.spilled_bytes))
    return WireStatus::kMalformed;
  if (WireStatus s = Done(r); s != WireStatus::kOk) return s;
  *out = m;
  return WireStatus::kOk;
}

WireStatus DecodeError(const uint8_t* body, size_t len, ErrorFrame* out) {
  BodyReader r(body, len);
  uint16_t code;
  ErrorFrame m;
  if (!r.U16(&code) || !r.String(&m.message, kMaxMessageLength) || !r.AtEnd())
    return WireStatus::kMalformed;
  m.code = static_cast<ErrorCode>(code);
  *out = std::move(m);
  return WireStatus::kOk;
}

}  // namespace hadoop_accel::jbs
