#!/usr/bin/env bash
# stop-all.sh [--config DIR]: stop-yarn.sh, then stop-dfs.sh.
set -u
# shellcheck source-path=SCRIPTDIR/../libexec source=hadoop-config.sh
. "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/../libexec/hadoop-config.sh"
hadoop_sbin_init "stop-all.sh [--config DIR]" "$@"

rc=0
"$HADOOP_SBIN_DIR/stop-yarn.sh" --config "$HADOOP_CONF_DIR" || rc=1
"$HADOOP_SBIN_DIR/stop-dfs.sh" --config "$HADOOP_CONF_DIR" || rc=1
exit "$rc"
