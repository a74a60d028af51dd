/*
 * JBS MOFSupplier (seeds 001, 004): the public C API of libhadoop_jbs.
 *
 * This first cut exposes the pieces a peer (NetMerger, a Java binding, a test client) needs to
 * speak to a MOFSupplier: encoding and decoding of the versioned, length-prefixed fetch
 * protocol, and lookups in Hadoop's map output index files (file.out.index). The server
 * itself (request queue, IndexCache, DataCache, transports) is C++ inside the library.
 *
 * Functions return HJBS_OK (0), HJBS_NEED_MORE (1: a valid but incomplete message; read more
 * bytes and call again) or a negative HJBS_E* code; hjbs_strerror names it.
 */
#ifndef HADOOP_ACCEL_MOF_SUPPLIER_H
#define HADOOP_ACCEL_MOF_SUPPLIER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(HJBS_BUILDING)
#define HJBS_API __attribute__((visibility("default")))
#else
#define HJBS_API
#endif

#define HJBS_PROTOCOL_VERSION 1
#define HJBS_MAX_JOB_ID 64
#define HJBS_MAX_ATTEMPT_ID 96
#define HJBS_MAX_AUTH 128
#define HJBS_MAX_CHUNK (16u << 20)
#define HJBS_MAX_REQUEST_FRAME (12 + 512)
#define HJBS_RESPONSE_PREFIX 72 /* frame header + response header; the chunk follows */

enum hjbs_code {
  HJBS_OK = 0,
  HJBS_NEED_MORE = 1,
  /* protocol */
  HJBS_EBAD_MAGIC = -1,
  HJBS_EBAD_VERSION = -2,
  HJBS_EBAD_TYPE = -3,
  HJBS_ETOO_LARGE = -4,
  HJBS_EMALFORMED = -5,
  HJBS_EBAD_JOB_ID = -6,
  HJBS_EBAD_ATTEMPT_ID = -7,
  HJBS_EBAD_LENGTH = -8,
  HJBS_EBAD_AUTH = -9,
  HJBS_EBAD_STATUS = -10,
  HJBS_EBUFFER_TOO_SMALL = -11,
  /* index files */
  HJBS_EINDEX_TRUNCATED = -20,
  HJBS_EINDEX_TOO_MANY_PARTITIONS = -21,
  HJBS_EINDEX_CHECKSUM = -22,
  HJBS_EINDEX_BAD_RECORD = -23,
  HJBS_EINDEX_IO = -24,
  HJBS_EPARTITION_RANGE = -25,
  HJBS_EINVAL = -30
};

/* Status of a fetch response. */
enum hjbs_status {
  HJBS_STATUS_OK = 0,
  HJBS_STATUS_BAD_REQUEST = 1,
  HJBS_STATUS_NOT_FOUND = 2,
  HJBS_STATUS_UNAUTHORIZED = 3,
  HJBS_STATUS_SERVER_ERROR = 4,
  HJBS_STATUS_BUSY = 5
};

/* One fetch: up to max_length bytes of reduce partition `partition` of a map attempt's output,
 * from `offset` within that partition. Ids are NUL-terminated; auth is raw bytes. */
typedef struct hjbs_fetch_request {
  uint64_t request_id;
  uint32_t partition;
  uint64_t offset;
  uint32_t max_length;
  char job_id[HJBS_MAX_JOB_ID + 1];
  char map_attempt_id[HJBS_MAX_ATTEMPT_ID + 1];
  uint8_t auth[HJBS_MAX_AUTH];
  uint32_t auth_length;
} hjbs_fetch_request;

typedef struct hjbs_response_header {
  uint64_t request_id;
  uint32_t status;       /* enum hjbs_status */
  uint64_t raw_length;   /* the partition's uncompressed length */
  uint64_t part_length;  /* the partition's on-disk length */
  uint64_t chunk_offset; /* where in the partition the chunk starts */
  uint32_t chunk_length; /* bytes following the 72-byte prefix */
  uint8_t reply_mac[20]; /* the supplier's proof of the job secret (OK answers), else zeros */
} hjbs_response_header;

typedef struct hjbs_index_record {
  uint64_t start_offset;
  uint64_t raw_length;
  uint64_t part_length;
} hjbs_index_record;

HJBS_API const char *hjbs_strerror(int code);

/* Writes a request frame into buf (cap >= HJBS_MAX_REQUEST_FRAME always suffices). */
HJBS_API int hjbs_request_encode(const hjbs_fetch_request *req, uint8_t *buf, size_t cap,
                                 size_t *written);
/* Decodes one request frame from the front of buf; *consumed = its size on HJBS_OK. */
HJBS_API int hjbs_request_decode(const uint8_t *buf, size_t len, hjbs_fetch_request *out,
                                 size_t *consumed);

/* Writes the 72-byte response prefix; the chunk's bytes follow it on the wire. */
HJBS_API int hjbs_response_prefix_encode(const hjbs_response_header *h, uint8_t *buf, size_t cap);
HJBS_API int hjbs_response_prefix_decode(const uint8_t *buf, size_t len, hjbs_response_header *out);

/* Reads and verifies a whole file.out.index; *partitions = its partition count, and, when
 * rec is not NULL, *rec = partition `partition`'s record (HJBS_EPARTITION_RANGE if none). */
HJBS_API int hjbs_index_lookup(const char *path, uint32_t partition, uint32_t *partitions,
                               hjbs_index_record *rec);

#ifdef __cplusplus
}
#endif

#endif /* HADOOP_ACCEL_MOF_SUPPLIER_H */
