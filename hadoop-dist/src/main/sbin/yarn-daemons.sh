#!/usr/bin/env bash
# yarn-daemons.sh [--config DIR] [--hosts FILE | --hostnames "H1,H2"] (start|stop|status) <daemon> [options]
# Starts, stops or queries a YARN daemon on every worker host (the workers file, or the given
# hosts): the same as `yarn [--config DIR] --workers [--hosts FILE] --daemon ACTION <daemon>`.
set -u
# shellcheck source-path=SCRIPTDIR/../libexec source=hadoop-config.sh
. "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/../libexec/hadoop-config.sh"
hadoop_daemon_wrapper yarn yarn-daemons.sh workers -- "$@"
