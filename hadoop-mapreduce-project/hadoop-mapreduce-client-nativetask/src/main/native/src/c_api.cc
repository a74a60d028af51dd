// The C API (mof_supplier.h) over the C++ core: copies between C structs and C++ types and
// maps status enums to the shared integer codes.
#include "hadoop_accel/mof_supplier.h"

#include <cstring>
#include <vector>

#include "ids.h"
#include "spill_index.h"
#include "wire_format.h"

using namespace hadoop_accel::jbs;

static_assert(static_cast<int>(WireStatus::kBufferTooSmall) == HJBS_EBUFFER_TOO_SMALL);
static_assert(static_cast<int>(IndexStatus::kPartitionOutOfRange) == HJBS_EPARTITION_RANGE);
static_assert(kMaxJobIdLength == HJBS_MAX_JOB_ID && kMaxAttemptIdLength == HJBS_MAX_ATTEMPT_ID);
static_assert(kMaxAuthLength == HJBS_MAX_AUTH && kMaxChunkLength == HJBS_MAX_CHUNK);
static_assert(kFrameHeaderSize + kMaxRequestBodySize == HJBS_MAX_REQUEST_FRAME);
static_assert(kResponsePrefixSize == HJBS_RESPONSE_PREFIX);

namespace {

// strnlen bounds: a C caller's unterminated array is read only up to its declared size.
bool ToCpp(const hjbs_fetch_request& c, FetchRequest* r) {
  if (c.auth_length > HJBS_MAX_AUTH) return false;
  r->request_id = c.request_id;
  r->partition = c.partition;
  r->offset = c.offset;
  r->max_length = c.max_length;
  r->job_id.assign(c.job_id, strnlen(c.job_id, sizeof(c.job_id)));
  r->map_attempt_id.assign(c.map_attempt_id, strnlen(c.map_attempt_id, sizeof(c.map_attempt_id)));
  r->auth.assign(reinterpret_cast<const char*>(c.auth), c.auth_length);
  return true;
}

}  // namespace

extern "C" {

const char* hjbs_strerror(int code) {
  if (code == HJBS_EINVAL) return "invalid argument";
  if (code <= -20) return IndexStatusName(static_cast<IndexStatus>(code));
  return WireStatusName(static_cast<WireStatus>(code));
}

int hjbs_request_encode(const hjbs_fetch_request* req, uint8_t* buf, size_t cap, size_t* written) {
  if (req == nullptr || buf == nullptr || written == nullptr) return HJBS_EINVAL;
  FetchRequest r;
  if (!ToCpp(*req, &r)) return HJBS_EBAD_AUTH;
  std::vector<uint8_t> frame;
  WireStatus s = EncodeRequest(r, &frame);
  if (s != WireStatus::kOk) return static_cast<int>(s);
  if (frame.size() > cap) return HJBS_EBUFFER_TOO_SMALL;
  std::memcpy(buf, frame.data(), frame.size());
  *written = frame.size();
  return HJBS_OK;
}

int hjbs_request_decode(const uint8_t* buf, size_t len, hjbs_fetch_request* out, size_t* consumed) {
  if ((buf == nullptr && len > 0) || out == nullptr || consumed == nullptr) return HJBS_EINVAL;
  FetchRequest r;
  WireStatus s = DecodeRequest(buf, len, &r, consumed);
  if (s != WireStatus::kOk) return static_cast<int>(s);
  std::memset(out, 0, sizeof(*out));
  out->request_id = r.request_id;
  out->partition = r.partition;
  out->offset = r.offset;
  out->max_length = r.max_length;
  std::memcpy(out->job_id, r.job_id.data(), r.job_id.size());  // sizes bounded by decoder
  std::memcpy(out->map_attempt_id, r.map_attempt_id.data(), r.map_attempt_id.size());
  std::memcpy(out->auth, r.auth.data(), r.auth.size());
  out->auth_length = static_cast<uint32_t>(r.auth.size());
  return HJBS_OK;
}

int hjbs_response_prefix_encode(const hjbs_response_header* h, uint8_t* buf, size_t cap) {
  if (h == nullptr || buf == nullptr) return HJBS_EINVAL;
  if (h->status > 0xFFFF) return HJBS_EBAD_STATUS;
  FetchResponseHeader r;
  r.request_id = h->request_id;
  r.status = static_cast<ResponseStatus>(h->status);
  r.raw_length = h->raw_length;
  r.part_length = h->part_length;
  r.chunk_offset = h->chunk_offset;
  r.chunk_length = h->chunk_length;
  r.reply_mac.assign(reinterpret_cast<const char*>(h->reply_mac), sizeof(h->reply_mac));
  return static_cast<int>(EncodeResponsePrefix(r, buf, cap));
}

int hjbs_response_prefix_decode(const uint8_t* buf, size_t len, hjbs_response_header* out) {
  if ((buf == nullptr && len > 0) || out == nullptr) return HJBS_EINVAL;
  FetchResponseHeader r;
  WireStatus s = DecodeResponsePrefix(buf, len, &r);
  if (s != WireStatus::kOk) return static_cast<int>(s);
  out->request_id = r.request_id;
  out->status = static_cast<uint32_t>(r.status);
  out->raw_length = r.raw_length;
  out->part_length = r.part_length;
  out->chunk_offset = r.chunk_offset;
  out->chunk_length = r.chunk_length;
  std::memcpy(out->reply_mac, r.reply_mac.data(), sizeof(out->reply_mac));
  return HJBS_OK;
}

int hjbs_index_lookup(const char* path, uint32_t partition, uint32_t* partitions,
                      hjbs_index_record* rec) {
  if (path == nullptr || partitions == nullptr) return HJBS_EINVAL;
  SpillIndex index;
  IndexStatus s = SpillIndex::Load(path, &index);
  if (s != IndexStatus::kOk) return static_cast<int>(s);
  *partitions = index.partitions();
  if (rec == nullptr) return HJBS_OK;
  IndexRecord r;
  s = index.Get(partition, &r);
  if (s != IndexStatus::kOk) return static_cast<int>(s);
  rec->start_offset = r.start_offset;
  rec->raw_length = r.raw_length;
  rec->part_length = r.part_length;
  return HJBS_OK;
}

}  // extern "C"
