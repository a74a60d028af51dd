// Fuzz target for the reducer-protocol decoders (frames 16..25): whatever decodes must
// re-encode to the very same bytes, and decoded ids/hosts must pass their syntax checks.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "ids.h"
#include "reducer_protocol.h"

using namespace hadoop_accel::jbs;

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

void CheckSame(const std::vector<uint8_t>& enc, const uint8_t* data, size_t n) {
  Check(enc.size() == n && std::equal(enc.begin(), enc.end(), data));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ReducerFrame type;
  uint32_t body_len = 0;
  if (DecodeReducerHeader(data, size, &type, &body_len) != WireStatus::kOk) return 0;
  if (size - kFrameHeaderSize < body_len) return 0;
  const uint8_t* body = data + kFrameHeaderSize;
  size_t frame = kFrameHeaderSize + body_len;
  std::vector<uint8_t> enc;
  switch (type) {
    case ReducerFrame::kHello: {
      Hello m;
      if (DecodeHello(body, body_len, &m) == WireStatus::kOk) {
        Check(EncodeHello(m, &enc) == WireStatus::kOk);
        CheckSame(enc, data, frame);
      }
      break;
    }
    case ReducerFrame::kRegister: {
      Register m;
      if (DecodeRegister(body, body_len, &m) == WireStatus::kOk) {
        Check(IsValidJobId(m.job));
        Check(EncodeRegister(m, &enc) == WireStatus::kOk);
        CheckSame(enc, data, frame);
      }
      break;
    }
    case ReducerFrame::kRegistered: {
      Registered m;
      if (DecodeRegistered(body, body_len, &m) == WireStatus::kOk) {
        Check(EncodeRegistered(m, &enc) == WireStatus::kOk);
        CheckSame(enc, data, frame);
      }
      break;
    }
    case ReducerFrame::kMapOutput: {
      MapOutput m;
      if (DecodeMapOutput(body, body_len, &m) == WireStatus::kOk) {
        Check(IsValidMapAttemptId(m.attempt) && IsSaneHost(m.host));
        Check(EncodeMapOutput(m, &enc) == WireStatus::kOk);
        CheckSame(enc, data, frame);
      }
      break;
    }
    case ReducerFrame::kMapFetched: {
      MapFetched m;
      if (DecodeMapFetched(body, body_len, &m) == WireStatus::kOk) {
        Check(EncodeMapFetched(m, &enc) == WireStatus::kOk);
        CheckSame(enc, data, frame);
      }
      break;
    }
    case ReducerFrame::kFetchFailed: {
      FetchFailed m;
      if (DecodeFetchFailed(body, body_len, &m) == WireStatus::kOk) {
        Check(EncodeFetchFailed(m, &enc) == WireStatus::kOk);
        CheckSame(enc, data, frame);
      }
      break;
    }
    case ReducerFrame::kMerge:
      if (DecodeMerge(body, body_len) == WireStatus::kOk) {
        Check(EncodeMerge(&enc) == WireStatus::kOk);
        CheckSame(enc, data, frame);
      }
      break;
    case ReducerFrame::kData: {
      const uint8_t* p;
      size_t n;
      if (DecodeData(body, body_len, &p, &n) == WireStatus::kOk) {
        uint8_t prefix[kDataPrefixSize];
        Check(EncodeDataPrefix(p, n, prefix) == WireStatus::kOk);
        enc.assign(prefix, prefix + kDataPrefixSize);
        enc.insert(enc.end(), p, p + n);
        CheckSame(enc, data, frame);
      }
      break;
    }
    case ReducerFrame::kEnd: {
      EndStats m;
      if (DecodeEnd(body, body_len, &m) == WireStatus::kOk) {
        Check(EncodeEnd(m, &enc) == WireStatus::kOk);
        CheckSame(enc, data, frame);
      }
      break;
    }
    case ReducerFrame::kError: {
      ErrorFrame m;
      if (DecodeError(body, body_len, &m) == WireStatus::kOk) {
        Check(EncodeError(m, &enc) == WireStatus::kOk);
        CheckSame(enc, data, frame);
      }
      break;
    }
  }
  return 0;
}
