#!/usr/bin/env bash
# start-hetero-balancer.sh [--config DIR] [hetero-balancer options, e.g. -threshold 5 -dir /data]
# Runs the redistribution balancer of heterogeneity-aware placement (hadoop-accel-hetero) in the
# background on this host until every bound directory matches its profile: the same as
# `hdfs [--config DIR] --daemon start hetero-balancer [options]`. stop-hetero-balancer.sh stops it.
# It takes the HDFS balancer lock: it cannot run next to start-balancer.sh's balancer.
set -u
# shellcheck source-path=SCRIPTDIR/../libexec source=hadoop-config.sh
. "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/../libexec/hadoop-config.sh"
hadoop_sbin_init "start-hetero-balancer.sh [--config DIR] [hetero-balancer options (hdfs hetero-balancer -help lists them)]" "$@"
hadoop_bin hdfs --daemon start hetero-balancer "${HADOOP_SBIN_ARGS[@]}"
