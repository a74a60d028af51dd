#!/usr/bin/env bash
# start-dfs.sh [--config DIR]: the HDFS daemons. Namenode(s) on the hosts of
# `hdfs getconf -namenodes`, datanodes on the workers, the secondary namenode where
# configured (here by default). With HA: journal nodes first, ZK failover controllers on the
# namenode hosts when automatic failover is on, and no secondary namenode.
set -u
# shellcheck source-path=SCRIPTDIR/../libexec source=hadoop-config.sh
. "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/../libexec/hadoop-config.sh"
hadoop_sbin_init "start-dfs.sh [--config DIR]" "$@"

rc=0
hadoop_dfs_daemon_hosts
hadoop_start_stop_on "$HADOOP_JOURNALNODE_HOSTS" hdfs start journalnode || rc=1
hadoop_start_stop_on "$HADOOP_NAMENODE_HOSTS" hdfs start namenode || rc=1
hadoop_start_stop_on "$HADOOP_ZKFC_HOSTS" hdfs start zkfc || rc=1
echo "Starting datanodes"
hadoop_bin hdfs --workers --daemon start datanode || rc=1
hadoop_start_stop_on "$HADOOP_SECONDARY_HOSTS" hdfs start secondarynamenode || rc=1
exit "$rc"
