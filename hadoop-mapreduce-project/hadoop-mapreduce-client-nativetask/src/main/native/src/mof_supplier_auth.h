// The MOFSupplier's authorizer (DESIGN.md §2): a fetch is served only if its auth field is
// the job-token MAC of exactly this job, attempt and partition. Refusals are logged, but at a
// bounded rate, so a flood of bad requests cannot fill the NodeManager's log.
#ifndef HADOOP_ACCEL_JBS_MOF_SUPPLIER_AUTH_H
#define HADOOP_ACCEL_JBS_MOF_SUPPLIER_AUTH_H

#include <string>

#include "job_registry.h"
#include "rate_limited_log.h"
#include "wire_format.h"

namespace hadoop_accel::jbs {

// req.auth is FetchMac(job.secret, job id, attempt, partition), alone or followed by the
// client's 16-byte nonce; anything else fails.
bool AuthorizeFetchMac(const FetchRequest& req, const JobInfo& job);

}  // namespace hadoop_accel::jbs

#endif
