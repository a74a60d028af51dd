#include "coordinator.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>
#include <utility>

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

}  // namespace

Coordinator::Coordinator(CoordinatorOptions options)
    : options_(std::move(options)),
      balancer_(options_.block_size == 0 ? 0 : options_.pool_bytes / options_.block_size) {}

Coordinator::~Coordinator() { Stop(); }

void Coordinator::Start() {
  if (mkdir(options_.pool_dir.c_str(), 0700) != 0 && errno != EEXIST) {
    Fail("creating pool dir " + options_.pool_dir);
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
}

void Coordinator::Stop() {
  if (stopping_.exchange(true) || listen_fd_ < 0) return;
  shutdown(listen_fd_, SHUT_RDWR);
  if (acceptor_.joinable()) acceptor_.join();
  close(listen_fd_);
  unlink(options_.socket_path.c_str());
  std::unique_lock<std::mutex> lock(mu_);
  for (int fd : open_fds_) shutdown(fd, SHUT_RDWR);  // their threads see EOF and end
  idle_.wait(lock, [this] { return serving_ == 0; });
}

uint64_t Coordinator::free_blocks() const {
  std::lock_guard<std::mutex> lock(mu_);
  return balancer_.free_blocks();
}

int Coordinator::clients() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(dirs_.size());
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
  if (ReadMessage(fd, &m) && m.type == MessageType::kAttach) {
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
          client = balancer_.Join();
          dirs_[client] = dir;
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
  {
    std::lock_guard<std::mutex> lock(mu_);
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
}

}  // namespace hadoop_accel::coomr
