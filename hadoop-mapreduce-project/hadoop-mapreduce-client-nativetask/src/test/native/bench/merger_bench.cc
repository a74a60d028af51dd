// jbs_merger_bench (not run by ctest): the NetMerger's merge step alone, in memory — N
// segments of sorted Text records read chunk by chunk (as fetched) and merged into DATA-sized
// buffers — to see what the merge costs per byte before any network or disk.
//   jbs_merger_bench [segments=64] [MiB per segment=2] [value bytes=90] [chunk KiB=128]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>

#include "ifile_writer.h"
#include "segment_merger.h"

using namespace hadoop_accel::jbs;
using namespace jbs_test;

int main(int argc, char** argv) {
  size_t segments = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 64;
  size_t mib = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 2;
  size_t value_bytes = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 90;
  size_t chunk = (argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 128) * 1024;
  std::mt19937 rng(1);
  auto cmp = ComparatorFor(1);
  for (bool zlib : {false, true}) {
    std::vector<Bytes> disk;
    size_t raw_total = 0, records = 0;
    for (size_t s = 0; s < segments; ++s) {
      std::vector<Rec> recs;
      for (size_t bytes = 0; bytes < mib << 20; bytes += 10 + value_bytes + 3) {
        std::string k(10, 'a');
        for (char& c : k) c = static_cast<char>('a' + rng() % 26);
        Bytes v(value_bytes);
        for (auto& b : v) b = static_cast<uint8_t>(rng() % 4);  // compressible, like text
        recs.push_back({TextKey(k), v});
      }
      std::sort(recs.begin(), recs.end(), [cmp](const Rec& a, const Rec& b) {
        return cmp(a.key.data(), a.key.size(), b.key.data(), b.key.size()) < 0;
      });
      raw_total += RawRecords(recs).size();
      records += recs.size();
      disk.push_back(IFileSegment(recs, zlib));
    }
    std::vector<std::unique_ptr<MemChunkSource>> sources;
    std::vector<std::unique_ptr<SegmentReader>> readers;
    std::vector<MergeInput> inputs;
    size_t disk_total = 0;
    for (size_t i = 0; i < disk.size(); ++i) {
      disk_total += disk[i].size();
      sources.push_back(std::make_unique<MemChunkSource>(disk[i], std::vector<size_t>{chunk}));
      readers.push_back(std::make_unique<SegmentReader>(sources.back().get(),
                                                        zlib ? Codec::kZlib : Codec::kNone));
      inputs.push_back({readers.back().get(), static_cast<uint32_t>(i)});
    }
    uint64_t sink_bytes = 0;
    StreamSink sink(kMaxDataPayload, [&](const uint8_t*, size_t n, std::string*) {
      sink_bytes += n;
      return true;
    });
    auto t0 = std::chrono::steady_clock::now();
    MergeResult r = MergeSegments(inputs, 1, &sink);
    double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r.ok) {
      std::fprintf(stderr, "merge failed: %s\n", r.error.c_str());
      return 1;
    }
    std::printf(
        "%-5s %zu segments, %zu records, %.1f MiB on disk, %.1f MiB stream: %.3f s, "
        "%.0f MiB/s of stream, %.2f M records/s\n",
        zlib ? "zlib" : "plain", segments, records, disk_total / 1048576.0, sink_bytes / 1048576.0,
        sec, sink_bytes / 1048576.0 / sec, records / sec / 1e6);
  }
  return 0;
}
