package io.hadoopaccel.mapreduce.preshuffle;

import io.hadoopaccel.mapreduce.preshuffle.PushProtocol.Header;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import javax.crypto.SecretKey;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.IndexRecord;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapred.SpillRecord;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The second stage of seed 003's map pipeline (§5.2.2): threads that push each finished spill's
 * segments to the reducers' receivers while the map thread goes on mapping and spilling. Each
 * reducer gets the map's spills in order and then a done marker naming their number; up to
 * {@code streams} reducers are pushed to at once, one push in flight per reducer (a single
 * stream, one acknowledged segment at a time, could not fill a slow link: measured on the
 * shuffle-bound xie-psp variant). A reducer that is not registered yet gets the spills it
 * missed once it registers (they stay readable through open files, even after the merge
 * deletes them). When a push to a reducer fails, or the map's output is final and the drain
 * timeout runs out before the reducer has every spill, the map stops pushing to it; at close
 * it writes the spills that reducer lacks as leftover outputs beside its map output and tells
 * the reducer (a LEFT marker), which pulls just those instead of the whole map output. A
 * reducer that refuses pushes, got none, or cannot be told pulls the map's output as stock
 * does. Nothing here can fail the map.
 */
public final class PushSender implements SpillWatchingOutputFiles.Listener, Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(PushSender.class);
  private static final int CHUNK = 64 * 1024;
  /** While a spill's index or last bytes are being written (microseconds), look again after. */
  private static final long LOAD_RETRY_MS = 5;
  /**
   * Where stock's shuffle handler finds a map attempt's output: {@code output/<attempt>/} in
   * the task's local dir (YarnOutputFiles' layout; spills sit in the local dir itself).
   */
  private static final String OUTPUT_DIR = "output";
  private static final String OUTPUT = "file.out";
  private static final String INDEX = "file.out.index";

  /**
   * PENDING: being pushed to. STOPPED: a push failed; leftovers from next[r] at close.
   * LEAVING: leftovers written, its LEFT marker to send. PARTLY_LEFT: the marker was taken.
   * DONE: every spill taken. ABANDONED, LEFT: it pulls the whole map output.
   */
  private enum State { PENDING, STOPPED, LEAVING, PARTLY_LEFT, DONE, ABANDONED, LEFT }

  private static final class Spill {
    final int number;
    final int progress;
    final Path data;
    final Path index;
    FileChannel channel;
    SpillRecord record;

    Spill(int number, int progress, Path data, Path index) {
      this.number = number;
      this.progress = progress;
      this.data = data;
      this.index = index;
    }
  }

  private final TaskAttemptID map;
  private final JobConf conf;
  private final SecretKey key;
  private final Reporter reporter;
  private final ReducerRegistry registry;
  private final IntSupplier progress;
  private final int timeoutMs;
  private final long refreshMs;
  private final long drainMs;

  // Guarded by this.
  private final List<Spill> spills = new ArrayList<>();
  private int loaded; // spills[0, loaded) have their index and data complete
  private int finalSpills = -1;
  private final State[] state;
  private final int[] next; // per reducer, the next spill to push
  private final boolean[] inFlight; // per reducer, a push to it is under way
  private final Socket[] active; // per reducer, the connection of the push under way
  private final int[] firstLeft; // per LEAVING reducer, the first spill left to pull
  private boolean leaving; // close() has begun: no more segments, only markers
  private boolean refreshing;
  private Map<Integer, InetSocketAddress> receivers = new HashMap<>();
  private long lastRefresh = Long.MIN_VALUE / 2;
  private boolean refreshedSinceFinal;
  private boolean closed;
  private int rotor;

  private final List<Thread> threads = new ArrayList<>();

  /** One thing for a sender thread to do: a push to {@code reducer}, or (-1) a refresh. */
  private static final class Work {
    final int reducer;
    final Runnable body;

    Work(int reducer, Runnable body) {
      this.reducer = reducer;
      this.body = body;
    }
  }

  /**
   * @param progress the map's input consumed so far, in thousandths
   *     ({@link PushProtocol#WHOLE}): each spill carries it to the reducers' progress
   * @param streams how many reducers are pushed to at once
   */
  public PushSender(TaskAttemptID map, JobConf conf, SecretKey key, Reporter reporter,
      ReducerRegistry registry, IntSupplier progress, int timeoutMs, long refreshMs,
      long drainMs, int streams) {
    this.map = map;
    this.conf = conf;
    this.key = key;
    this.reporter = reporter;
    this.registry = registry;
    this.progress = progress;
    this.timeoutMs = timeoutMs;
    this.refreshMs = refreshMs;
    this.drainMs = drainMs;
    int reduces = conf.getNumReduceTasks();
    this.state = new State[reduces];
    this.next = new int[reduces];
    this.inFlight = new boolean[reduces];
    this.active = new Socket[reduces];
    this.firstLeft = new int[reduces];
    Arrays.fill(state, State.PENDING);
    for (int i = 0; i < Math.max(1, Math.min(streams, reduces)); i++) {
      Thread t = new Thread(this::run, "preshuffle-sender-" + i);
      t.setDaemon(true);
      threads.add(t);
    }
    threads.forEach(Thread::start);
  }

  @Override
  public synchronized void spillWritten(int spill, Path data, Path index) {
    spills.add(new Spill(spill, progress.getAsInt(), data, index));
    notifyAll();
  }

  @Override
  public synchronized void outputFinal() {
    // Every spill is closed now; open the rest before the merge renames or deletes them.
    for (int i = loaded; i < spills.size(); i++) {
      if (!load(spills.get(i))) {
        LOG.warn("Spill {} of {} is not readable; its reducers will pull", i, map);
        break;
      }
      loaded = i + 1;
    }
    finalSpills = loaded;
    if (loaded < spills.size()) {
      abandonAll("unreadable spill");
    }
    lastRefresh = Long.MIN_VALUE / 2; // one last look for reducers that registered since
    notifyAll();
  }

  /** Opens a spill whose index is complete and whose data has every byte the index names. */
  private boolean load(Spill s) {
    try {
      SpillRecord rec = new SpillRecord(s.index, conf);
      if (rec.size() != state.length) {
        return false;
      }
      long end = 0;
      for (int r = 0; r < rec.size(); r++) {
        IndexRecord ir = rec.getIndex(r);
        end = Math.max(end, ir.startOffset + ir.partLength);
      }
      FileChannel ch = FileChannel.open(new File(s.data.toUri().getPath()).toPath(),
          StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
      if (ch.size() < end) {
        ch.close();
        return false;
      }
      s.record = rec;
      s.channel = ch;
      return true;
    } catch (IOException e) {
      return false; // still being written
    }
  }

  private void run() {
    try {
      while (true) {
        Work work = nextWork();
        if (work == null) {
          return;
        }
        try {
          work.body.run();
        } finally {
          synchronized (this) {
            if (work.reducer < 0) {
              refreshing = false;
            } else {
              inFlight[work.reducer] = false;
            }
            notifyAll();
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.warn("Preshuffle sender of {} stopped; reducers pull what it did not push", map, e);
      synchronized (this) {
        abandonAll("sender failed");
      }
    } finally {
      synchronized (this) {
        notifyAll(); // close() waits for the threads
      }
    }
  }

  /**
   * Waits for something to do: a push, a done marker or a registry refresh, for a reducer no
   * other thread is pushing to; null: finished.
   */
  private synchronized Work nextWork() throws InterruptedException {
    while (!closed) {
      while (loaded < spills.size() && load(spills.get(loaded))) {
        loaded++;
      }
      boolean waitingForReceiver = false;
      for (int k = 0; k < state.length; k++) {
        int r = (rotor + k) % state.length;
        if (state[r] == State.LEAVING && !inFlight[r]) {
          rotor = r + 1;
          inFlight[r] = true;
          InetSocketAddress to = receivers.get(r);
          return new Work(r, () -> pushLeft(r, to));
        }
        if (state[r] != State.PENDING || inFlight[r] || leaving) {
          continue;
        }
        boolean hasWork = next[r] < loaded || next[r] == finalSpills;
        if (!hasWork) {
          continue;
        }
        InetSocketAddress to = receivers.get(r);
        if (to == null) {
          if (finalSpills >= 0 && refreshedSinceFinal) {
            state[r] = State.LEFT; // never registered while this map ran
            reporter.incrCounter(PreshuffleCounter.PUSHES_LEFT_TO_PULL, 1);
            continue;
          }
          waitingForReceiver = true;
          continue;
        }
        rotor = r + 1;
        inFlight[r] = true;
        final int spill = next[r];
        return new Work(r,
            next[r] < loaded ? () -> pushSegment(r, spill, to) : () -> pushDone(r, to));
      }
      long now = System.nanoTime() / 1_000_000;
      if (waitingForReceiver && !refreshing && now - lastRefresh >= refreshMs) {
        lastRefresh = now;
        refreshing = true;
        return new Work(-1, this::refresh);
      }
      if (loaded < spills.size() && !leaving) {
        wait(LOAD_RETRY_MS);
      } else if (waitingForReceiver) {
        wait(Math.max(1, refreshMs - (now - lastRefresh)));
      } else {
        wait();
      }
    }
    return null;
  }

  private void refresh() {
    Map<Integer, InetSocketAddress> found;
    try {
      found = registry.receivers();
    } catch (IOException e) {
      LOG.info("Reading the reducer registry failed: {}", e.toString());
      found = null;
    }
    synchronized (this) {
      if (found != null) {
        receivers = found;
      }
      if (finalSpills >= 0) {
        refreshedSinceFinal = true;
      }
    }
  }

  private boolean anyPending() {
    for (State s : state) {
      if (s == State.PENDING) {
        return true;
      }
    }
    return false;
  }

  private void abandonAll(String why) {
    for (int r = 0; r < state.length; r++) {
      if (state[r] == State.PENDING) {
        state[r] = State.ABANDONED;
        reporter.incrCounter(PreshuffleCounter.PUSHES_ABANDONED, 1);
      }
    }
    LOG.info("Preshuffle pushes of {} given up: {}", map, why);
    notifyAll();
  }

  private void pushSegment(int r, int spill, InetSocketAddress to) {
    Spill s;
    synchronized (this) {
      s = spills.get(spill);
    }
    IndexRecord ir = s.record.getIndex(r);
    Header h = new Header(PushProtocol.SEGMENT, map.toString(), r, spill, s.progress,
        ir.rawLength, ir.partLength);
    try (Socket socket = connect(to)) {
      synchronized (this) {
        if (leaving) {
          return; // close() is writing this reducer's leftovers from next[r] on
        }
        active[r] = socket;
      }
      DataOutputStream out = new DataOutputStream(
          new BufferedOutputStream(socket.getOutputStream(), CHUNK));
      DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
      if (!accepted(h, out, in, r)) {
        return;
      }
      ByteBuffer buf = ByteBuffer.allocate(CHUNK);
      long pos = ir.startOffset;
      long end = ir.startOffset + ir.partLength;
      while (pos < end) {
        buf.clear().limit((int) Math.min(CHUNK, end - pos));
        int n = s.channel.read(buf, pos);
        if (n < 0) {
          throw new IOException("spill " + spill + " ends early");
        }
        out.write(buf.array(), 0, n);
        pos += n;
      }
      out.flush();
      if (in.readByte() != PushProtocol.OK) {
        stop(r, "reducer could not store spill " + spill);
        return;
      }
      synchronized (this) {
        next[r]++;
      }
      reporter.incrCounter(PreshuffleCounter.PUSHED_BYTES, ir.partLength);
      reporter.incrCounter(PreshuffleCounter.PUSHED_SEGMENTS, 1);
    } catch (PushProtocol.AuthenticationException e) {
      abandon(r, e.getMessage());
    } catch (IOException e) {
      stop(r, e.toString());
    } finally {
      synchronized (this) {
        active[r] = null;
      }
    }
  }

  /** Tells a reducer which spills it is to pull (the leftovers are written already). */
  private void pushLeft(int r, InetSocketAddress to) {
    int spills;
    int first;
    synchronized (this) {
      spills = finalSpills;
      first = firstLeft[r];
    }
    if (!marker(r, to, new Header(PushProtocol.LEFT, map.toString(), r, spills,
        PushProtocol.WHOLE, first, 0), "reducer does not hold the spills before " + first)) {
      return;
    }
    synchronized (this) {
      if (state[r] == State.LEAVING) {
        // Left nothing (only its done marker was missing): the reducer has it all.
        boolean whole = first == spills;
        state[r] = whole ? State.DONE : State.PARTLY_LEFT;
        reporter.incrCounter(whole ? PreshuffleCounter.PUSHES_COMPLETED
            : PreshuffleCounter.PUSHES_PARTLY_LEFT, 1);
      }
      notifyAll();
    }
  }

  private void pushDone(int r, InetSocketAddress to) {
    int spills;
    synchronized (this) {
      spills = finalSpills;
    }
    if (!marker(r, to, new Header(PushProtocol.DONE, map.toString(), r, spills,
        PushProtocol.WHOLE, 0, 0), "reducer is missing a segment")) {
      return;
    }
    synchronized (this) {
      state[r] = State.DONE;
      notifyAll();
    }
    reporter.incrCounter(PreshuffleCounter.PUSHES_COMPLETED, 1);
  }

  /** Sends a done or LEFT marker; true if the reducer answered OK, else r is abandoned. */
  private boolean marker(int r, InetSocketAddress to, Header h, String failure) {
    try (Socket socket = connect(to)) {
      DataOutputStream out = new DataOutputStream(new BufferedOutputStream(
          socket.getOutputStream()));
      DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
      if (!accepted(h, out, in, r)) {
        return false;
      }
      if (in.readByte() != PushProtocol.OK) {
        abandon(r, failure);
        return false;
      }
      return true;
    } catch (IOException e) {
      abandon(r, e.toString());
      return false;
    }
  }

  private Socket connect(InetSocketAddress to) throws IOException {
    Socket socket = new Socket();
    try {
      socket.connect(new InetSocketAddress(to.getHostString(), to.getPort()), timeoutMs);
      socket.setSoTimeout(timeoutMs);
      socket.setTcpNoDelay(true);
      return socket;
    } catch (IOException e) {
      socket.close();
      throw e;
    }
  }

  /** Sends the header; true if the receiver accepted it and proved the job token. */
  private boolean accepted(Header h, DataOutputStream out, DataInputStream in, int r)
      throws IOException {
    String hash = h.write(out, key);
    byte answer = in.readByte();
    if (answer == PushProtocol.ACCEPT) {
      PushProtocol.verifyReply(in.readUTF(), hash, key);
      return true;
    }
    abandon(r, answer == PushProtocol.REFUSE ? "refused: " + in.readUTF()
        : "receiver did not accept the job token");
    return false;
  }

  private synchronized void abandon(int r, String why) {
    if (state[r] == State.PENDING || state[r] == State.STOPPED || state[r] == State.LEAVING) {
      state[r] = State.ABANDONED;
      reporter.incrCounter(PreshuffleCounter.PUSHES_ABANDONED, 1);
      LOG.info("Push of {} to reducer {} given up, it will pull: {}", map, r, why);
    }
    notifyAll();
  }

  /** No more segments to reducer r: it is to pull the spills from next[r] on. */
  private synchronized void stop(int r, String why) {
    if (state[r] == State.PENDING) {
      state[r] = State.STOPPED;
      if (!leaving) {
        LOG.info("Pushes of {} to reducer {} stopped at spill {}, it will pull the rest: {}",
            map, r, next[r], why);
      }
    }
    notifyAll();
  }

  /**
   * Waits up to the drain timeout for the pushes to finish, then stops them. A reducer that
   * holds some spills but not all gets the rest as leftover outputs to pull; every other
   * unfinished reducer pulls the whole map output.
   */
  @Override
  public void close() {
    long deadline = System.nanoTime() / 1_000_000 + drainMs;
    List<Socket> cut = new ArrayList<>();
    synchronized (this) {
      awaitWhile(() -> threads.stream().anyMatch(Thread::isAlive) && anyPending(), deadline);
      leaving = true;
      for (int r = 0; r < state.length; r++) {
        if (state[r] == State.PENDING || state[r] == State.STOPPED) {
          state[r] = State.STOPPED;
          if (active[r] != null) {
            cut.add(active[r]); // a push still under way: its spill is left to pull
          }
        }
      }
    }
    for (Socket socket : cut) {
      try {
        socket.close();
      } catch (IOException e) {
        LOG.debug("cutting a push of {}", map, e);
      }
    }
    leaveRest();
    synchronized (this) {
      awaitWhile(() -> threads.stream().anyMatch(Thread::isAlive) && has(State.LEAVING),
          System.nanoTime() / 1_000_000 + timeoutMs);
      for (int r = 0; r < state.length; r++) {
        if (state[r] == State.STOPPED || state[r] == State.LEAVING) {
          // Its leftovers stay on disk: a LEFT marker that arrives after all is still true.
          state[r] = State.LEFT;
          reporter.incrCounter(PreshuffleCounter.PUSHES_LEFT_TO_PULL, 1);
        }
      }
      closed = true;
      notifyAll();
    }
    threads.forEach(Thread::interrupt);
    try {
      for (Thread t : threads) {
        t.join(timeoutMs);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (this) {
      for (Spill s : spills) {
        if (s.channel != null) {
          try {
            s.channel.close();
          } catch (IOException e) {
            LOG.debug("closing spill {}", s.number, e);
          }
        }
      }
    }
  }

  /** Waits (holding this object's lock) while the condition holds, until a deadline (ms). */
  private void awaitWhile(BooleanSupplier condition, long deadlineMs) {
    try {
      long left;
      while (condition.getAsBoolean()
          && (left = deadlineMs - System.nanoTime() / 1_000_000) > 0) {
        wait(left);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private boolean has(State wanted) {
    for (State s : state) {
      if (s == wanted) {
        return true;
      }
    }
    return false;
  }

  /**
   * Writes the leftover outputs of every stopped reducer that holds at least one spill and
   * has a receiver to tell, and marks those reducers LEAVING; the others pull everything.
   */
  private void leaveRest() {
    int spillCount;
    int[] first = new int[state.length];
    Spill[] all;
    synchronized (this) {
      // Once no push is under way, next[r] is the number of spills reducer r acknowledged.
      awaitWhile(this::anyInFlightSegment, System.nanoTime() / 1_000_000 + timeoutMs);
      spillCount = finalSpills;
      for (int r = 0; r < state.length; r++) {
        boolean leaveable = state[r] == State.STOPPED && spillCount > 0 && !inFlight[r]
            && next[r] > 0 && receivers.containsKey(r) && loaded == spillCount
            && PushProtocol.leftover(map, spillCount - 1) != null;
        first[r] = leaveable ? next[r] : -1;
      }
      all = spills.toArray(new Spill[0]);
    }
    try {
      long bytes = 0;
      for (int spill = 0; spill < spillCount; spill++) {
        bytes += writeLeftover(all[spill], first);
      }
      reporter.incrCounter(PreshuffleCounter.LEFTOVER_BYTES, bytes);
    } catch (IOException e) {
      LOG.warn("Leftover outputs of {} not written; its reducers pull the whole output", map,
          e);
      Arrays.fill(first, -1);
    }
    synchronized (this) {
      for (int r = 0; r < state.length; r++) {
        if (first[r] >= 0 && state[r] == State.STOPPED) {
          state[r] = State.LEAVING;
          firstLeft[r] = first[r];
        }
      }
      notifyAll();
    }
  }

  private boolean anyInFlightSegment() {
    for (int r = 0; r < state.length; r++) {
      if (inFlight[r] && state[r] == State.STOPPED) {
        return true;
      }
    }
    return false;
  }

  /**
   * Writes spill {@code s}'s segments of the reducers that lack it ({@code first[r]} at most
   * its number) as an output of their own in the spill's local dir, in the layout stock's
   * shuffle handler serves: {@code output/<leftover attempt>/file.out} and its index. The other partitions'
   * index entries are empty, and nobody asks for them. Returns the bytes written.
   */
  private long writeLeftover(Spill s, int[] first) throws IOException {
    SpillRecord index = new SpillRecord(state.length);
    List<Integer> lacking = new ArrayList<>();
    for (int r = 0; r < state.length; r++) {
      if (first[r] >= 0 && first[r] <= s.number) {
        lacking.add(r);
      } else {
        index.putIndex(new IndexRecord(0, 0, 0), r);
      }
    }
    if (lacking.isEmpty()) {
      return 0;
    }
    File dir = new File(new File(new File(s.data.toUri().getPath()).getParentFile(),
        OUTPUT_DIR), PushProtocol.leftover(map, s.number).toString());
    if (!dir.mkdirs()) {
      throw new IOException("cannot create " + dir);
    }
    long offset = 0;
    try (FileChannel out = FileChannel.open(
        new File(dir, OUTPUT).toPath(),
        StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      for (int r : lacking) {
        IndexRecord ir = s.record.getIndex(r);
        long done = 0;
        while (done < ir.partLength) {
          long n = s.channel.transferTo(ir.startOffset + done, ir.partLength - done, out);
          if (n <= 0) {
            throw new IOException("spill " + s.number + " of " + map + " ends early");
          }
          done += n;
        }
        index.putIndex(new IndexRecord(offset, ir.rawLength, ir.partLength), r);
        offset += ir.partLength;
      }
    }
    index.writeToFile(new Path(new File(dir, INDEX).getPath()), conf);
    return offset;
  }
}
