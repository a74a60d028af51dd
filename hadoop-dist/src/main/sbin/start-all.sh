#!/usr/bin/env bash
# start-all.sh [--config DIR]: start-dfs.sh, then start-yarn.sh.
set -u
# shellcheck source-path=SCRIPTDIR/../libexec source=hadoop-config.sh
. "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/../libexec/hadoop-config.sh"
hadoop_sbin_init "start-all.sh [--config DIR]" "$@"

rc=0
"$HADOOP_SBIN_DIR/start-dfs.sh" --config "$HADOOP_CONF_DIR" || rc=1
"$HADOOP_SBIN_DIR/start-yarn.sh" --config "$HADOOP_CONF_DIR" || rc=1
exit "$rc"
