package io.hadoopaccel.streaming.shm;

/** The few errno values the ring returns that callers act on (Linux numbering). */
final class Errno {
  static final int ENOENT = 2;
  static final int EPIPE = 32;
  static final int EEXIST = 17;
  static final int ETIMEDOUT = 110;

  private Errno() {}

  /** "what: strerror (errno N)" for a negative errno {@code rc}. */
  static String describe(int rc, String what) {
    String name;
    switch (-rc) {
      case ENOENT: name = "No such file or directory"; break;
      case EPIPE: name = "Broken pipe"; break;
      case EEXIST: name = "File exists"; break;
      case ETIMEDOUT: name = "Timed out"; break;
      case 13: name = "Permission denied"; break;
      case 28: name = "No space left on device"; break;
      case 71: name = "Protocol error"; break;
      default: name = "error";
    }
    return what + ": " + name + " (errno " + (-rc) + ")";
  }
}
