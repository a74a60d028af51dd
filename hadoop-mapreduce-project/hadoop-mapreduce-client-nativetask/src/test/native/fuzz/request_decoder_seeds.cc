// Seeds of the request/response decoder fuzz target: valid request frames (with and without an
// auth field), a response prefix, and empty input.
#include <string>

#include "fuzz_seeds.h"
#include "wire_format.h"

namespace hadoop_accel::jbs {

std::vector<std::vector<uint8_t>> FuzzSeeds() {
  std::vector<std::vector<uint8_t>> seeds;
  FetchRequest r;
  r.request_id = 42;
  r.partition = 3;
  r.offset = 131072;
  r.max_length = 131072;
  r.job_id = "job_1700000000000_0001";
  r.map_attempt_id = "attempt_1700000000000_0001_m_000007_0";
  std::vector<uint8_t> b;
  EncodeRequest(r, &b);
  seeds.push_back(b);
  r.auth = std::string(28, 'A');
  b.clear();
  EncodeRequest(r, &b);
  seeds.push_back(b);
  FetchResponseHeader h;
  h.request_id = 42;
  h.raw_length = 1000;
  h.part_length = 600;
  h.chunk_offset = 100;
  h.chunk_length = 500;
  std::vector<uint8_t> p(kResponsePrefixSize);
  EncodeResponsePrefix(h, p.data(), p.size());
  seeds.push_back(p);
  seeds.push_back({});
  return seeds;
}

bool FuzzKeepsMutant(const uint8_t* data, size_t size) {
  FetchRequest r;
  size_t used;
  return DecodeRequest(data, size, &r, &used) == WireStatus::kOk;
}

}  // namespace hadoop_accel::jbs
