// Reading whole protocol messages from any Transport connection: the 12-byte frame header is
// checked before its body is read, so a hostile length never sizes an allocation or a read.
#ifndef HADOOP_ACCEL_JBS_FRAME_IO_H
#define HADOOP_ACCEL_JBS_FRAME_IO_H

#include <cstddef>
#include <cstdint>

#include "transport.h"
#include "wire_format.h"

namespace hadoop_accel::jbs {

struct FrameIoResult {
  int io_error = 0;                   // errno from the connection, 0 if none
  WireStatus wire = WireStatus::kOk;  // protocol verdict when io_error == 0
  bool ok() const { return io_error == 0 && wire == WireStatus::kOk; }
};

FrameIoResult SendRequest(Connection* c, const FetchRequest& req);
FrameIoResult ReceiveRequest(Connection* c, FetchRequest* out);

// Sends the response header and, when h.chunk_length > 0, chunk (chunk_length bytes).
FrameIoResult SendResponse(Connection* c, const FetchResponseHeader& h, const uint8_t* chunk);
// Receives a response; its chunk goes into buf, which must hold cap >= chunk_length bytes
// (kBufferTooSmall otherwise, and the connection is no longer in sync).
FrameIoResult ReceiveResponse(Connection* c, FetchResponseHeader* out, uint8_t* buf, size_t cap);

}  // namespace hadoop_accel::jbs

#endif
