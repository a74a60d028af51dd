// The node coordinator's protocol with the tasks of its node, over a UNIX stream socket. Every
// message is a frame: u32 body length (little-endian, at most kMaxFrame), then the body: a u8
// type and its fields (integers little-endian, strings as u16 length + bytes). The task sends
// one request and reads one reply at a time:
//   ATTACH job attempt       -> ATTACHED block_size pool_blocks dir serves_outputs
//                               | ERROR message
//   REQUEST bytes            -> GRANTED blocks (0: refused, spill to disk as stock does)
//   RELEASE blocks           -> OK | ERROR
//   HANDOVER data index      -> OK | ERROR: the attempt's map output (file.out and
//                               file.out.index in its dir) is the coordinator's now, with the
//                               blocks it holds; the coordinator writes it to the disk paths
//                               data and index (only when ATTACHED said serves_outputs)
//   DETACH                   -> OK, and the coordinator closes the connection
// A connection that closes without DETACH is a task that died: its blocks and its dir go
// (not a handed-over output: that stays). The NodeManager's shuffle asks, without attaching:
//   LOOKUP job attempt       -> LOCATED data index: where the attempt's output is now (the
//                               pool, or the disk once written out); empty paths if not ours
#ifndef HADOOP_ACCEL_COOMR_COORDINATOR_PROTOCOL_H
#define HADOOP_ACCEL_COOMR_COORDINATOR_PROTOCOL_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hadoop_accel::coomr {

constexpr size_t kMaxFrame = 4096;
constexpr size_t kMaxName = 1024;  // strings: names and paths

enum class MessageType : uint8_t {
  kAttach = 1,
  kAttached = 2,
  kRequest = 3,
  kGranted = 4,
  kRelease = 5,
  kDetach = 6,
  kOk = 7,
  kHandover = 8,
  kError = 9,
  kLookup = 10,
  kLocated = 11,
};

struct Message {
  MessageType type = MessageType::kOk;
  std::string job;              // ATTACH, LOOKUP
  std::string attempt;          // ATTACH, LOOKUP
  std::string text;             // ATTACHED: the attempt's dir; ERROR: the message;
                                // HANDOVER, LOCATED: the data path
  std::string index;            // HANDOVER, LOCATED: the index path
  uint64_t value = 0;           // REQUEST: bytes; GRANTED, RELEASE: blocks; ATTACHED: pool blocks
  uint32_t block_size = 0;      // ATTACHED
  bool serves_outputs = false;  // ATTACHED
};

// The frame of a message (length prefix included).
std::vector<uint8_t> Encode(const Message& m);
// Parses a frame body (without its length prefix); nullopt if it is not a well-formed message.
std::optional<Message> Decode(const uint8_t* body, size_t length);

// Blocking whole-frame I/O on a socket; false on EOF, error, or a frame over kMaxFrame.
bool WriteMessage(int fd, const Message& m);
bool ReadMessage(int fd, Message* m);

}  // namespace hadoop_accel::coomr

#endif
