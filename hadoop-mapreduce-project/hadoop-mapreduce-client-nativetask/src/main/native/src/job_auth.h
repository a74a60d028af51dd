// Job-token authentication shared by both daemons, the same idea as stock ShuffleHandler's
// (an HMAC-SHA1 keyed with the job's shuffle secret, SecureShuffleUtils) over our own fields:
//
//   fetch (NetMerger -> MOFSupplier), in FetchRequest::auth:
//     HMAC-SHA1(secret, "JBS1-FETCH|" job "|" map attempt "|" partition in decimal)
//   register (reducer -> NetMerger), in the REGISTER frame's auth field:
//     HMAC-SHA1(secret, "JBS1-REGISTER|" job "|" partition in decimal "|" nonce as 32 hex digits)
//
// Both are 20 raw bytes. The fetch MAC is per segment (not per chunk), so the NetMerger
// computes it once per map output; the register MAC binds a fresh server nonce, so a captured
// registration cannot be replayed. The secret is the job token's password, which is what the
// reducer holds as its shuffle secret (Task#getShuffleSecret(), the same bytes).
//
// The servers prove the same secret back, as stock's reply hash does (SecureShuffleUtils: the
// ShuffleHandler answers an HMAC of the fetcher's URL hash), bound to a nonce of the client's,
// so a process that squats a port or socket without the secret is caught, and a recorded
// answer cannot be replayed:
//   fetch: the request's auth is FetchMac followed by a fresh 16-byte client nonce (one per
//     segment); every OK answer carries
//     HMAC-SHA1(secret, "JBS1-REPLY|" auth as lowercase hex)
//   register: REGISTER carries a 16-byte client nonce; an OK REGISTERED carries
//     HMAC-SHA1(secret, "JBS1-REGISTERED|" job "|" partition "|" server nonce hex "|"
//               client nonce hex)
#ifndef HADOOP_ACCEL_JBS_JOB_AUTH_H
#define HADOOP_ACCEL_JBS_JOB_AUTH_H

#include <cstdint>
#include <string>
#include <string_view>

namespace hadoop_accel::jbs {

constexpr size_t kMacLength = 20;  // HMAC-SHA1
constexpr size_t kNonceLength = 16;

std::string HmacSha1(std::string_view key, std::string_view message);

std::string FetchMac(std::string_view secret, std::string_view job, std::string_view attempt,
                     uint32_t partition);
std::string RegisterMac(std::string_view secret, std::string_view job, uint32_t partition,
                        const uint8_t nonce[kNonceLength]);

// FetchMac followed by the client's nonce: what the NetMerger sends in FetchRequest::auth.
std::string FetchAuth(std::string_view secret, std::string_view job, std::string_view attempt,
                      uint32_t partition, const uint8_t client_nonce[kNonceLength]);
// The supplier's proof in an OK answer to a request whose auth field was request_auth.
std::string ReplyMac(std::string_view secret, std::string_view request_auth);
// The NetMerger's proof in an OK REGISTERED.
std::string RegisteredMac(std::string_view secret, std::string_view job, uint32_t partition,
                          const uint8_t server_nonce[kNonceLength],
                          const uint8_t client_nonce[kNonceLength]);

// Constant-time comparison (a timing side channel must not reveal how much of a MAC matched).
bool MacEquals(std::string_view a, std::string_view b);

// kNonceLength bytes from the kernel's CSPRNG; false if it fails.
bool FillNonce(uint8_t nonce[kNonceLength]);

}  // namespace hadoop_accel::jbs

#endif
