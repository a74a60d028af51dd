package io.hadoopaccel.workloads.jobs;

/**
 * The tokenisation shared by the Java, C and Python WordCount/InvertedIndex: a word is a
 * maximal run of bytes that are not ASCII white space (space, \t, \n, \v, \f, \r), compared as
 * raw bytes (no case folding, no punctuation stripping). Python's bytes.split() and C's
 * isspace() in the "C" locale split on exactly these six bytes.
 */
public final class Words {
  private Words() {
  }

  public static boolean isSpace(byte b) {
    return b == ' ' || (b >= '\t' && b <= '\r');
  }

  /** Walks the words of a line in place, without copying or decoding the line. */
  public static final class Tokenizer {
    private byte[] bytes;
    private int length;
    private int pos;

    public void reset(org.apache.hadoop.io.Text line) {
      bytes = line.getBytes();
      length = line.getLength();
      pos = 0;
    }

    /** Sets {@code word} to the next word and returns true, or returns false at the end. */
    public boolean next(org.apache.hadoop.io.Text word) {
      while (pos < length && isSpace(bytes[pos])) {
        pos++;
      }
      int start = pos;
      while (pos < length && !isSpace(bytes[pos])) {
        pos++;
      }
      if (pos == start) {
        return false;
      }
      word.set(bytes, start, pos - start);
      return true;
    }
  }
}
