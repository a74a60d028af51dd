#!/usr/bin/env bash
# stop-hetero-balancer.sh [--config DIR]: stops the hetero-balancer started by
# start-hetero-balancer.sh on this host. A replica being moved is copied before its source is
# deleted, so stopping loses nothing; run start-hetero-balancer.sh again to resume from the
# current layout.
set -u
# shellcheck source-path=SCRIPTDIR/../libexec source=hadoop-config.sh
. "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/../libexec/hadoop-config.sh"
hadoop_sbin_init "stop-hetero-balancer.sh [--config DIR]" "$@"
[[ ${#HADOOP_SBIN_ARGS[@]} -eq 0 ]] || hadoop_die 2 "Usage: stop-hetero-balancer.sh [--config DIR]"
hadoop_bin hdfs --daemon stop hetero-balancer
