#include "block_balancer.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace hadoop_accel::coomr {

std::vector<uint64_t> MaxMinFairShares(uint64_t capacity, const std::vector<uint64_t>& demands) {
  const size_t n = demands.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return demands[a] < demands[b]; });
  // Smallest demand first: each gets its demand or an even split of what is left, whichever is
  // less. The even splits only grow along the way, so capped shares differ by at most one.
  std::vector<uint64_t> shares(n, 0);
  uint64_t left = capacity;
  for (size_t j = 0; j < n; j++) {
    size_t i = order[j];
    shares[i] = std::min(demands[i], left / (n - j));
    left -= shares[i];
  }
  return shares;
}

BlockBalancer::BlockBalancer(uint64_t total_blocks) : total_(total_blocks), free_(total_blocks) {
  if (total_blocks == 0) {
    throw std::invalid_argument("the pool needs at least one block");
  }
}

ClientId BlockBalancer::Join() {
  ClientId id = next_id_++;
  clients_.emplace(id, Client{});
  return id;
}

BlockBalancer::Client& BlockBalancer::Find(ClientId client) {
  auto it = clients_.find(client);
  if (it == clients_.end()) {
    throw std::invalid_argument("unknown pool client " + std::to_string(client));
  }
  return it->second;
}

const BlockBalancer::Client& BlockBalancer::Find(ClientId client) const {
  return const_cast<BlockBalancer*>(this)->Find(client);
}

void BlockBalancer::Want(ClientId client, uint64_t blocks) {
  Client& c = Find(client);
  if (c.finished) {
    throw std::invalid_argument("pool client " + std::to_string(client) + " has finished");
  }
  c.wanted = blocks;
}

std::vector<std::pair<ClientId, uint64_t>> BlockBalancer::Distribute() {
  std::map<ClientId, uint64_t> granted;
  while (free_ > 0) {
    Client* fewest = nullptr;
    ClientId fewest_id = 0;
    for (auto& [id, c] : clients_) {
      if (!c.finished && c.wanted > 0 && (fewest == nullptr || c.held < fewest->held)) {
        fewest = &c;
        fewest_id = id;
      }
    }
    if (fewest == nullptr) {
      break;
    }
    fewest->held++;
    fewest->wanted--;
    free_--;
    granted[fewest_id]++;
  }
  return {granted.begin(), granted.end()};
}

bool BlockBalancer::TryGrant(ClientId client, uint64_t blocks) {
  Want(client, blocks);
  Client& c = clients_.at(client);
  bool others_waiting = false;
  for (const auto& [id, other] : clients_) {
    others_waiting |= id != client && !other.finished && other.wanted > 0;
  }
  if (blocks > free_ || (others_waiting && c.held + blocks > FairShares().at(client))) {
    return false;  // the demand stays recorded
  }
  c.held += blocks;
  c.wanted = 0;
  free_ -= blocks;
  return true;
}

void BlockBalancer::Release(ClientId client, uint64_t blocks) {
  Client& c = Find(client);
  if (blocks > c.held) {
    throw std::invalid_argument("pool client " + std::to_string(client) + " releases " +
                                std::to_string(blocks) + " blocks but holds " +
                                std::to_string(c.held));
  }
  c.held -= blocks;
  free_ += blocks;
  if (c.finished && c.held == 0) {
    clients_.erase(client);
  }
}

void BlockBalancer::Finish(ClientId client) {
  Client& c = Find(client);
  c.finished = true;
  c.wanted = 0;
  if (c.held == 0) {
    clients_.erase(client);
  }
}

std::map<ClientId, uint64_t> BlockBalancer::FairShares() const {
  std::vector<ClientId> ids;
  std::vector<uint64_t> demands;
  for (const auto& [id, c] : clients_) {
    if (!c.finished) {
      ids.push_back(id);
      demands.push_back(c.held + c.wanted);
    }
  }
  std::vector<uint64_t> shares = MaxMinFairShares(total_, demands);
  std::map<ClientId, uint64_t> out;
  for (size_t i = 0; i < ids.size(); i++) {
    out[ids[i]] = shares[i];
  }
  return out;
}

std::optional<ClientId> BlockBalancer::FlushVictim() const {
  if (free_ > 0) {
    return std::nullopt;  // Distribute() serves the short task without a flush
  }
  std::map<ClientId, uint64_t> shares = FairShares();
  bool someone_short = false;
  for (const auto& [id, share] : shares) {
    const Client& c = clients_.at(id);
    someone_short |= c.wanted > 0 && c.held < share;
  }
  if (!someone_short) {
    return std::nullopt;
  }
  for (const auto& [id, c] : clients_) {
    if (c.finished && c.held > 0) {
      return id;  // the earliest finished task's data goes out first (seed §3.1)
    }
  }
  std::optional<ClientId> victim;
  uint64_t most_over = 0;
  for (const auto& [id, share] : shares) {
    const Client& c = clients_.at(id);
    if (c.held > share && c.held - share > most_over) {
      most_over = c.held - share;
      victim = id;
    }
  }
  return victim;
}

uint64_t BlockBalancer::Held(ClientId client) const { return Find(client).held; }

uint64_t BlockBalancer::Wanted(ClientId client) const { return Find(client).wanted; }

}  // namespace hadoop_accel::coomr
