#include "coordinator.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include "hadoop_accel/spill_index.h"

namespace hadoop_accel::coomr {
namespace {

[[noreturn]] void Fail(const std::string& what) {
  throw std::system_error(errno, std::generic_category(), what);
}

// A name that is safe as one path component: what job and attempt ids look like.
bool SafeName(const std::string& s) {
  if (s.empty() || s == "." || s == "..") return false;
  for (char c : s) {
    if (!isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') return false;
  }
  return true;
}

Message Error(const std::string& text) {
  Message m;
  m.type = MessageType::kError;
  m.text = text;
  return m;
}

// An absolute path without . or .. components: where a map output may be written.
bool SafePath(const std::string& p) {
  if (p.empty() || p[0] != '/' || p.back() == '/') return false;
  for (const auto& part : std::filesystem::path(p)) {
    if (part == "." || part == "..") return false;
  }
  return true;
}

bool IsRegularFile(const std::string& p) {
  struct stat st {};
  return lstat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Copies a pool file to its disk path: parents made as needed, written to a temporary name
// (never through a link) and renamed into place, so that the path holds a whole copy or none.
bool CopyToDisk(const std::string& from, const std::string& to, std::string* error) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(to).parent_path(), ec);
  if (ec) {
    *error = "making the dir of " + to + ": " + ec.message();
    return false;
  }
  std::string tmp = to + ".coomr-tmp";
  int in = open(from.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (in < 0) {
    *error = "opening " + from + ": " + strerror(errno);
    return false;
  }
  int out = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0640);
  if (out < 0) {
    *error = "creating " + tmp + ": " + strerror(errno);
    close(in);
    return false;
  }
  std::vector<char> buf(1 << 20);
  bool ok = true;
  for (;;) {
    ssize_t n = read(in, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = n == 0;
      break;
    }
    for (ssize_t done = 0; ok && done < n;) {
      ssize_t w = write(out, buf.data() + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      ok = w > 0;
      if (ok) done += w;
    }
    if (!ok) break;
  }
  if (!ok) *error = "copying " + from + " to " + tmp + ": " + strerror(errno);
  close(in);
  if (close(out) != 0 && ok) {
    ok = false;
    *error = "closing " + tmp + ": " + strerror(errno);
  }
  if (ok && rename(tmp.c_str(), to.c_str()) != 0) {
    ok = false;
    *error = "renaming " + tmp + ": " + strerror(errno);
  }
  if (!ok) unlink(tmp.c_str());
  return ok;
}

bool IsRealDir(const std::string& p) {
  struct stat st {};
  return lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid();
}

uint64_t FileBytes(const std::string& p) {
  struct stat st {};
  return lstat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) : 0;
}

// Writes bytes to path through a temporary name and a rename (never through a link), so that
// the path holds all of them or what it held before.
bool WriteFileAtomically(const std::string& path, const void* bytes, size_t size, mode_t mode,
                         std::string* error) {
  std::string tmp = path + ".coomr-tmp";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
  bool ok = fd >= 0 && write(fd, bytes, size) == static_cast<ssize_t>(size);
  if (fd >= 0 && close(fd) != 0) ok = false;
  ok = ok && rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) {
    *error = "writing " + path + ": " + strerror(errno);
    unlink(tmp.c_str());
  }
  return ok;
}

// Writes a handed-over output's disk paths beside it.
bool WriteHandoverRecord(const std::string& dir, const std::string& data, const std::string& index,
                         std::string* error) {
  std::string text = data + "\n" + index + "\n";
  return WriteFileAtomically(dir + "/" + kHandoverRecord, text.data(), text.size(), 0600, error);
}

// The LOCS log for a map output whose stock disk path is <app dir>/output/<attempt>/file.out:
// the job's log on that disk. Empty for a path of any other form.
std::string LocsLogFor(const std::string& disk_data) {
  std::filesystem::path output = std::filesystem::path(disk_data).parent_path().parent_path();
  return output.filename() == "output" ? (output / kLocsLogName).string() : "";
}

// The task and attempt numbers of an attempt id (attempt_<cluster>_<job>_m_<task>_<attempt>),
// a bucket's labels in the log; 0 where the id is not of that form.
std::pair<uint32_t, uint32_t> TaskNumbers(const std::string& attempt) {
  auto number = [](const std::string& s) -> uint32_t {
    char* end = nullptr;
    unsigned long v = strtoul(s.c_str(), &end, 10);
    return !s.empty() && *end == '\0' && v <= UINT32_MAX ? static_cast<uint32_t>(v) : 0;
  };
  size_t last = attempt.rfind('_');
  if (last == std::string::npos || last == 0) return {0, 0};
  size_t task = attempt.rfind('_', last - 1);
  if (task == std::string::npos) return {0, 0};
  return {number(attempt.substr(task + 1, last - task - 1)), number(attempt.substr(last + 1))};
}

// A pool file mapped read-only (tmpfs: no copy), unmapped when it goes.
class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile() {
    if (size_ > 0) munmap(data_, size_);
  }
  bool Map(const std::string& path, std::string* error) {
    int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st {};
    bool ok = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (ok && st.st_size > 0) {
      void* p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
      ok = p != MAP_FAILED;
      if (ok) {
        data_ = p;
        size_ = static_cast<size_t>(st.st_size);
      }
    }
    if (!ok) *error = "reading " + path + ": " + strerror(errno);
    if (fd >= 0) close(fd);
    return ok;
  }
  const uint8_t* bytes() const { return static_cast<const uint8_t*>(data_); }
  size_t size() const { return size_; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

// Appends a line to a job's record of its logged outputs.
void RecordLogged(const std::string& job_dir, const std::string& attempt, const std::string& log,
                  const std::string& index) {
  std::string line = attempt + "\t" + log + "\t" + index + "\n";
  std::string path = job_dir + "/" + kLoggedRecord;
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
  bool ok = fd >= 0 && write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  if (fd >= 0) close(fd);
  // Lost only for a restart: the shuffle then cannot find this output, and its map re-runs.
  if (!ok)
    fprintf(stderr, "coomr_coordinator: cannot record in %s: %s\n", path.c_str(), strerror(errno));
}

// Reads a handover record: false unless it names two safe paths.
bool ReadHandoverRecord(const std::string& dir, std::string* data, std::string* index) {
  std::string path = dir + "/" + kHandoverRecord;
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[2 * kMaxName + 4];
  ssize_t n = read(fd, buf, sizeof(buf));
  close(fd);
  if (n <= 0) return false;
  std::string text(buf, static_cast<size_t>(n));
  size_t first = text.find('\n');
  if (first == std::string::npos || text.back() != '\n') return false;
  *data = text.substr(0, first);
  *index = text.substr(first + 1, text.size() - first - 2);
  return SafePath(*data) && SafePath(*index);
}

}  // namespace

Coordinator::Coordinator(CoordinatorOptions options)
    : options_(std::move(options)),
      balancer_(options_.block_size == 0 ? 0 : options_.pool_bytes / options_.block_size) {}

Coordinator::~Coordinator() { Stop(); }

void Coordinator::Start() {
  if (mkdir(options_.pool_dir.c_str(), 0700) != 0 && errno != EEXIST) {
    Fail("creating pool dir " + options_.pool_dir);
  }
  // The pool is ours alone: not a link, not another user's, 0700. What is in it belongs to the
  // tasks of an earlier coordinator, which are gone or spill to disk now: it is memory to free.
  struct stat st {};
  if (lstat(options_.pool_dir.c_str(), &st) != 0) Fail("pool dir " + options_.pool_dir);
  if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
    errno = EPERM;
    Fail("pool dir " + options_.pool_dir + " is a link or another user's");
  }
  if (chmod(options_.pool_dir.c_str(), 0700) != 0) Fail("chmod 0700 " + options_.pool_dir);
  if (options_.recover) {
    Recover();
  } else {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(options_.pool_dir, ec)) {
      std::filesystem::remove_all(entry.path(), ec);
    }
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (options_.socket_path.size() >= sizeof(addr.sun_path)) {
    errno = ENAMETOOLONG;
    Fail("socket path " + options_.socket_path);
  }
  memcpy(addr.sun_path, options_.socket_path.c_str(), options_.socket_path.size() + 1);
  listen_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) Fail("socket");
  unlink(options_.socket_path.c_str());  // a stale socket of an earlier run
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      chmod(options_.socket_path.c_str(), 0600) != 0 || listen(listen_fd_, 64) != 0) {
    int err = errno;
    close(listen_fd_);
    listen_fd_ = -1;
    errno = err;
    Fail("listening on " + options_.socket_path);
  }
  acceptor_ = std::thread([this] { AcceptLoop(); });
  mover_ = std::thread([this] { MoveLoop(); });
}

void Coordinator::Stop() {
  if (stopping_.exchange(true) || listen_fd_ < 0) return;
  shutdown(listen_fd_, SHUT_RDWR);
  if (acceptor_.joinable()) acceptor_.join();
  close(listen_fd_);
  unlink(options_.socket_path.c_str());
  {
    std::lock_guard<std::mutex> lock(mu_);
    mover_wake_.notify_all();
  }
  if (mover_.joinable()) mover_.join();
  std::unique_lock<std::mutex> lock(mu_);
  for (int fd : open_fds_) shutdown(fd, SHUT_RDWR);  // their threads see EOF and end
  idle_.wait(lock, [this] { return serving_ == 0; });
  // An empty pool leaves nothing behind; one still holding outputs is kept for --recover.
  rmdir(options_.pool_dir.c_str());
}

bool Coordinator::EndJob(const std::string& job) {
  if (!SafeName(job)) return false;
  // Its tasks are gone or being killed: their connections' cleanup finds nothing left to delete.
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = outputs_.begin(); it != outputs_.end();) {
      auto next = std::next(it);
      if (it->first.first == job) DropOutput(it->first);
      it = next;
    }
    auto dirs = recovered_dirs_.find(job);
    if (dirs != recovered_dirs_.end()) {
      auto [client, blocks] = dirs->second;
      if (blocks > 0) balancer_.Release(client, blocks);
      recovered_dirs_.erase(dirs);
    }
    for (auto it = logged_.begin(); it != logged_.end();) {
      it = it->first.first == job ? logged_.erase(it) : std::next(it);
    }
    auto logs = job_logs_.find(job);
    if (logs != job_logs_.end()) {
      // The mover closes and deletes them: it may be appending to one right now.
      logs_to_delete_.insert(logs_to_delete_.end(), logs->second.begin(), logs->second.end());
      job_logs_.erase(logs);
      mover_wake_.notify_all();
    }
  }
  std::error_code ec;
  std::filesystem::remove_all(options_.pool_dir + "/" + job, ec);
  return true;
}

uint64_t Coordinator::free_blocks() const {
  std::lock_guard<std::mutex> lock(mu_);
  return balancer_.free_blocks();
}

int Coordinator::clients() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(dirs_.size());
}

int Coordinator::shuffles() const {
  std::lock_guard<std::mutex> lock(mu_);
  return shuffles_;
}

int Coordinator::outputs_to_move() const {
  std::lock_guard<std::mutex> lock(mu_);
  int n = 0;
  for (const auto& [key, o] : outputs_) n += o.moved || o.failed ? 0 : 1;
  return n;
}

int Coordinator::logged_outputs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(logged_.size());
}

int Coordinator::failed_moves() const {
  std::lock_guard<std::mutex> lock(mu_);
  int n = 0;
  for (const auto& [key, o] : outputs_) n += o.failed ? 1 : 0;
  return n;
}

void Coordinator::AcceptLoop() {
  while (!stopping_) {
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // shut down
    }
    ucred cred{};
    socklen_t len = sizeof(cred);
    bool allowed = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 &&
                   (cred.uid == geteuid() || cred.uid == 0);
    std::lock_guard<std::mutex> lock(mu_);
    if (!allowed || serving_ >= options_.max_clients || stopping_) {
      close(fd);  // before reading anything
      continue;
    }
    serving_++;
    open_fds_.insert(fd);
    std::thread([this, fd] { Serve(fd); }).detach();
  }
}

void Coordinator::Serve(int fd) {
  Message m;
  ClientId client = 0;
  bool detached = false;
  bool first = ReadMessage(fd, &m);
  if (first && m.type == MessageType::kLookup) {
    // The NodeManager's shuffle: lookups only, as many as it likes. While it is connected,
    // maps may leave their outputs in the pool.
    {
      std::lock_guard<std::mutex> lock(mu_);
      shuffles_++;
    }
    do {
      if (m.type != MessageType::kLookup || !WriteMessage(fd, Lookup(m))) break;
    } while (ReadMessage(fd, &m));
    std::lock_guard<std::mutex> lock(mu_);
    shuffles_--;
  } else if (first && m.type == MessageType::kAttach) {
    if (!SafeName(m.job) || !SafeName(m.attempt)) {
      WriteMessage(fd, Error("job and attempt must be plain names"));
    } else {
      std::string job_dir = options_.pool_dir + "/" + m.job;
      std::string dir = job_dir + "/" + m.attempt;
      bool made =
          (mkdir(job_dir.c_str(), 0700) == 0 || errno == EEXIST) && mkdir(dir.c_str(), 0700) == 0;
      if (!made) {
        WriteMessage(fd, Error("cannot make " + dir + ": " + strerror(errno)));
      } else {
        Message reply;
        reply.type = MessageType::kAttached;
        reply.block_size = options_.block_size;
        reply.text = dir;
        {
          std::lock_guard<std::mutex> lock(mu_);
          reply.serves_outputs = shuffles_ > 0;
          client = balancer_.Join();
          dirs_[client] = dir;
          attached_[client] = {m.job, m.attempt};
          reply.value = balancer_.total_blocks();
        }
        if (WriteMessage(fd, reply)) {
          while (!detached && ReadMessage(fd, &m) && Handle(fd, client, m, &detached)) {
          }
        }
        if (!detached) Forget(client);  // a task that died
      }
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  open_fds_.erase(fd);
  close(fd);
  if (--serving_ == 0) idle_.notify_all();
}

bool Coordinator::Handle(int fd, ClientId client, const Message& m, bool* detached) {
  Message reply;
  reply.type = MessageType::kOk;
  if (m.type == MessageType::kHandover) {
    std::string error;
    if (!Handover(client, m, &error)) reply = Error(error);
    return WriteMessage(fd, reply);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto handed = outputs_.find(attached_.at(client));
    if (handed != outputs_.end() && handed->second.client == client &&
        m.type != MessageType::kDetach) {
      // Its blocks are its output's now; the balancer no longer counts it as running.
      return WriteMessage(fd, Error("the output is handed over: only DETACH is left"));
    }
    switch (m.type) {
      case MessageType::kRequest: {
        uint64_t blocks = (m.value + options_.block_size - 1) / options_.block_size;
        reply.type = MessageType::kGranted;
        reply.value = blocks > 0 && balancer_.TryGrant(client, blocks) ? blocks : 0;
        break;
      }
      case MessageType::kRelease:
        if (m.value > balancer_.Held(client)) {
          reply = Error("releasing more blocks than granted");
        } else {
          balancer_.Release(client, m.value);
        }
        break;
      case MessageType::kDetach:
        *detached = true;  // cleaned up below, before the reply says it is done
        break;
      default:
        return false;  // not a request a task sends: drop the connection
    }
  }
  if (*detached) Forget(client);
  return WriteMessage(fd, reply);
}

void Coordinator::Forget(ClientId client) {
  std::string dir;
  {
    std::lock_guard<std::mutex> lock(mu_);
    dir = dirs_.at(client);
    auto handed = outputs_.find(attached_.at(client));
    if (handed != outputs_.end() && handed->second.client == client) {
      // The dir holds the handed-over output, which the mover and the grace period own now.
      dirs_.erase(client);
      attached_.erase(client);
      return;
    }
  }
  // The pool's memory is free once the files are gone: only then do the blocks go back.
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  std::lock_guard<std::mutex> lock(mu_);
  // A task that ends gives up what it holds: its spills are merged into its output by then,
  // or lost with it.
  balancer_.Release(client, balancer_.Held(client));
  balancer_.Finish(client);
  dirs_.erase(client);
  attached_.erase(client);
}

bool Coordinator::Handover(ClientId client, const Message& m, std::string* error) {
  if (!SafePath(m.text) || !SafePath(m.index)) {
    *error = "disk paths must be absolute, without . or ..";
    return false;
  }
  std::lock_guard<std::mutex> lock(mu_);
  const OutputKey& key = attached_.at(client);
  if (outputs_.count(key) != 0) {
    *error = "already handed over";
    return false;
  }
  Output o;
  o.client = client;
  o.pool_dir = dirs_.at(client);
  o.pool_data = o.pool_dir + "/file.out";
  o.pool_index = o.pool_dir + "/file.out.index";
  if (!IsRegularFile(o.pool_data) || !IsRegularFile(o.pool_index)) {
    *error = "no file.out and file.out.index in " + o.pool_dir;
    return false;
  }
  o.disk_data = m.text;
  o.disk_index = m.index;
  if (!WriteHandoverRecord(o.pool_dir, o.disk_data, o.disk_index, error)) return false;
  o.blocks = balancer_.Held(client);
  balancer_.Finish(client);  // its blocks stay, now a finished task's: flushed first
  outputs_[key] = o;
  to_move_.push_back(key);
  mover_wake_.notify_all();
  return true;
}

Message Coordinator::Lookup(const Message& m) {
  Message reply;
  reply.type = MessageType::kLocated;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = outputs_.find({m.job, m.attempt});
  auto logged = logged_.find({m.job, m.attempt});
  if (it != outputs_.end() && !it->second.moved) {
    reply.text = it->second.pool_data;
    reply.index = it->second.pool_index;
  } else if (logged != logged_.end()) {
    // The log is the data file; the index on disk has its offsets in the log.
    std::tie(reply.text, reply.index) = logged->second;
  } else if (it != outputs_.end()) {
    reply.text = it->second.disk_data;
    reply.index = it->second.disk_index;
  }
  return reply;
}

void Coordinator::DropOutput(const OutputKey& key) {
  auto it = outputs_.find(key);
  if (it == outputs_.end()) return;
  std::error_code ec;
  std::filesystem::remove_all(it->second.pool_dir, ec);
  if (it->second.blocks > 0) balancer_.Release(it->second.client, it->second.blocks);
  outputs_.erase(it);
}

std::pair<ClientId, uint64_t> Coordinator::Hold(uint64_t bytes) {
  ClientId client = balancer_.Join();
  uint64_t blocks = (bytes + options_.block_size - 1) / options_.block_size;
  if (blocks > 0 && !balancer_.TryGrant(client, blocks)) blocks = 0;  // a smaller pool now
  balancer_.Finish(client);
  return {client, blocks};
}

void Coordinator::Recover() {
  std::lock_guard<std::mutex> lock(mu_);
  std::error_code ec;
  for (const auto& job_entry : std::filesystem::directory_iterator(options_.pool_dir, ec)) {
    std::string job = job_entry.path().filename();
    if (!SafeName(job) || !IsRealDir(job_entry.path())) {
      std::filesystem::remove_all(job_entry.path(), ec);  // nothing a coordinator made
      continue;
    }
    uint64_t running_bytes = 0;
    RecoverLogged(job, job_entry.path());
    for (const auto& entry : std::filesystem::directory_iterator(job_entry.path(), ec)) {
      std::string attempt = entry.path().filename();
      std::string dir = entry.path();
      if (attempt == kLoggedRecord) continue;
      if (!SafeName(attempt) || !IsRealDir(dir)) {
        std::filesystem::remove_all(dir, ec);
        continue;
      }
      Output o;
      o.pool_dir = dir;
      o.pool_data = dir + "/file.out";
      o.pool_index = dir + "/file.out.index";
      if (ReadHandoverRecord(dir, &o.disk_data, &o.disk_index) && IsRegularFile(o.pool_data) &&
          IsRegularFile(o.pool_index)) {
        // Handed over, perhaps not yet on disk: write it out (again), as if just handed over.
        std::tie(o.client, o.blocks) = Hold(FileBytes(o.pool_data) + FileBytes(o.pool_index));
        outputs_[{job, attempt}] = o;
        to_move_.push_back({job, attempt});
        continue;
      }
      // A task that was running: it may still be reading its pooled spills.
      for (const auto& file : std::filesystem::directory_iterator(dir, ec)) {
        running_bytes += FileBytes(file.path());
      }
    }
    recovered_dirs_[job] = Hold(running_bytes);
  }
  uint64_t held = 0;
  for (const auto& [job, dirs] : recovered_dirs_) held += dirs.second;
  fprintf(stderr,
          "coomr_coordinator: recovered the pool: %zu handed-over outputs to write out, %zu "
          "outputs in LOCS logs, %llu blocks of running tasks' dirs in %zu jobs, kept until "
          "their jobs end\n",
          outputs_.size(), logged_.size(), static_cast<unsigned long long>(held),
          recovered_dirs_.size());
}

void Coordinator::RecoverLogged(const std::string& job, const std::string& job_dir) {
  std::string path = job_dir + "/" + kLoggedRecord;
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  std::string text;
  char buf[1 << 16];
  for (ssize_t n; (n = read(fd, buf, sizeof(buf))) > 0;) text.append(buf, static_cast<size_t>(n));
  close(fd);
  // Whole lines of three fields only: a crash may have cut the last one.
  for (size_t at = 0, end; (end = text.find('\n', at)) != std::string::npos; at = end + 1) {
    std::string line = text.substr(at, end - at);
    size_t tab1 = line.find('\t');
    size_t tab2 = tab1 == std::string::npos ? tab1 : line.find('\t', tab1 + 1);
    if (tab2 == std::string::npos) continue;
    std::string attempt = line.substr(0, tab1);
    std::string log = line.substr(tab1 + 1, tab2 - tab1 - 1);
    std::string index = line.substr(tab2 + 1);
    if (!SafeName(attempt) || !SafePath(log) || !SafePath(index)) continue;
    logged_[{job, attempt}] = {log, index};
    job_logs_[job].insert(log);
  }
}

Coordinator::Batch Coordinator::TakeBatch() {
  Batch batch;
  uint64_t bytes = 0;
  while (!to_move_.empty()) {
    auto it = outputs_.find(to_move_.front());
    if (it == outputs_.end()) {  // its job ended
      to_move_.pop_front();
      continue;
    }
    Output o = it->second;
    o.log = options_.locs ? LocsLogFor(o.disk_data) : "";
    uint64_t size = FileBytes(o.pool_data);
    if (!batch.empty() &&
        (o.log != batch.front().second.log || bytes + size > kMaxRepositoryBytes)) {
      break;
    }
    bytes += size;
    batch.emplace_back(it->first, o);
    to_move_.pop_front();
    if (o.log.empty()) break;  // one file per map
  }
  return batch;
}

std::vector<bool> Coordinator::WriteOut(const Batch& batch, std::vector<std::string>* errors) {
  if (!batch.front().second.log.empty()) return AppendToLog(batch, errors);
  const Output& o = batch.front().second;
  return {CopyToDisk(o.pool_data, o.disk_data, &errors->front()) &&
          CopyToDisk(o.pool_index, o.disk_index, &errors->front())};
}

std::vector<bool> Coordinator::AppendToLog(const Batch& batch, std::vector<std::string>* errors) {
  using mapred::IndexRecord;
  using mapred::IndexStatus;
  using mapred::SpillIndex;
  const std::string& path = batch.front().second.log;
  std::vector<bool> ok(batch.size(), false);
  std::vector<SpillIndex> indexes(batch.size());
  std::vector<MappedFile> data(batch.size());
  std::vector<LocsLog::Bucket> buckets;
  std::vector<bool> readable(batch.size(), false);
  for (size_t i = 0; i < batch.size(); i++) {
    const auto& [key, o] = batch[i];
    IndexStatus status = SpillIndex::Load(o.pool_index, &indexes[i]);
    if (status != IndexStatus::kOk) {
      (*errors)[i] = o.pool_index + ": " + mapred::IndexStatusName(status);
      continue;
    }
    if (!data[i].Map(o.pool_data, &(*errors)[i])) continue;
    auto [task, attempt] = TaskNumbers(key.second);
    size_t first = buckets.size();
    readable[i] = true;
    for (uint32_t p = 0; readable[i] && p < indexes[i].partitions(); p++) {
      IndexRecord r;
      indexes[i].Get(p, &r);
      readable[i] =
          r.part_length <= data[i].size() && r.start_offset <= data[i].size() - r.part_length;
      if (readable[i]) {
        buckets.push_back({task, attempt, p, r.raw_length, data[i].bytes() + r.start_offset,
                           static_cast<size_t>(r.part_length)});
      } else {
        (*errors)[i] = o.pool_index + ": partition " + std::to_string(p) + " past the data's end";
        buckets.resize(first);
      }
    }
  }
  if (buckets.empty()) return ok;  // nothing readable: no empty repository, no log
  try {
    auto log = logs_.find(path);
    if (log == logs_.end()) {
      std::filesystem::create_directories(std::filesystem::path(path).parent_path());
      // A log of this job that an earlier coordinator wrote: its tables are rebuilt.
      log = logs_.emplace(path, IsRegularFile(path) ? LocsLog::Open(path) : LocsLog::Create(path))
                .first;
    }
    log->second.Append(buckets);
    // Each output's buckets, in the order appended: its partitions' places in the log.
    std::vector<BucketRef> written = log->second.repositories().back().buckets;
    size_t next = 0;
    for (size_t i = 0; i < batch.size(); i++) {
      if (!readable[i]) continue;
      std::vector<IndexRecord> shifted;
      for (uint32_t p = 0; p < indexes[i].partitions(); p++, next++) {
        shifted.push_back({written[next].offset, written[next].raw_length, written[next].length});
      }
      const Output& o = batch[i].second;
      std::vector<uint8_t> index = SpillIndex::Serialize(shifted);
      std::error_code ec;
      std::filesystem::create_directories(std::filesystem::path(o.disk_index).parent_path(), ec);
      ok[i] = WriteFileAtomically(o.disk_index, index.data(), index.size(), 0640, &(*errors)[i]);
      auto [task, attempt] = TaskNumbers(batch[i].first.second);
      log->second.KeepOnlyAttempt(task, attempt);  // a re-run map's data replaces the old
    }
  } catch (const std::exception& e) {
    for (size_t i = 0; i < batch.size(); i++) {
      if (readable[i]) (*errors)[i] = e.what();
    }
  }
  return ok;
}

void Coordinator::MoveLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    auto now = std::chrono::steady_clock::now();
    // Pool copies whose disk copy is older than the grace period go, with their blocks; the
    // shuffle then finds the output at its disk path, which is stock's.
    while (!to_drop_.empty()) {
      auto it = outputs_.find(to_drop_.front());
      if (it != outputs_.end() && now - it->second.moved_at < options_.grace) break;
      DropOutput(to_drop_.front());
      to_drop_.pop_front();
    }
    if (!logs_to_delete_.empty()) {
      std::vector<std::string> ended;
      ended.swap(logs_to_delete_);
      lock.unlock();
      for (const std::string& path : ended) {
        logs_.erase(path);  // closes it
        unlink(path.c_str());
      }
      lock.lock();
      continue;
    }
    Batch batch = TakeBatch();
    if (!batch.empty()) {
      lock.unlock();
      std::vector<std::string> errors(batch.size());
      std::vector<bool> ok = WriteOut(batch, &errors);
      lock.lock();
      for (size_t i = 0; i < batch.size(); i++) {
        const auto& [key, o] = batch[i];
        auto it = outputs_.find(key);
        if (it == outputs_.end()) {
          // Its job ended meanwhile: the log goes too, should this output have started it.
          if (!o.log.empty() && job_logs_.count(key.first) == 0) logs_to_delete_.push_back(o.log);
          continue;
        }
        if (ok[i]) {
          it->second.moved = true;
          it->second.moved_at = std::chrono::steady_clock::now();
          to_drop_.push_back(key);
          if (!o.log.empty()) {
            logged_[key] = {o.log, o.disk_index};
            job_logs_[key.first].insert(o.log);
            RecordLogged(options_.pool_dir + "/" + key.first, key.second, o.log, o.disk_index);
          }
        } else {
          // Served from the pool until its job ends; the pool stays that much fuller.
          it->second.failed = true;
          fprintf(stderr, "coomr_coordinator: cannot write out %s %s: %s\n", key.first.c_str(),
                  key.second.c_str(), errors[i].c_str());
        }
      }
      continue;
    }
    if (!logs_to_delete_.empty()) continue;
    if (to_drop_.empty()) {
      mover_wake_.wait(lock);
    } else {
      auto it = outputs_.find(to_drop_.front());
      auto due = it == outputs_.end() ? now : it->second.moved_at + options_.grace;
      mover_wake_.wait_until(lock, due);
    }
  }
}

}  // namespace hadoop_accel::coomr
