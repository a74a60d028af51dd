// Streaming WordCount mapper in C++ over the seed's SMStream (Fig. 3): "word TAB 1" per
// whitespace-separated word. The same program runs over pipes when the job has no -io shm.
#include <cctype>
#include <cstdio>
#include <exception>
#include <string_view>

#include "hadoop_accel/sm_stream.hpp"

int main() {
  try {
    hadoop_accel::SMStream stream;
    std::string_view line;
    while (stream.readLine(line)) {
      size_t i = 0;
      while (i < line.size()) {
        while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) i++;
        size_t start = i;
        while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) i++;
        if (i > start) stream.writeRecord(line.substr(start, i - start), "1");
      }
    }
    return stream.close() == 0 ? 0 : 4;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sm_wordcount_mapper: %s\n", e.what());
    return 3;
  }
}
