#include "control_channel.h"

#include <sstream>
#include <vector>

namespace hadoop_accel::jbs {
namespace {

bool DecodeHex(const std::string& hex, std::string* out) {
  if (hex.empty() || hex.size() % 2 != 0 || hex.size() > 1024) return false;
  out->clear();
  for (size_t i = 0; i < hex.size(); i += 2) {
    int v = 0;
    for (size_t j = i; j < i + 2; ++j) {
      char c = hex[j];
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (d < 0) return false;
      v = v * 16 + d;
    }
    out->push_back(static_cast<char>(v));
  }
  return true;
}

}  // namespace

std::string HandleControlLine(const std::string& line, JobRegistry* jobs,
                              const ControlHooks& hooks) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  if (words.empty()) return "ERR empty command";
  const std::string& cmd = words[0];
  if (cmd == "PING" && words.size() == 1) return "OK";
  if (cmd == "STATS" && words.size() == 1)
    return hooks.stats ? hooks.stats() : "ERR this daemon keeps no statistics";
  if (cmd == "ADD_JOB" && words.size() == 4) {
    JobInfo info;
    info.user = words[2];
    if (!DecodeHex(words[3], &info.secret)) return "ERR secret is not lowercase hex";
    info.uid = LookUpUid(info.user);
    if (hooks.require_local_user && !info.uid)
      return "ERR user " + info.user.substr(0, 64) + " does not exist on this node";
    if (!jobs->Register(words[1], std::move(info))) return "ERR invalid job id or user";
    return "OK";
  }
  if (cmd == "REMOVE_JOB" && words.size() == 2) {
    jobs->Unregister(words[1]);
    if (hooks.on_remove) hooks.on_remove(words[1]);
    return "OK";
  }
  return "ERR unknown command or wrong argument count: " + cmd;
}

void RunControlChannel(FILE* in, FILE* out, JobRegistry* jobs, const ControlHooks& hooks) {
  std::string line;
  for (int c; (c = std::fgetc(in)) != EOF;) {
    if (c != '\n') {
      if (line.size() < 4096) line.push_back(static_cast<char>(c));
      continue;
    }
    std::string answer = HandleControlLine(line, jobs, hooks);
    std::fprintf(out, "%s\n", answer.c_str());
    std::fflush(out);
    line.clear();
  }
}

}  // namespace hadoop_accel::jbs
