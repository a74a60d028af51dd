// A scratch directory per test, removed afterwards.
#ifndef HADOOP_ACCEL_JBS_TEST_FILES_H
#define HADOOP_ACCEL_JBS_TEST_FILES_H

#include <pwd.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "jbs_test_XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  std::string Write(const std::string& name, const std::vector<uint8_t>& bytes) const {
    return WriteAt(path_ + "/" + name, bytes);
  }
  static std::string WriteAt(const std::string& p, const std::vector<uint8_t>& bytes) {
    FILE* f = std::fopen(p.c_str(), "wb");
    if (!bytes.empty()) std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
    return p;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The name of the user running the test: the served files are owned by its uid, so ADD_JOB
// must name it (the supplier resolves the user with getpwnam_r and checks file owners).
inline std::string CurrentUserName() {
  passwd* pw = ::getpwuid(::geteuid());
  return pw != nullptr ? pw->pw_name : "root";
}

// Polls cond until it holds or the deadline passes.
template <typename F>
bool WaitFor(F cond, std::chrono::milliseconds limit = std::chrono::seconds(5)) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!cond()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // polling, not ordering
  }
  return true;
}

#endif
