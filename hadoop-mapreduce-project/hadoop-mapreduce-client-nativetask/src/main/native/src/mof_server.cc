#include "mof_server.h"

#include <cerrno>

#include "frame_io.h"

namespace hadoop_accel::jbs {

int MofServer::Start(const Endpoint& at) {
  if (int e = transport_->RegisterMemory(pool_->base(), pool_->buffer_size() * pool_->count()))
    return e;
  if (int e = transport_->Listen(at, &listener_)) return e;
  acceptor_ = std::thread([this] { AcceptLoop(); });
  return 0;
}

void MofServer::AcceptLoop() {
  for (;;) {
    std::unique_ptr<Connection> c;
    if (listener_->Accept(&c) != 0) return;  // listener closed by Stop()
    std::lock_guard<std::mutex> g(mu_);
    if (stopping_) return;
    ReapFinishedLocked();
    Session& s = sessions_.emplace_back();
    s.conn = std::move(c);
    s.thread = std::thread([this, &s] {
      Serve(s.conn.get());
      s.done = true;
    });
  }
}

void MofServer::ReapFinishedLocked() {
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (it->done) {
      it->thread.join();
      it = sessions_.erase(it);
    } else {
      ++it;
    }
  }
}

void MofServer::Serve(Connection* c) {
  for (;;) {
    FetchRequest req;
    FrameIoResult r = ReceiveRequest(c, &req);
    if (r.io_error != 0) return;  // peer gone or Stop()
    if (r.wire != WireStatus::kOk) {
      ++rejected_;
      c->Close();
      return;
    }
    std::optional<uint32_t> buffer;
    FetchResponseHeader h = engine_->Handle(req, &buffer);
    if (h.status == ResponseStatus::kUnauthorized && on_unauthorized_)
      on_unauthorized_(req, c->peer());
    FrameIoResult sent = SendResponse(c, h, buffer ? pool_->data(*buffer) : nullptr);
    if (buffer) pool_->Release(*buffer);
    ++served_;
    if (!sent.ok()) return;
  }
}

void MofServer::Stop() {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (stopping_ || !listener_) return;
    stopping_ = true;
  }
  listener_->Close();
  if (acceptor_.joinable()) acceptor_.join();
  // No new sessions from here on: close them all, then wait for their threads.
  for (Session& s : sessions_) s.conn->Close();
  for (Session& s : sessions_)
    if (s.thread.joinable()) s.thread.join();
  sessions_.clear();
}

}  // namespace hadoop_accel::jbs
