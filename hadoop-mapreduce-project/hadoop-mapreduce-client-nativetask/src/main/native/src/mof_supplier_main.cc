// jbs_mof_supplier: the per-node MOFSupplier daemon (seed 001 §III-B, seed 004 §3.3.1;
// DESIGN.md §1-2). Serves map output files to NetMergers over TCP; the NodeManager's aux
// service drives it through the control channel on stdin/stdout and stops it by closing stdin.
#include <signal.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>

#include "buffer_pool.h"
#include "control_channel.h"
#include "data_engine.h"
#include "epoll_server.h"
#include "jbs_stats.h"
#include "job_registry.h"
#include "map_output_locator.h"
#include "mof_supplier_auth.h"
#include "mof_supplier_options.h"

using namespace hadoop_accel::jbs;

namespace {

constexpr char kLogPrefix[] = "jbs_mof_supplier: ";

int Run(const SupplierOptions& opt) {
  BufferPool pool(opt.buffer_bytes, opt.buffers);
  JobRegistry jobs;
  RateLimitedLog refusals(stderr, kLogPrefix);
  RateLimitedLog unsafe_files(stderr, kLogPrefix);  // apart, so a MAC flood cannot hide these
  DataEngine::Config cfg;
  cfg.local_dirs = opt.local_dirs;
  cfg.index_cache_bytes = opt.index_cache_bytes;
  cfg.on_unsafe_file = [&unsafe_files](const std::string& why) { unsafe_files.Log(why); };
  DataEngine engine(cfg, &jobs, &pool, AuthorizeFetchMac);
  std::atomic<uint64_t> auth_refusals{0};
  auto on_unauthorized = [&refusals, &auth_refusals](const FetchRequest& r,
                                                     const std::string& peer) {
    ++auth_refusals;
    refusals.Log("refused fetch (unknown job or bad job token MAC): job " + r.job_id + " attempt " +
                 r.map_attempt_id + " partition " + std::to_string(r.partition) + " from " +
                 (peer.empty() ? "unknown peer" : peer));
  };
  // TCP is served by the epoll server; an RDMA transport would come in through MofServer (any
  // Transport, a thread per connection) until it has an event loop of its own.
  EpollServer server(&engine, &pool, EpollServer::Config{}, on_unauthorized);
  if (int e = server.Start(opt.listen)) {
    std::fprintf(stderr, "%scannot listen on %s:%u: %s\n", kLogPrefix, opt.listen.host.c_str(),
                 opt.listen.port, std::strerror(e));
    return 1;
  }
  std::string dirs;
  for (const std::string& d : opt.local_dirs) dirs += (dirs.empty() ? "" : ",") + d;
  std::fprintf(stderr, "%sserving %s:%u from %s with %zu buffers of %zu bytes\n", kLogPrefix,
               opt.listen.host.c_str(), server.port(), dirs.c_str(), opt.buffers, opt.buffer_bytes);
  std::fprintf(stdout, "READY %u\n", server.port());
  std::fflush(stdout);
  ControlHooks hooks;
  hooks.require_local_user = true;  // served files must be owned by the job's user's uid
  hooks.on_remove = [&server](const std::string& job) {
    std::string app = ApplicationIdOfJob(job);
    if (!app.empty()) server.DropFiles("/" + app + "/");
  };
  hooks.stats = [&server, &auth_refusals] {
    EpollServer::Stats st = server.stats();
    return EncodeStats({{"bytes_served", st.served_bytes},
                        {"requests", st.served},
                        {"busy_answers", st.busy},
                        {"auth_refusals", auth_refusals.load()},
                        {"active_connections", st.open_connections},
                        {"connections_accepted", st.accepted},
                        {"limit_refusals", st.refused_at_cap + st.unauthenticated_closed},
                        {"stalled_connections", st.stalled},
                        {"junk_connections", st.rejected_connections}});
  };
  RunControlChannel(stdin, stdout, &jobs, hooks);  // returns when the aux service closes stdin
  server.Stop();
  EpollServer::Stats st = server.stats();
  std::fprintf(stderr,
               "%sstdin closed, stopped after %llu answers (%llu busy), %llu "
               "connections (%llu closed for junk, %llu stalled)\n",
               kLogPrefix, static_cast<unsigned long long>(st.served),
               static_cast<unsigned long long>(st.busy),
               static_cast<unsigned long long>(st.accepted),
               static_cast<unsigned long long>(st.rejected_connections),
               static_cast<unsigned long long>(st.stalled));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // A peer that vanishes mid-send must be an EPIPE on that connection, not the daemon's end.
  ::signal(SIGPIPE, SIG_IGN);
  SupplierOptions opt;
  std::string error;
  if (!ParseSupplierOptions(argc, argv, &opt, &error)) {
    std::fprintf(stderr, "%s%s\n", kLogPrefix, error.c_str());
    std::fprintf(stderr,
                 "%susage: jbs_mof_supplier --listen HOST:PORT --local-dirs D1,D2,... "
                 "[--buffer-bytes 131072] [--buffers 256] [--index-cache-bytes 10485760]\n",
                 kLogPrefix);
    return 2;
  }
  try {
    return Run(opt);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%scannot allocate %zu transport buffers of %zu bytes\n", kLogPrefix,
                 opt.buffers, opt.buffer_bytes);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%sfatal: %s\n", kLogPrefix, e.what());
  }
  return 1;
}
