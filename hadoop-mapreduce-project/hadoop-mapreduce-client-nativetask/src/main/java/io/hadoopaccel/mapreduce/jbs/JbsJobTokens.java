package io.hadoopaccel.mapreduce.jbs;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.hadoop.yarn.api.records.ApplicationId;

/**
 * Job secrets handed from {@link JbsShuffleHandler} to {@link JbsAuxService} inside one
 * NodeManager JVM. Hadoop 3.5.0's ApplicationMaster gives the job token only to
 * {@code mapreduce_shuffle}: services listed in {@code mapreduce.job.shuffle.provider.services}
 * get an empty buffer (TaskAttemptImpl.addExternalShuffleProviders).
 */
public final class JbsJobTokens {
  /** Told of every job secret published. */
  public interface Listener {
    void jobSecret(ApplicationId app, String user, byte[] secret);
  }

  /** A job's user and secret. */
  public static final class Entry {
    public final String user;
    public final byte[] secret;

    Entry(String user, byte[] secret) {
      this.user = user;
      this.secret = secret.clone();
    }
  }

  private static final Map<ApplicationId, Entry> SECRETS = new ConcurrentHashMap<>();
  private static final List<Listener> LISTENERS = new CopyOnWriteArrayList<>();

  private JbsJobTokens() {}

  public static void publish(ApplicationId app, String user, byte[] secret) {
    SECRETS.put(app, new Entry(user, secret));
    for (Listener l : LISTENERS) {
      l.jobSecret(app, user, secret);
    }
  }

  public static Entry get(ApplicationId app) {
    return SECRETS.get(app);
  }

  public static void remove(ApplicationId app) {
    SECRETS.remove(app);
  }

  public static void addListener(Listener l) {
    LISTENERS.add(l);
  }

  public static void removeListener(Listener l) {
    LISTENERS.remove(l);
  }
}
