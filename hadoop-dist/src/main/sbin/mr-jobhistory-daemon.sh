#!/usr/bin/env bash
# mr-jobhistory-daemon.sh [--config DIR] (start|stop|status) <daemon> [options]
# Starts, stops or queries the job history server (historyserver) on this host:
# the same as `mapred [--config DIR] --daemon ACTION <daemon> [options]`.
set -u
# shellcheck source-path=SCRIPTDIR/../libexec source=hadoop-config.sh
. "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/../libexec/hadoop-config.sh"
hadoop_daemon_wrapper mapred mr-jobhistory-daemon.sh -- "$@"
