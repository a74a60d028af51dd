#!/usr/bin/env bash
# hadoop-daemons.sh [--config DIR] [--hosts FILE | --hostnames "H1,H2"] (start|stop|status) <daemon> [options]
# Starts, stops or queries an HDFS daemon on every worker host (the workers file, or the given
# hosts): the same as `hdfs [--config DIR] --workers [--hosts FILE] --daemon ACTION <daemon>`.
set -u
# shellcheck source-path=SCRIPTDIR/../libexec source=hadoop-config.sh
. "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/../libexec/hadoop-config.sh"
hadoop_daemon_wrapper hdfs hadoop-daemons.sh workers -- "$@"
