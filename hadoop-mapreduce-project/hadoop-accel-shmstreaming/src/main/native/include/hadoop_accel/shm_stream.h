/*
 * The program side of ShmStreaming: what a streaming mapper or reducer uses instead of
 * stdin/stdout. It opens this task's two rings (named in DESIGN.md) from the environment
 * streaming gives the program, and buffers both directions so a program that handles one
 * record per call costs few ring operations.
 *
 * Functions return 0 / a count on success and a negative errno on failure.
 */
#ifndef HADOOP_ACCEL_SHM_STREAM_H
#define HADOOP_ACCEL_SHM_STREAM_H

#include "hadoop_accel/shm_ring.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hshm_stream hshm_stream;

/* Opens this task's two rings, or its stdin/stdout, so one program runs under either transport:
 * - When streaming runs the task with ShmStreaming (-io shm: the job configuration it exports
 *   to our environment names io.hadoopaccel.streaming.shm.* in stream_map_input_writer_class
 *   or stream_reduce_input_writer_class), the task writes one handshake line to our standard
 *   input before anything else, "hadoop-shm 1 TAB <input ring path> TAB <output ring path>
 *   NEWLINE" (DESIGN.md); this reads exactly that line and attaches to both rings. When the
 *   task could not set rings up it sends "-" for both paths, and when standard input ends
 *   before the handshake (a reducer that got no input) the stream is empty: reads return 0,
 *   writes are discarded. NULL with errno set, and one line on stderr, when standard input
 *   holds something else, and NULL with EBUSY when it holds the line the task writes once the
 *   rings are taken ("hadoop-shm 1 TAB + TAB +": another process of the command attached).
 * - Otherwise (pipes, or a shell pipeline outside Hadoop) it reads standard input and writes
 *   standard output, through the same buffers.
 * With the preload shim in the process (under -io shm the task preloads it into every
 * program) the shim stands aside if it has not attached yet, so the rings are this API's alone;
 * if it already has (the program used stdin/stdout first), this stream reads and writes fds 0
 * and 1, which the shim routes to the rings. */
HSHM_API hshm_stream *hshm_stream_open(void);

/* Whether the task runs this program under ShmStreaming (the test hshm_stream_open makes). */
HSHM_API int hshm_stream_task_uses_rings(void);

/* The same, reading the handshake from `fd`. */
HSHM_API hshm_stream *hshm_stream_open_fd(int fd);

/* Attaches to two rings by path, waiting up to `timeout_ms` for the files. */
HSHM_API hshm_stream *hshm_stream_open_paths(const char *in_path, const char *out_path,
                                             int timeout_ms);

/* Reads 1..n input bytes; 0 at end of input. */
HSHM_API ssize_t hshm_stream_read(hshm_stream *s, void *buf, size_t n);

/* Next input line without its '\n' (a last line without one counts too). Returns 1 and sets
 * *line / *len (valid until the next read call), 0 at end of input. Lines of any length. */
HSHM_API int hshm_stream_read_line(hshm_stream *s, const char **line, size_t *len);

/* Buffers n output bytes. */
HSHM_API ssize_t hshm_stream_write(hshm_stream *s, const void *buf, size_t n);

/* Writes key TAB value NEWLINE. */
HSHM_API int hshm_stream_write_record(hshm_stream *s, const char *key, size_t key_len,
                                      const char *value, size_t value_len);

/* Hands buffered output to the ring and wakes the task. */
HSHM_API int hshm_stream_flush(hshm_stream *s);

/* Flushes and ends the output stream only (over rings the task reads end of output); input
 * still works. Later writes return -EPIPE. For a program that closes its output before exiting
 * (the preload shim, on close(1)). In pipe mode standard output itself stays open. */
HSHM_API int hshm_stream_close_output(hshm_stream *s);

/* Flushes, ends the output stream, detaches both rings and frees s. */
HSHM_API int hshm_stream_close(hshm_stream *s);

/* What hshm_stream_open found: rings, pipes (the task sent "-") or no input at all. */
enum hshm_transport { HSHM_TRANSPORT_RINGS = 0, HSHM_TRANSPORT_PIPES = 1, HSHM_TRANSPORT_NONE = 2 };
HSHM_API int hshm_stream_transport(const hshm_stream *s);

#ifdef __cplusplus
}
#endif
#endif /* HADOOP_ACCEL_SHM_STREAM_H */
