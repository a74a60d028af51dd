// The control channel between the NodeManager aux service and each daemon it supervises
// (MOFSupplier, NetMerger): text lines on the daemon's stdin, answers on its stdout. A pipe
// only the two processes hold, so secrets can travel on it; stdin reaching EOF means the
// supervisor is gone and the daemon exits (no orphan outlives its NodeManager).
//
//   daemon, once serving:          READY <port or socket path>
//   ADD_JOB <job> <user> <hex secret>   ->  OK | ERR <reason>
//   REMOVE_JOB <job>                    ->  OK
//   PING                                ->  OK
//   STATS                               ->  STATS 1 <name>=<value> ...   (jbs_stats.h)
//   anything else                       ->  ERR <reason>   (the daemon carries on)
#ifndef HADOOP_ACCEL_JBS_CONTROL_CHANNEL_H
#define HADOOP_ACCEL_JBS_CONTROL_CHANNEL_H

#include <cstdio>
#include <functional>
#include <string>

#include "job_registry.h"

namespace hadoop_accel::jbs {

// What a daemon does on its control channel besides updating the registry.
struct ControlHooks {
  // The MOFSupplier serves files owned by the job's user: ADD_JOB resolves the user to a uid
  // (getpwnam_r) and answers ERR for a user this node does not know.
  bool require_local_user = false;
  // Runs after REMOVE_JOB (e.g. drop the job's open files).
  std::function<void(const std::string& job)> on_remove;
  // The STATS answer (EncodeStats of the daemon's counters); none: STATS is an ERR.
  std::function<std::string()> stats;
};

// Applies one command line (without its newline) to jobs; returns the answer line.
std::string HandleControlLine(const std::string& line, JobRegistry* jobs,
                              const ControlHooks& hooks = {});

// Reads commands from in until EOF, answering each on out (flushed per line). Returns at EOF.
void RunControlChannel(FILE* in, FILE* out, JobRegistry* jobs, const ControlHooks& hooks = {});

}  // namespace hadoop_accel::jbs

#endif
