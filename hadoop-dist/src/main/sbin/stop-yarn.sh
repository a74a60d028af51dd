#!/usr/bin/env bash
# stop-yarn.sh [--config DIR]: stops what start-yarn.sh starts, in reverse order.
set -u
# shellcheck source-path=SCRIPTDIR/../libexec source=hadoop-config.sh
. "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/../libexec/hadoop-config.sh"
HADOOP_SBIN_PROG=yarn # YARN_CONF_DIR
hadoop_sbin_init "stop-yarn.sh [--config DIR]" "$@"

rc=0
proxy=$(hadoop_conf_value yarn.web-proxy.address)
hadoop_start_stop_on "${proxy%:*}" yarn stop proxyserver || rc=1
echo "Stopping nodemanagers"
hadoop_bin yarn --workers --daemon stop nodemanager || rc=1
hadoop_start_stop_on local yarn stop resourcemanager || rc=1
exit "$rc"
