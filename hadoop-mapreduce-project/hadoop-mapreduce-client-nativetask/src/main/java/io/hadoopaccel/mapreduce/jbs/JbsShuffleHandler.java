package io.hadoopaccel.mapreduce.jbs;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.security.token.JobTokenIdentifier;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.yarn.server.api.ApplicationInitializationContext;
import org.apache.hadoop.yarn.server.api.ApplicationTerminationContext;

/**
 * Stock {@link ShuffleHandler} (still serving every fetch of stock shuffle, so fallbacks work)
 * that also hands each job's secret to {@link JbsAuxService}: put it in place of upstream's
 * class, {@code yarn.nodemanager.aux-services.mapreduce_shuffle.class=}this class. Needed
 * because Hadoop 3.5.0's ApplicationMaster sends the job token to {@code mapreduce_shuffle}
 * only.
 */
public class JbsShuffleHandler extends ShuffleHandler {

  @Override
  public void initializeApplication(ApplicationInitializationContext context) {
    ByteBuffer data = context.getApplicationDataForService();
    data = data == null ? null : data.duplicate(); // super's reader may move the position
    super.initializeApplication(context);
    if (data == null || !data.hasRemaining()) {
      return;
    }
    try {
      Token<JobTokenIdentifier> jt = deserializeServiceData(data);
      JbsJobTokens.publish(context.getApplicationId(), context.getUser(), jt.getPassword());
    } catch (IOException e) {
      LOG.error("JBS: cannot read the job token of " + context.getApplicationId(), e);
    }
  }

  @Override
  public void stopApplication(ApplicationTerminationContext context) {
    super.stopApplication(context);
    JbsJobTokens.remove(context.getApplicationId());
  }
}
