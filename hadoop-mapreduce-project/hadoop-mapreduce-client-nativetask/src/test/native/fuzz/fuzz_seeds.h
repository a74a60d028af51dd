// What a fuzz target gives the standalone driver (standalone_fuzz_driver.cc), next to its
// LLVMFuzzerTestOneInput: valid inputs to start from, and which mutants to keep mutating.
#ifndef HADOOP_ACCEL_JBS_FUZZ_SEEDS_H
#define HADOOP_ACCEL_JBS_FUZZ_SEEDS_H

#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace hadoop_accel::jbs {

std::vector<std::vector<uint8_t>> FuzzSeeds();
// True if a mutant should join the corpus (e.g. it still decodes, so later mutations go deeper
// than the seeds).
bool FuzzKeepsMutant(const uint8_t* data, size_t size);

}  // namespace hadoop_accel::jbs

#endif
