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
}
