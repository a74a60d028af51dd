#!/usr/bin/env bash
# stop-balancer.sh [--config DIR]: stops the balancer started by start-balancer.sh on this host
# (blocks it is moving finish or are abandoned; run start-balancer.sh again to resume).
set -u
# shellcheck source-path=SCRIPTDIR/../libexec source=hadoop-config.sh
. "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/../libexec/hadoop-config.sh"
hadoop_sbin_init "stop-balancer.sh [--config DIR]" "$@"
[[ ${#HADOOP_SBIN_ARGS[@]} -eq 0 ]] || hadoop_die 2 "Usage: stop-balancer.sh [--config DIR]"
hadoop_bin hdfs --daemon stop balancer
