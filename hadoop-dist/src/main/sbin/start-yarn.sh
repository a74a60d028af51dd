#!/usr/bin/env bash
# start-yarn.sh [--config DIR]: the resource manager here, node managers on the workers, and
# the web proxy server on its host if yarn.web-proxy.address is set (otherwise the resource
# manager runs the proxy itself).
set -u
# shellcheck source-path=SCRIPTDIR/../libexec source=hadoop-config.sh
. "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/../libexec/hadoop-config.sh"
HADOOP_SBIN_PROG=yarn # YARN_CONF_DIR
hadoop_sbin_init "start-yarn.sh [--config DIR]" "$@"

rc=0
hadoop_start_stop_on local yarn start resourcemanager || rc=1
echo "Starting nodemanagers"
hadoop_bin yarn --workers --daemon start nodemanager || rc=1
proxy=$(hadoop_conf_value yarn.web-proxy.address)
hadoop_start_stop_on "${proxy%:*}" yarn start proxyserver || rc=1
exit "$rc"
