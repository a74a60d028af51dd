// Fuzz target for the map output index parser (spill_index.cc) and the fetch planner that
// trusts it. Input: see spill_index_fuzz_input.h; the mode byte's other bits pick the
// partition cap and the fetch request to plan.
// Invariants: whatever parses re-serialises to the same bytes, every record obeys the bounds
// SpillIndex promises (non-negative as Java longs, start + length without overflow), and a
// plan never reads outside its partition.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "byte_order.h"
#include "fetch_planner.h"
#include "spill_index.h"
#include "spill_index_fuzz_input.h"

using namespace hadoop_accel::jbs;

namespace {

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

constexpr uint64_t kMaxLong = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  const std::vector<uint8_t> file = IndexFileOfFuzzInput(data, size);
  // Caps from tiny to the default, so kTooManyPartitions is reached with small inputs too.
  static const uint32_t kCaps[] = {1, 2, 7, kDefaultMaxPartitions};
  const uint32_t cap = kCaps[(mode >> 1) & 3];

  SpillIndex index;
  IndexStatus st = SpillIndex::Parse(file.data(), file.size(), &index, cap);
  if (st != IndexStatus::kOk) {
    if (index.partitions() != 0) Fail("failed parse left records behind");
    return 0;
  }
  if (index.partitions() == 0 || index.partitions() > cap) Fail("partition count out of range");
  if (file.size() != index.partitions() * kIndexRecordSize + kIndexChecksumSize)
    Fail("accepted a size other than 24*N+8");

  std::vector<IndexRecord> records(index.partitions());
  for (uint32_t p = 0; p < index.partitions(); ++p) {
    if (index.Get(p, &records[p]) != IndexStatus::kOk) Fail("Get refused a parsed partition");
    const IndexRecord& r = records[p];
    if (r.start_offset > kMaxLong || r.raw_length > kMaxLong || r.part_length > kMaxLong ||
        r.start_offset + r.part_length > kMaxLong)
      Fail("accepted a record outside Java long range");
  }
  IndexRecord none;
  if (index.Get(index.partitions(), &none) != IndexStatus::kPartitionOutOfRange)
    Fail("Get past the last partition");
  std::vector<uint8_t> again = SpillIndex::Serialize(records);
  if (again != file) Fail("re-serialised index differs");

  // Plan a fetch whose partition, offset and length come from the index's own bytes.
  FetchRequest req;
  req.partition = static_cast<uint32_t>(file[0] % (index.partitions() + 1));
  uint64_t bound = index.partitions() > req.partition ? records[req.partition].part_length : 0;
  req.offset = (mode & 0x80) != 0 ? LoadBe64(file.data() + 8) : bound / ((mode >> 3 & 7) + 1);
  req.max_length = LoadBe32(file.data() + 16);
  const size_t buffer = size_t{4096} << (mode >> 3 & 7);
  FetchPlan plan;
  ResponseStatus ps = PlanFetch(req, index, buffer, &plan);
  if (req.partition >= index.partitions()) {
    if (ps != ResponseStatus::kNotFound) Fail("planned a partition the index lacks");
    return 0;
  }
  const IndexRecord& r = records[req.partition];
  if (req.offset > r.part_length) {
    if (ps != ResponseStatus::kBadRequest) Fail("planned an offset past the partition");
    return 0;
  }
  if (ps != ResponseStatus::kOk) Fail("refused a plan inside the partition");
  const FetchResponseHeader& h = plan.header;
  if (h.chunk_offset != req.offset || h.part_length != r.part_length ||
      h.raw_length != r.raw_length)
    Fail("plan header does not match the index");
  if (h.chunk_length > buffer || h.chunk_length > req.max_length ||
      h.chunk_length > kMaxChunkLength || req.offset + h.chunk_length > r.part_length)
    Fail("plan longer than buffer, request or partition");
  if (plan.file_offset != r.start_offset + req.offset ||
      plan.file_offset + h.chunk_length > r.start_offset + r.part_length)
    Fail("plan reads outside the partition");
  return 0;
}
