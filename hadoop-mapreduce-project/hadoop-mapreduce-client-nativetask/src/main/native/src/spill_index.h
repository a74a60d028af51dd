// Hadoop's map output index, from hadoop-accel-common (shared with CooMR), under JBS's names.
#ifndef HADOOP_ACCEL_JBS_SPILL_INDEX_H
#define HADOOP_ACCEL_JBS_SPILL_INDEX_H

#include "hadoop_accel/spill_index.h"

namespace hadoop_accel::jbs {

using mapred::IndexRecord;
using mapred::IndexStatus;
using mapred::IndexStatusName;
using mapred::kDefaultMaxPartitions;
using mapred::kIndexChecksumSize;
using mapred::kIndexRecordSize;
using mapred::SpillIndex;

}  // namespace hadoop_accel::jbs

#endif
