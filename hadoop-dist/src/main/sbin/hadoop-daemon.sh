#!/usr/bin/env bash
# hadoop-daemon.sh [--config DIR] (start|stop|status) <daemon> [options]
# Starts, stops or queries an HDFS daemon (namenode, datanode, secondarynamenode, journalnode,
# zkfc, balancer, ...) on this host:
# the same as `hdfs [--config DIR] --daemon ACTION <daemon> [options]`.
set -u
# shellcheck source-path=SCRIPTDIR/../libexec source=hadoop-config.sh
. "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/../libexec/hadoop-config.sh"
hadoop_daemon_wrapper hdfs hadoop-daemon.sh -- "$@"
