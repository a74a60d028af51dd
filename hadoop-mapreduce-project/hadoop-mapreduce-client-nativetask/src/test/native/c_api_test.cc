// The public C API, linked through libhadoop_jbs.so as a C caller would.
#include "hadoop_accel/mof_supplier.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "test_files.h"

TEST(CApi, RequestRoundTrip) {
  hjbs_fetch_request req;
  std::memset(&req, 0, sizeof(req));
  req.request_id = 99;
  req.partition = 5;
  req.offset = 4096;
  req.max_length = 65536;
  std::strcpy(req.job_id, "job_1700000000000_0003");
  std::strcpy(req.map_attempt_id, "attempt_1700000000000_0003_m_000000_0");
  req.auth_length = 3;
  std::memcpy(req.auth, "\x01\x00\x02", 3);
  uint8_t buf[HJBS_MAX_REQUEST_FRAME];
  size_t n = 0;
  ASSERT_EQ(hjbs_request_encode(&req, buf, sizeof(buf), &n), HJBS_OK);
  hjbs_fetch_request out;
  size_t used = 0;
  EXPECT_EQ(hjbs_request_decode(buf, n - 1, &out, &used), HJBS_NEED_MORE);
  ASSERT_EQ(hjbs_request_decode(buf, n, &out, &used), HJBS_OK);
  EXPECT_EQ(used, n);
  EXPECT_EQ(out.request_id, 99u);
  EXPECT_EQ(out.partition, 5u);
  EXPECT_STREQ(out.job_id, req.job_id);
  EXPECT_STREQ(out.map_attempt_id, req.map_attempt_id);
  EXPECT_EQ(out.auth_length, 3u);
  EXPECT_EQ(std::memcmp(out.auth, req.auth, 3), 0);
  EXPECT_EQ(hjbs_request_encode(&req, buf, n - 1, &n), HJBS_EBUFFER_TOO_SMALL);
  std::strcpy(req.map_attempt_id, "attempt_1700000000000_0003_m_000000_0/../x");
  EXPECT_EQ(hjbs_request_encode(&req, buf, sizeof(buf), &n), HJBS_EBAD_ATTEMPT_ID);
  req.auth_length = HJBS_MAX_AUTH + 1;
  EXPECT_EQ(hjbs_request_encode(&req, buf, sizeof(buf), &n), HJBS_EBAD_AUTH);
  EXPECT_EQ(hjbs_request_decode(nullptr, 0, &out, &used), HJBS_NEED_MORE);
  EXPECT_EQ(hjbs_request_decode(buf, n, nullptr, &used), HJBS_EINVAL);
}

TEST(CApi, ResponsePrefixRoundTrip) {
  hjbs_response_header h{1, HJBS_STATUS_OK, 100, 80, 0, 80, {0}};
  uint8_t buf[HJBS_RESPONSE_PREFIX];
  ASSERT_EQ(hjbs_response_prefix_encode(&h, buf, sizeof(buf)), HJBS_OK);
  hjbs_response_header out;
  ASSERT_EQ(hjbs_response_prefix_decode(buf, sizeof(buf), &out), HJBS_OK);
  EXPECT_EQ(out.part_length, 80u);
  EXPECT_EQ(out.chunk_length, 80u);
  h.status = 70000;
  EXPECT_EQ(hjbs_response_prefix_encode(&h, buf, sizeof(buf)), HJBS_EBAD_STATUS);
}

TEST(CApi, IndexLookup) {
  // Two partitions in Hadoop's layout; CRC-32 computed by Python's zlib.crc32 for these bytes.
  std::vector<uint8_t> bytes = {0, 0,   0, 0, 0,  0, 0, 0, 0, 0,  0, 0, 0,  0, 0,   100, 0,   0,  0,
                                0, 0,   0, 0, 60, 0, 0, 0, 0, 0,  0, 0, 60, 0, 0,   0,   0,   0,  0,
                                0, 200, 0, 0, 0,  0, 0, 0, 0, 90, 0, 0, 0,  0, 139, 175, 153, 164};
  ScratchDir dir;
  std::string path = dir.Write("file.out.index", bytes);
  uint32_t parts = 0;
  hjbs_index_record rec;
  ASSERT_EQ(hjbs_index_lookup(path.c_str(), 1, &parts, &rec), HJBS_OK);
  EXPECT_EQ(parts, 2u);
  EXPECT_EQ(rec.start_offset, 60u);
  EXPECT_EQ(rec.raw_length, 200u);
  EXPECT_EQ(rec.part_length, 90u);
  EXPECT_EQ(hjbs_index_lookup(path.c_str(), 2, &parts, &rec), HJBS_EPARTITION_RANGE);
  bytes[15] = 101;
  path = dir.Write("bad.index", bytes);
  EXPECT_EQ(hjbs_index_lookup(path.c_str(), 0, &parts, &rec), HJBS_EINDEX_CHECKSUM);
  EXPECT_STREQ(hjbs_strerror(HJBS_EINDEX_CHECKSUM), "index checksum mismatch");
  EXPECT_STREQ(hjbs_strerror(HJBS_EBAD_MAGIC), "bad magic");
}
