package io.hadoopaccel.hdfs.hetero;

import static org.apache.hadoop.hdfs.protocolPB.PBHelperClient.vintPrefixed;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DFSUtilClient;
import org.apache.hadoop.hdfs.client.HdfsClientConfigKeys;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.protocol.datatransfer.DataTransferProtoUtil;
import org.apache.hadoop.hdfs.protocol.datatransfer.IOStreamPair;
import org.apache.hadoop.hdfs.protocol.datatransfer.Sender;
import org.apache.hadoop.hdfs.protocol.datatransfer.TrustedChannelResolver;
import org.apache.hadoop.hdfs.protocol.datatransfer.sasl.DataTransferSaslUtil;
import org.apache.hadoop.hdfs.protocol.datatransfer.sasl.SaslDataTransferClient;
import org.apache.hadoop.hdfs.protocol.proto.DataTransferProtos.BlockOpResponseProto;
import org.apache.hadoop.hdfs.protocol.proto.DataTransferProtos.Status;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.server.balancer.KeyManager;
import org.apache.hadoop.hdfs.server.balancer.NameNodeConnector;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.security.token.Token;

/**
 * Moves one block replica with the DataTransferProtocol's replaceBlock, the operation the stock
 * Balancer and Mover use: the target copies the replica from the source (the DataNodes throttle
 * it at the balancer bandwidth), tells the NameNode it has it, and names the source as the
 * replica to delete. The NameNode removes the excess replica only after the new one is reported,
 * so a block's replication never drops, even if a node dies mid-move.
 */
final class ReplicaMover {
  /** Give up waiting for a move after this long without a final answer (stock: 5 × read). */
  private static final int MOVE_TIMEOUT_MS = HdfsConstants.READ_TIMEOUT * 5;

  private final KeyManager keyManager;
  private final SaslDataTransferClient saslClient;
  private final int bufferSize;
  private final boolean connectViaHostname;

  ReplicaMover(Configuration conf, NameNodeConnector nnc) {
    this.keyManager = nnc.getKeyManager();
    this.saslClient = new SaslDataTransferClient(conf,
        DataTransferSaslUtil.getSaslPropertiesResolver(conf),
        TrustedChannelResolver.getInstance(conf), nnc.getFallbackToSimpleAuth());
    this.bufferSize = DFSUtilClient.getIoFileBufferSize(conf);
    this.connectViaHostname = conf.getBoolean(HdfsClientConfigKeys.DFS_CLIENT_USE_DN_HOSTNAME,
        HdfsClientConfigKeys.DFS_CLIENT_USE_DN_HOSTNAME_DEFAULT);
  }

  /** Moves the replica; returns when the target has it, throws if the move failed. */
  void move(RedistributionPlan.Move move) throws IOException {
    Socket sock = new Socket();
    DataOutputStream out = null;
    DataInputStream in = null;
    try {
      sock.connect(NetUtils.createSocketAddr(move.target().getXferAddr(connectViaHostname)),
          HdfsConstants.READ_TIMEOUT);
      // The target sends IN_PROGRESS while it copies; a silent target is given up on.
      sock.setSoTimeout(MOVE_TIMEOUT_MS);
      sock.setKeepAlive(true);
      ExtendedBlock eb = move.block().block();
      StorageType type = move.storageType();
      Token<BlockTokenIdentifier> token =
          keyManager.getAccessToken(eb, new StorageType[] {type}, new String[0]);
      IOStreamPair streams = saslClient.socketSend(sock, sock.getOutputStream(),
          sock.getInputStream(), keyManager, token, move.target());
      out = new DataOutputStream(new BufferedOutputStream(streams.out, bufferSize));
      in = new DataInputStream(new BufferedInputStream(streams.in, bufferSize));
      // delHint = the source: the NameNode deletes that replica, not another one.
      new Sender(out).replaceBlock(eb, type, token, move.source().getDatanodeUuid(),
          move.source(), null);
      BlockOpResponseProto response = BlockOpResponseProto.parseFrom(vintPrefixed(in));
      while (response.getStatus() == Status.IN_PROGRESS) {
        response = BlockOpResponseProto.parseFrom(vintPrefixed(in));
      }
      DataTransferProtoUtil.checkBlockOpStatus(response, "move of " + move + " failed", true);
    } finally {
      IOUtils.closeStream(out);
      IOUtils.closeStream(in);
      IOUtils.closeSocket(sock);
    }
  }
}
