#include "fetch_client.h"

#include <cstdio>
#include <cstring>

#include "frame_io.h"
#include "job_auth.h"

namespace hadoop_accel::jbs {
namespace {

FetchOutcome Failure(std::string error, bool connect_failed) {
  FetchOutcome o;
  o.error = std::move(error);
  o.connect_failed = connect_failed;
  return o;
}

const char* StatusName(ResponseStatus s) {
  switch (s) {
    case ResponseStatus::kOk:
      return "OK";
    case ResponseStatus::kBadRequest:
      return "BAD_REQUEST";
    case ResponseStatus::kNotFound:
      return "NOT_FOUND";
    case ResponseStatus::kUnauthorized:
      return "UNAUTHORIZED";
    case ResponseStatus::kServerError:
      return "SERVER_ERROR";
    case ResponseStatus::kBusy:
      return "BUSY";
  }
  return "?";
}

}  // namespace

FetchClient::FetchClient(Transport* transport, Config config)
    : config_(std::move(config)),
      pool_(transport, config_.max_connections, config_.connect_timeout_ms) {}

uint64_t FetchClient::retries() const {
  std::lock_guard<std::mutex> g(mu_);
  return retries_;
}

size_t FetchClient::workers() const {
  std::lock_guard<std::mutex> g(mu_);
  return running_;
}

size_t FetchClient::nodes() const {
  std::lock_guard<std::mutex> g(mu_);
  return nodes_.size();
}

void FetchClient::Fetch(std::shared_ptr<const FetchTarget> target, uint64_t offset, Done done) {
  // Each request is timed from here to its outcome, queueing and retries included.
  done = [this, start = Clock::now(), inner = std::move(done)](FetchOutcome o) {
    stats_.latency.Record(Clock::now() - start);
    if (o.ok)
      stats_.bytes += o.chunk.size();
    else
      ++stats_.failures;
    inner(std::move(o));
  };
  Failed failed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) {
      failed.push_back({std::move(done), Failure("the NetMerger is stopping", false)});
    } else {
      std::unique_ptr<Node>& node = nodes_[EndpointKey(target->node)];
      if (!node) {
        node = std::make_unique<Node>();
        node->endpoint = target->node;
      }
      Pending p;
      p.target = std::move(target);
      p.offset = offset;
      p.done = std::move(done);
      node->queue.push_back(std::move(p));
      if (!node->scheduled) {
        node->scheduled = true;
        waiting_.push_back(node.get());
        SpawnLocked(&failed);
      }
    }
  }
  cv_.notify_all();
  for (auto& [d, outcome] : failed) d(std::move(outcome));
}

void FetchClient::SpawnLocked(Failed* failed) {
  // Workers that returned are joined here (they hold no lock once their id is listed).
  for (std::thread::id id : exited_) {
    for (auto it = threads_.begin(); it != threads_.end(); ++it) {
      if (it->get_id() == id) {
        it->join();
        threads_.erase(it);
        break;
      }
    }
  }
  exited_.clear();
  if (running_ >= std::max<size_t>(1, config_.max_workers)) return;  // a worker will come by
  std::thread t;
  std::string why;
  if (TryStartThread(
          config_.launch_thread, [this] { WorkerMain(); }, &t, &why)) {
    ++running_;
    threads_.push_back(std::move(t));
    return;
  }
  std::fprintf(stderr, "jbs_net_merger: fetch worker: %s\n", why.c_str());
  if (running_ > 0) return;  // the running workers get to the waiting nodes in turn
  for (Node* node : waiting_) {
    for (Pending& p : node->queue)
      failed->push_back({std::move(p.done), Failure("NetMerger: " + why, false)});
    node->queue.clear();
    node->scheduled = false;
    nodes_.erase(EndpointKey(node->endpoint));
  }
  waiting_.clear();
}

void FetchClient::WorkerMain() {
  for (;;) {
    Node* node = nullptr;
    {
      std::lock_guard<std::mutex> g(mu_);
      if (stopping_ || waiting_.empty()) {
        --running_;
        exited_.push_back(std::this_thread::get_id());
        cv_.notify_all();  // Stop waits for running_ == 0
        return;
      }
      node = waiting_.front();
      waiting_.pop_front();
    }
    Serve(node);
  }
}

void FetchClient::RetryLocked(Node* node, Pending p, Failed* failed) {
  if (++p.tries > config_.retries || stopping_) {
    std::string why = p.last_error + " (after " + std::to_string(p.tries) + " tries)";
    failed->push_back({std::move(p.done), Failure(why, p.connect_failed)});
    return;
  }
  ++retries_;
  std::fprintf(
      stderr, "jbs_net_merger: fetch %s partition %u offset %llu from %s: %s; retry %d of %d\n",
      p.target->attempt.c_str(), p.target->partition, static_cast<unsigned long long>(p.offset),
      EndpointKey(p.target->node).c_str(), p.last_error.c_str(), p.tries, config_.retries);
  p.not_before = Clock::now() + std::chrono::milliseconds(config_.backoff_ms);
  node->queue.push_front(std::move(p));
}

void FetchClient::Serve(Node* node) {
  const Endpoint endpoint = node->endpoint;  // node may be forgotten before this returns
  std::unique_ptr<Connection> conn;
  bool reused = false;  // conn came idle from the pool and has not carried a batch yet
  std::vector<uint8_t> buf;
  // Queues node behind the waiting ones, after giving its connection back to the pool.
  auto requeue = [&](bool reusable) {
    if (conn) pool_.Release(endpoint, std::move(conn), reusable);
    std::lock_guard<std::mutex> g(mu_);
    waiting_.push_back(node);
    cv_.notify_all();
  };
  for (;;) {
    std::vector<Pending> batch;
    Failed finished;
    {
      std::unique_lock<std::mutex> lock(mu_);
      bool yield = false;
      for (;;) {
        if (stopping_ || node->queue.empty()) break;
        Clock::time_point when = node->queue.front().not_before;
        if (when <= Clock::now()) break;
        // In backoff: let a waiting node that has work due now have this worker.
        if (!waiting_.empty() && !waiting_.front()->queue.empty() &&
            waiting_.front()->queue.front().not_before <= Clock::now()) {
          yield = true;
          break;
        }
        cv_.wait_until(lock, when);  // backoff; Stop and new work wake it
      }
      if (yield && !stopping_) {
        node->active = nullptr;
        lock.unlock();
        requeue(true);
        return;
      }
      if (stopping_ || node->queue.empty()) {
        node->scheduled = false;
        node->active = nullptr;
        if (!stopping_) nodes_.erase(EndpointKey(endpoint));  // forgotten until new work
        break;
      }
      while (!node->queue.empty() && batch.size() < config_.pipeline_depth &&
             node->queue.front().not_before <= Clock::now()) {
        batch.push_back(std::move(node->queue.front()));
        node->queue.pop_front();
      }
    }
    if (!conn) {
      int e = pool_.Acquire(endpoint, &conn, &reused);
      if (e != 0) {
        std::lock_guard<std::mutex> g(mu_);
        for (auto it = batch.rbegin(); it != batch.rend(); ++it) {
          it->connect_failed = true;
          it->last_error = "connect to " + EndpointKey(node->endpoint) + ": " + std::strerror(e);
          RetryLocked(node, std::move(*it), &finished);
        }
        batch.clear();
      } else {
        std::lock_guard<std::mutex> g(mu_);
        node->active = conn.get();
        if (stopping_) conn->Close();
      }
    }
    // Send the whole batch, then read the answers in order.
    size_t sent = 0;
    bool broken = false;
    std::string broken_why;
    for (size_t i = 0; i < batch.size() && !broken; ++i, ++sent) {
      FetchRequest req;
      req.request_id = i;
      req.job_id = batch[i].target->job;
      req.map_attempt_id = batch[i].target->attempt;
      req.partition = batch[i].target->partition;
      req.offset = batch[i].offset;
      req.max_length = config_.max_chunk;
      req.auth = batch[i].target->auth;
      FrameIoResult r = SendRequest(conn.get(), req);
      if (!r.ok()) {
        if (r.io_error == 0) {  // our own request does not encode: no retry will help
          finished.push_back(
              {std::move(batch[i].done),
               Failure(std::string("bad request: ") + WireStatusName(r.wire), false)});
          batch[i].done = nullptr;
          continue;
        }
        broken = true;
        broken_why = std::string("send: ") + std::strerror(r.io_error);
      }
    }
    std::vector<Pending> retry;
    for (size_t i = 0; i < batch.size(); ++i) {
      Pending& p = batch[i];
      if (!p.done) continue;
      if (broken) {
        p.connect_failed = false;
        p.last_error = broken_why;
        retry.push_back(std::move(p));
        continue;
      }
      FetchResponseHeader h;
      buf.resize(config_.max_chunk);
      FrameIoResult r = ReceiveResponse(conn.get(), &h, buf.data(), buf.size());
      if (r.ok() &&
          (h.request_id != i || (h.status == ResponseStatus::kOk && h.chunk_offset != p.offset))) {
        r.wire = WireStatus::kMalformed;  // out of step with what we asked
      }
      if (!r.ok()) {
        broken = true;
        broken_why = r.io_error != 0 ? std::string("receive: ") + std::strerror(r.io_error)
                                     : std::string("bad response: ") + WireStatusName(r.wire);
        p.connect_failed = false;
        p.last_error = broken_why;
        retry.push_back(std::move(p));
        continue;
      }
      if (h.status == ResponseStatus::kOk && !p.target->reply_mac.empty() &&
          !MacEquals(h.reply_mac, p.target->reply_mac)) {
        // Whoever answered does not hold the job secret (a process squatting the supplier's
        // port?): trust none of its data; no retry on this connection will change that.
        std::fprintf(stderr,
                     "jbs_net_merger: %s answered %s without the job secret's proof; "
                     "refusing its data\n",
                     EndpointKey(node->endpoint).c_str(), p.target->attempt.c_str());
        finished.push_back(
            {std::move(p.done), Failure("supplier could not prove it holds the job secret "
                                        "(reply MAC mismatch)",
                                        false)});
        broken = true;  // drop the connection; the rest of the batch is retried
        broken_why = "reply MAC mismatch";
        continue;
      }
      switch (h.status) {
        case ResponseStatus::kOk: {
          FetchOutcome o;
          o.ok = true;
          o.header = h;
          o.chunk.assign(buf.begin(), buf.begin() + h.chunk_length);
          finished.push_back({std::move(p.done), std::move(o)});
          break;
        }
        case ResponseStatus::kBusy:
        case ResponseStatus::kServerError:
          p.connect_failed = false;
          p.last_error = std::string("supplier answered ") + StatusName(h.status);
          retry.push_back(std::move(p));
          break;
        default:
          finished.push_back(
              {std::move(p.done),
               Failure(std::string("supplier answered ") + StatusName(h.status), false)});
      }
    }
    // A broken connection is dropped (a retry reconnects); an idle worker hands its
    // connection back to the pool so an LRU eviction can take it.
    bool release, rotate;
    {
      std::lock_guard<std::mutex> g(mu_);
      for (auto it = retry.rbegin(); it != retry.rend(); ++it) {
        // An idle pooled connection that breaks at once was most likely closed by its peer
        // (say, a restarted supplier): try again on a fresh one without using up a retry.
        if (broken && reused && !stopping_)
          node->queue.push_front(std::move(*it));
        else
          RetryLocked(node, std::move(*it), &finished);
      }
      reused = false;
      // Other nodes wait for a worker: this one goes behind them (round-robin injection).
      rotate = !stopping_ && !node->queue.empty() && !waiting_.empty();
      release = conn && (broken || node->queue.empty() || rotate);
      if (release) node->active = nullptr;
    }
    if (rotate) {
      requeue(!broken);
      for (auto& [done, outcome] : finished) done(std::move(outcome));
      return;
    }
    if (release) pool_.Release(endpoint, std::move(conn), !broken);
    for (auto& [done, outcome] : finished) done(std::move(outcome));
  }
  if (conn) pool_.Release(endpoint, std::move(conn), true);
}

void FetchClient::Stop() {
  std::vector<Done> failed;
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (stopping_ && nodes_.empty() && threads_.empty()) return;
    stopping_ = true;
    for (auto& [key, node] : nodes_)
      if (node->active) node->active->Close();
    cv_.notify_all();
    lock.unlock();
    pool_.Shutdown();
    lock.lock();
    cv_.wait(lock, [this] { return running_ == 0; });  // each closes its own work first
  }
  for (auto& t : threads_) t.join();  // all have returned; nobody adds threads once stopping
  threads_.clear();
  {
    std::lock_guard<std::mutex> g(mu_);
    exited_.clear();
    for (auto& [key, node] : nodes_)
      for (Pending& p : node->queue) failed.push_back(std::move(p.done));
    nodes_.clear();
    waiting_.clear();
  }
  for (Done& d : failed) d(Failure("the NetMerger is stopping", false));
}

}  // namespace hadoop_accel::jbs
