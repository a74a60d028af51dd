#!/usr/bin/env bash
# stop-dfs.sh [--config DIR]: stops what start-dfs.sh starts, in reverse order.
set -u
# shellcheck source-path=SCRIPTDIR/../libexec source=hadoop-config.sh
. "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/../libexec/hadoop-config.sh"
hadoop_sbin_init "stop-dfs.sh [--config DIR]" "$@"

rc=0
hadoop_dfs_daemon_hosts
hadoop_start_stop_on "$HADOOP_SECONDARY_HOSTS" hdfs stop secondarynamenode || rc=1
echo "Stopping datanodes"
hadoop_bin hdfs --workers --daemon stop datanode || rc=1
hadoop_start_stop_on "$HADOOP_ZKFC_HOSTS" hdfs stop zkfc || rc=1
hadoop_start_stop_on "$HADOOP_NAMENODE_HOSTS" hdfs stop namenode || rc=1
hadoop_start_stop_on "$HADOOP_JOURNALNODE_HOSTS" hdfs stop journalnode || rc=1
exit "$rc"
