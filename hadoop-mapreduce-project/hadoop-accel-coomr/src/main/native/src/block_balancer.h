// COMS's memory balancer (seed 002 §3.1): the node's shared pool is cut into equal blocks, and
// the coordinator gives them to the running tasks by max-min fair sharing. A task that asks for
// fewer blocks than its fair share leaves the rest to the others; when every task asks for more,
// each gets its fair share. Blocks hold a task's data until the coordinator has written it out,
// so a task that finished may still own blocks: when a running task is short of its share,
// those are flushed first, then the blocks of whoever holds the most above its share.
//
// Not thread-safe: the coordinator calls it under its own lock.
#ifndef HADOOP_ACCEL_COOMR_BLOCK_BALANCER_H
#define HADOOP_ACCEL_COOMR_BLOCK_BALANCER_H

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace hadoop_accel::coomr {

using ClientId = uint32_t;

// Max-min fair division of `capacity` among `demands` (water-filling): nobody gets more than it
// asks for, and no client can get more without taking from one that has no more than it. Shares
// of clients asking for more than they get differ by at most one.
std::vector<uint64_t> MaxMinFairShares(uint64_t capacity, const std::vector<uint64_t>& demands);

class BlockBalancer {
 public:
  explicit BlockBalancer(uint64_t total_blocks);

  // A task that starts using the pool; ids are never reused.
  ClientId Join();
  // How many more blocks the task wants beyond those it holds (replaces what it asked before).
  // Throws std::invalid_argument for an unknown or finished client.
  void Want(ClientId client, uint64_t blocks);
  // Hands out free blocks one at a time, each to the wanting task that holds the fewest (the
  // seed's rule; ties go to the earlier task). Returns the blocks granted to each task.
  std::vector<std::pair<ClientId, uint64_t>> Distribute();
  // The synchronous form, for a task that must decide now (spill into the pool or to disk):
  // grants all `blocks` at once if that many are free and either the task stays within its fair
  // share or no other task is waiting for blocks. Otherwise grants nothing and records the
  // demand as Want does, so that later requests from tasks over their share are refused until
  // this one is served. A grant clears the task's recorded demand. Throws like Want.
  bool TryGrant(ClientId client, uint64_t blocks);
  // Blocks whose data has been written out or that the task gave back. Throws
  // std::invalid_argument if the client does not hold that many.
  void Release(ClientId client, uint64_t blocks);
  // The task ended: it wants nothing more; the blocks it holds stay until released. A finished
  // client holding nothing is forgotten.
  void Finish(ClientId client);

  // Whose blocks to flush so that a running task short of its fair share can be served: a
  // finished task's (the earliest), else the running task furthest above its share. nullopt
  // when no block is needed, some are free, or nobody holds more than its share.
  std::optional<ClientId> FlushVictim() const;

  // Each running task's max-min fair share of the pool over its demand (held + wanted).
  std::map<ClientId, uint64_t> FairShares() const;
  uint64_t Held(ClientId client) const;
  uint64_t Wanted(ClientId client) const;
  uint64_t free_blocks() const { return free_; }
  uint64_t total_blocks() const { return total_; }

 private:
  struct Client {
    uint64_t held = 0;
    uint64_t wanted = 0;
    bool finished = false;
  };
  Client& Find(ClientId client);
  const Client& Find(ClientId client) const;

  const uint64_t total_;
  uint64_t free_;
  ClientId next_id_ = 1;
  std::map<ClientId, Client> clients_;  // ordered by id: by arrival
};

}  // namespace hadoop_accel::coomr

#endif
