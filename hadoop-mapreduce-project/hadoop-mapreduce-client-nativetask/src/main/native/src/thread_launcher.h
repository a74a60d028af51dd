// Starting a thread can fail (std::thread throws std::system_error when the process or the
// user has no thread left to give). The NetMerger never lets that terminate the daemon: the
// work that wanted the thread is refused instead. Tests inject a launcher that fails.
#ifndef HADOOP_ACCEL_JBS_THREAD_LAUNCHER_H
#define HADOOP_ACCEL_JBS_THREAD_LAUNCHER_H

#include <functional>
#include <string>
#include <system_error>
#include <thread>

namespace hadoop_accel::jbs {

// Starts body on a new thread; throws std::system_error when it cannot.
using ThreadLauncher = std::function<std::thread(std::function<void()> body)>;

inline std::thread LaunchStdThread(std::function<void()> body) {
  return std::thread(std::move(body));
}

// *out = a thread running body, or false with *why (and body never runs).
inline bool TryStartThread(const ThreadLauncher& launch, std::function<void()> body,
                           std::thread* out, std::string* why) {
  try {
    *out = launch ? launch(std::move(body)) : LaunchStdThread(std::move(body));
    return true;
  } catch (const std::system_error& e) {
    *why = std::string("cannot start a thread: ") + e.what();
    return false;
  }
}

}  // namespace hadoop_accel::jbs

#endif
