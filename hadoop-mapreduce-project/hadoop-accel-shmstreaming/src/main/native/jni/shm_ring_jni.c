/* JNI glue of io.hadoopaccel.streaming.shm.ShmRingLibrary over shm_ring.h, built into
 * libhadoop_shm.so. JNI rather than JNA because, measured, loading JNA and binding an interface
 * cost ~150 ms on every streaming task's critical path (2-3 % of a short job), and because
 * here the task's bytes go straight between the Java array and the ring (one copy, not two).
 * Handles are ring pointers as jlong; errors are negative errno values, as in the C API. */
#include <errno.h>
#include <jni.h>
#include <stdint.h>

#include "hadoop_accel/shm_ring.h"

#define FN(name) Java_io_hadoopaccel_streaming_shm_ShmRingLibrary_##name
#define RING(handle) ((hshm_ring *)(intptr_t)(handle))

JNIEXPORT jint JNICALL FN(abiVersion)(JNIEnv *env, jclass cls) {
  (void)env;
  (void)cls;
  return 2;
}

JNIEXPORT jlong JNICALL FN(create)(JNIEnv *env, jclass cls, jstring path, jlong capacity, jint role,
                                   jint batch) {
  (void)cls;
  const char *p = (*env)->GetStringUTFChars(env, path, NULL);
  if (p == NULL) return -ENOMEM;
  hshm_ring *r = NULL;
  int rc = hshm_ring_create(p, (size_t)capacity, role, &r);
  (*env)->ReleaseStringUTFChars(env, path, p);
  if (rc != 0) return rc;
  hshm_ring_set_batch(r, (uint32_t)batch);
  return (jlong)(intptr_t)r;
}

JNIEXPORT jint JNICALL FN(waitPeer)(JNIEnv *env, jclass cls, jlong ring, jint timeout_ms) {
  (void)env;
  (void)cls;
  return hshm_ring_wait_peer(RING(ring), timeout_ms);
}

/* All of b[off, off+len) into the ring, copied from the array straight into its free spans. */
JNIEXPORT jlong JNICALL FN(write)(JNIEnv *env, jclass cls, jlong ring, jbyteArray b, jint off,
                                  jint len) {
  (void)cls;
  jint done = 0;
  while (done < len) {
    void *span;
    ssize_t k = hshm_ring_reserve(RING(ring), &span);
    if (k < 0) return k;
    jint n = (jint)(k < len - done ? k : len - done);
    (*env)->GetByteArrayRegion(env, b, off + done, n, (jbyte *)span);
    if ((*env)->ExceptionCheck(env)) return -EFAULT;
    int rc = hshm_ring_commit(RING(ring), (size_t)n);
    if (rc != 0) return rc;
    done += n;
  }
  return len;
}

/* 1..len bytes from the ring into b[off...], 0 at end of stream. */
JNIEXPORT jlong JNICALL FN(read)(JNIEnv *env, jclass cls, jlong ring, jbyteArray b, jint off,
                                 jint len) {
  (void)cls;
  const void *span;
  ssize_t k = hshm_ring_peek(RING(ring), &span);
  if (k <= 0) return k;
  jint n = (jint)(k < len ? k : len);
  (*env)->SetByteArrayRegion(env, b, off, n, (const jbyte *)span);
  if ((*env)->ExceptionCheck(env)) return -EFAULT;
  int rc = hshm_ring_consume(RING(ring), (size_t)n);
  return rc != 0 ? rc : n;
}

JNIEXPORT jint JNICALL FN(flush)(JNIEnv *env, jclass cls, jlong ring) {
  (void)env;
  (void)cls;
  return hshm_ring_flush(RING(ring));
}

JNIEXPORT jint JNICALL FN(close)(JNIEnv *env, jclass cls, jlong ring) {
  (void)env;
  (void)cls;
  return hshm_ring_close(RING(ring));
}

/* bytes, ops, sleeps, wakeups into out[0..3]. */
JNIEXPORT jint JNICALL FN(end)(JNIEnv *env, jclass cls, jlong ring) {
  (void)env;
  (void)cls;
  return hshm_ring_end(RING(ring));
}

JNIEXPORT jlong JNICALL FN(unread)(JNIEnv *env, jclass cls, jlong ring) {
  (void)env;
  (void)cls;
  return hshm_ring_unread(RING(ring));
}

JNIEXPORT void JNICALL FN(stats)(JNIEnv *env, jclass cls, jlong ring, jlongArray out) {
  (void)cls;
  struct hshm_ring_stats s;
  hshm_ring_get_stats(RING(ring), &s);
  jlong v[4] = {(jlong)s.bytes, (jlong)s.ops, (jlong)s.sleeps, (jlong)s.wakeups};
  (*env)->SetLongArrayRegion(env, out, 0, 4, v);
}
