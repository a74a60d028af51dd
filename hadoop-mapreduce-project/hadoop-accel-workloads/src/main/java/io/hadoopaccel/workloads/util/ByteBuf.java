package io.hadoopaccel.workloads.util;

import java.util.Arrays;

/** A growable byte array (unsynchronised, unlike ByteArrayOutputStream). */
public final class ByteBuf {
  private byte[] bytes;
  private int length;

  public ByteBuf(int capacity) {
    bytes = new byte[Math.max(16, capacity)];
  }

  public void clear() {
    length = 0;
  }

  public int length() {
    return length;
  }

  public byte[] array() {
    return bytes;
  }

  public void setLength(int newLength) {
    if (newLength < 0 || newLength > length) {
      throw new IndexOutOfBoundsException(newLength + " not in [0, " + length + "]");
    }
    length = newLength;
  }

  private void ensure(int extra) {
    if (length + extra > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + extra));
    }
  }

  public void append(byte b) {
    ensure(1);
    bytes[length++] = b;
  }

  public void append(byte[] b) {
    append(b, 0, b.length);
  }

  public void append(byte[] b, int off, int len) {
    ensure(len);
    System.arraycopy(b, off, bytes, length, len);
    length += len;
  }

  /** Appends the decimal digits of a non-negative long. */
  public void appendDecimal(long v) {
    if (v < 0) {
      throw new IllegalArgumentException("negative: " + v);
    }
    ensure(20);
    int start = length;
    do {
      bytes[length++] = (byte) ('0' + (v % 10));
      v /= 10;
    } while (v != 0);
    for (int i = start, j = length - 1; i < j; i++, j--) {
      byte t = bytes[i];
      bytes[i] = bytes[j];
      bytes[j] = t;
    }
  }

  public byte[] toByteArray() {
    return Arrays.copyOf(bytes, length);
  }
}
