// The control channel between the NodeManager aux service and each daemon it supervises
// (MOFSupplier, NetMerger): text lines on the daemon's stdin, answers on its stdout. A pipe
// only the two processes hold, so secrets can travel on it; stdin reaching EOF means the
// supervisor is gone and the daemon exits (no orphan outlives its NodeManager).
//
//   daemon, once serving:          READY <port or socket path>
//   ADD_JOB <job> <user> <hex secret>   ->  OK | ERR <reason>
//   REMOVE_JOB <job>                    ->  OK
//   PING                                ->  OK
//   anything else                       ->  ERR <reason>   (the daemon carries on)
#ifndef HADOOP_ACCEL_JBS_CONTROL_CHANNEL_H
#define HADOOP_ACCEL_JBS_CONTROL_CHANNEL_H

#include <cstdio>
#include <string>

#include "job_registry.h"

namespace hadoop_accel::jbs {

// Applies one command line (without its newline) to jobs; returns the answer line.
std::string HandleControlLine(const std::string& line, JobRegistry* jobs);

// Reads commands from in until EOF, answering each on out (flushed per line). Returns at EOF.
void RunControlChannel(FILE* in, FILE* out, JobRegistry* jobs);

}  // namespace hadoop_accel::jbs

#endif
