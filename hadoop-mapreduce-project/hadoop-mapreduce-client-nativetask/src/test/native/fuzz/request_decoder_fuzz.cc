// libFuzzer target for the decoders a MOFSupplier runs on untrusted bytes. Besides "no crash,
// no sanitizer report" it checks that whatever decodes re-encodes to the very same bytes, and
// that every accepted request names ids that are safe as path components.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ids.h"
#include "wire_format.h"

using namespace hadoop_accel::jbs;

namespace {

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

bool PathSafe(const std::string& s) {
  return s.find('/') == std::string::npos && s.find('.') == std::string::npos &&
         s.find('\0') == std::string::npos && !s.empty();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FetchRequest req;
  size_t consumed = 0;
  if (DecodeRequest(data, size, &req, &consumed) == WireStatus::kOk) {
    if (consumed > size || consumed > kFrameHeaderSize + kMaxRequestBodySize)
      Fail("consumed out of range");
    if (!PathSafe(req.job_id) || !PathSafe(req.map_attempt_id)) Fail("unsafe id accepted");
    if (!AttemptBelongsToJob(req.map_attempt_id, req.job_id)) Fail("foreign attempt accepted");
    std::vector<uint8_t> again;
    if (EncodeRequest(req, &again) != WireStatus::kOk) Fail("decoded request not encodable");
    if (again.size() != consumed || std::memcmp(again.data(), data, consumed) != 0)
      Fail("request re-encoding differs");
  }
  FetchResponseHeader h;
  if (DecodeResponsePrefix(data, size, &h) == WireStatus::kOk) {
    uint8_t again[kResponsePrefixSize];
    if (EncodeResponsePrefix(h, again, sizeof(again)) != WireStatus::kOk)
      Fail("decoded response not encodable");
    if (std::memcmp(again, data, sizeof(again)) != 0) Fail("response re-encoding differs");
  }
  return 0;
}
