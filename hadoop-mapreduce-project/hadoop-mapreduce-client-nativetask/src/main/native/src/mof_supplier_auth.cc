#include "mof_supplier_auth.h"

#include "job_auth.h"

namespace hadoop_accel::jbs {

bool AuthorizeFetchMac(const FetchRequest& req, const JobInfo& job) {
  // FetchMac, optionally followed by the client's nonce for the reply proof (job_auth.h).
  if (req.auth.size() != kMacLength && req.auth.size() != kMacLength + kNonceLength) return false;
  return MacEquals(std::string_view(req.auth).substr(0, kMacLength),
                   FetchMac(job.secret, req.job_id, req.map_attempt_id, req.partition));
}

}  // namespace hadoop_accel::jbs
