#include "job_auth.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sys/random.h>

#include <cerrno>

namespace hadoop_accel::jbs {

std::string HmacSha1(std::string_view key, std::string_view message) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha1(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), out, &len);
  return std::string(reinterpret_cast<char*>(out), len);
}

std::string FetchMac(std::string_view secret, std::string_view job, std::string_view attempt,
                     uint32_t partition) {
  std::string msg = "JBS1-FETCH|";
  msg.append(job).append("|").append(attempt).append("|").append(std::to_string(partition));
  return HmacSha1(secret, msg);
}

namespace {

void AppendHex(std::string* out, const uint8_t* b, size_t n) {
  static const char kHex[] = "0123456789abcdef";
  for (size_t i = 0; i < n; ++i) {
    out->push_back(kHex[b[i] >> 4]);
    out->push_back(kHex[b[i] & 15]);
  }
}

}  // namespace

std::string FetchAuth(std::string_view secret, std::string_view job, std::string_view attempt,
                      uint32_t partition, const uint8_t client_nonce[kNonceLength]) {
  std::string auth = FetchMac(secret, job, attempt, partition);
  auth.append(reinterpret_cast<const char*>(client_nonce), kNonceLength);
  return auth;
}

std::string ReplyMac(std::string_view secret, std::string_view request_auth) {
  std::string msg = "JBS1-REPLY|";
  AppendHex(&msg, reinterpret_cast<const uint8_t*>(request_auth.data()), request_auth.size());
  return HmacSha1(secret, msg);
}

std::string RegisteredMac(std::string_view secret, std::string_view job, uint32_t partition,
                          const uint8_t server_nonce[kNonceLength],
                          const uint8_t client_nonce[kNonceLength]) {
  std::string msg = "JBS1-REGISTERED|";
  msg.append(job).append("|").append(std::to_string(partition)).append("|");
  AppendHex(&msg, server_nonce, kNonceLength);
  msg.append("|");
  AppendHex(&msg, client_nonce, kNonceLength);
  return HmacSha1(secret, msg);
}

std::string RegisterMac(std::string_view secret, std::string_view job, uint32_t partition,
                        const uint8_t nonce[kNonceLength]) {
  static const char kHex[] = "0123456789abcdef";
  std::string msg = "JBS1-REGISTER|";
  msg.append(job).append("|").append(std::to_string(partition)).append("|");
  for (size_t i = 0; i < kNonceLength; ++i) {
    msg.push_back(kHex[nonce[i] >> 4]);
    msg.push_back(kHex[nonce[i] & 15]);
  }
  return HmacSha1(secret, msg);
}

bool MacEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

bool FillNonce(uint8_t nonce[kNonceLength]) {
  size_t got = 0;
  while (got < kNonceLength) {
    ssize_t r = getrandom(nonce + got, kNonceLength - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    got += static_cast<size_t>(r);
  }
  return true;
}

}  // namespace hadoop_accel::jbs
