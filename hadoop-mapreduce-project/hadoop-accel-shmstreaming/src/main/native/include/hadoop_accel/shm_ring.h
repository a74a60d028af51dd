/*
 * Shared-memory ring for Hadoop streaming (ShmStreaming, seed 000).
 *
 * One ring carries one direction of one task's records: a single writer and a single reader
 * in two processes (the task JVM and the user's program). Bytes are exactly what the pipe
 * would carry. Ordering uses acquire/release atomics on the read and write positions; a side
 * that cannot proceed sleeps on a futex in the shared header, and wake-ups are batched as in
 * the seed's Algorithm 2 (empty/full flags changed with compare-and-swap; the other side is
 * woken after `batch` operations, or at once on flush, close and when it would block itself).
 * A sleeping side re-checks every few hundred milliseconds whether its peer is still alive,
 * so a crashed peer turns into an error, never a hang.
 *
 * All functions return 0 / a byte count on success and a negative errno on failure.
 */
#ifndef HADOOP_ACCEL_SHM_RING_H
#define HADOOP_ACCEL_SHM_RING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(HSHM_BUILDING)
#define HSHM_API __attribute__((visibility("default")))
#else
#define HSHM_API
#endif

typedef struct hshm_ring hshm_ring;

enum hshm_role { HSHM_READER = 0, HSHM_WRITER = 1 };

/* Batch size 0 = auto: slightly below capacity / average write size, re-derived as writes
 * are observed (the seed's rule). */
#define HSHM_BATCH_AUTO 0u

/* Creates the ring file at `path` (O_CREAT|O_EXCL, mode 0600, fails if it exists) with
 * `capacity` data bytes, maps it, and takes `role`. */
HSHM_API int hshm_ring_create(const char *path, size_t capacity, int role, hshm_ring **out);

/* Attaches to a ring another process created, taking the other role; waits up to
 * `timeout_ms` for the file to appear. -ETIMEDOUT if it does not. */
HSHM_API int hshm_ring_attach(const char *path, int role, int timeout_ms, hshm_ring **out);

/* Creator side: waits up to `timeout_ms` until the peer has attached (0 or -ETIMEDOUT). */
HSHM_API int hshm_ring_wait_peer(hshm_ring *r, int timeout_ms);

/* Wake-up threshold of Algorithm 2 for this side (HSHM_BATCH_AUTO or 1..). */
HSHM_API void hshm_ring_set_batch(hshm_ring *r, uint32_t batch);

/* Writes all `n` bytes, sleeping while the ring is full. Returns n, or -EPIPE when the
 * reader closed or died. */
HSHM_API ssize_t hshm_ring_write(hshm_ring *r, const void *buf, size_t n);

/* Reads 1..n bytes, sleeping while the ring is empty. Returns the count, 0 at end of stream
 * (writer closed, everything read), -EPIPE when the writer died without closing. */
HSHM_API ssize_t hshm_ring_read(hshm_ring *r, void *buf, size_t n);

/* Zero-copy hand-off: the caller works on the ring's own memory, so bytes are copied once (by
 * the writer, into the ring) instead of twice. Same waiting, batching and errors as write/read.
 *
 * Writer: waits until at least one byte is free, points *data at the contiguous free span and
 * returns its length (<= capacity; shorter at the wrap-around). Fill some prefix, then commit. */
HSHM_API ssize_t hshm_ring_reserve(hshm_ring *r, void **data);
/* Writer: publishes the first n (<= the reserved length) bytes of the reserved span. */
HSHM_API int hshm_ring_commit(hshm_ring *r, size_t n);
/* Reader: waits until at least one byte is readable, points *data at the contiguous readable
 * span and returns its length; 0 at end of stream, -EPIPE as hshm_ring_read. */
HSHM_API ssize_t hshm_ring_peek(hshm_ring *r, const void **data);
/* Reader: releases the first n (<= the peeked length) bytes; the writer may reuse them. */
HSHM_API int hshm_ring_consume(hshm_ring *r, size_t n);

/* Writer: wakes a sleeping reader now instead of at the end of the batch. */
HSHM_API int hshm_ring_flush(hshm_ring *r);

/* Writer: end of stream (the reader drains what is left, then reads 0).
 * Reader: stops reading (a blocked or later write returns -EPIPE).
 * Unmaps and frees `r`; does not unlink the file. */
HSHM_API int hshm_ring_close(hshm_ring *r);

/* Writer: end of stream, as hshm_ring_close, but keeps `r` mapped for hshm_ring_unread. */
HSHM_API int hshm_ring_end(hshm_ring *r);

/* Writer: bytes the reader left unread when it stopped reading (hshm_ring_close by the
 * reader), or -1 while it has not stopped. */
HSHM_API int64_t hshm_ring_unread(const hshm_ring *r);

struct hshm_ring_stats {
  uint64_t bytes;   /* bytes moved by this side */
  uint64_t ops;     /* write or read calls by this side */
  uint64_t sleeps;  /* futex waits by this side */
  uint64_t wakeups; /* futex wakes issued by this side */
};
HSHM_API void hshm_ring_get_stats(const hshm_ring *r, struct hshm_ring_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* HADOOP_ACCEL_SHM_RING_H */
