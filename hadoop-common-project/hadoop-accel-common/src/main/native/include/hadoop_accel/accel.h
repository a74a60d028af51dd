/*
 * Public C API of libhadoopaccel, the native library shared by the
 * accelerated Hadoop features. Plain C so that JNA (and any other
 * language) can bind it; the implementation is C++17.
 */
#ifndef HADOOP_ACCEL_ACCEL_H
#define HADOOP_ACCEL_ACCEL_H

#include <stddef.h>
#include <stdint.h>

#if defined(HACC_BUILDING)
#define HACC_API __attribute__((visibility("default")))
#else
#define HACC_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Version of this library, e.g. "3.5.0-accel-0.1.0". Never NULL. */
HACC_API const char *hacc_version(void);

/*
 * CRC-32 (IEEE 802.3, the polynomial of java.util.zip.CRC32 and of
 * Hadoop's IFile checksums). Start with crc = 0 and feed the previous
 * result back in to checksum data in pieces.
 */
HACC_API uint32_t hacc_crc32_update(uint32_t crc, const void *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* HADOOP_ACCEL_ACCEL_H */
