#!/usr/bin/env bash
# start-balancer.sh [--config DIR] [balancer options, e.g. -threshold 5 -policy datanode]
# Runs the HDFS balancer in the background on this host until the cluster is balanced:
# the same as `hdfs [--config DIR] --daemon start balancer [options]`. stop-balancer.sh stops it.
set -u
# shellcheck source-path=SCRIPTDIR/../libexec source=hadoop-config.sh
. "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/../libexec/hadoop-config.sh"
hadoop_sbin_init "start-balancer.sh [--config DIR] [balancer options (hdfs balancer -help lists them)]" "$@"
hadoop_bin hdfs --daemon start balancer "${HADOOP_SBIN_ARGS[@]}"
