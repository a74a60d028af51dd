// Big-endian loads and stores, from hadoop-accel-common (shared with Hadoop's index parser),
// under JBS's names.
#ifndef HADOOP_ACCEL_JBS_BYTE_ORDER_H
#define HADOOP_ACCEL_JBS_BYTE_ORDER_H

#include "hadoop_accel/byte_order.h"

namespace hadoop_accel::jbs {

using hadoop_accel::LoadBe16;
using hadoop_accel::LoadBe32;
using hadoop_accel::LoadBe64;
using hadoop_accel::StoreBe16;
using hadoop_accel::StoreBe32;
using hadoop_accel::StoreBe64;

}  // namespace hadoop_accel::jbs

#endif
