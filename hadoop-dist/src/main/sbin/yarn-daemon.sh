#!/usr/bin/env bash
# yarn-daemon.sh [--config DIR] (start|stop|status) <daemon> [options]
# Starts, stops or queries a YARN daemon (resourcemanager, nodemanager, proxyserver,
# timelineserver) on this host:
# the same as `yarn [--config DIR] --daemon ACTION <daemon> [options]`.
set -u
# shellcheck source-path=SCRIPTDIR/../libexec source=hadoop-config.sh
. "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/../libexec/hadoop-config.sh"
hadoop_daemon_wrapper yarn yarn-daemon.sh -- "$@"
