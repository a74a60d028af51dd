#!/usr/bin/env bash
# workers.sh [--config DIR] [--hostnames "H1,H2"] [--hosts FILE] COMMAND [ARGS...]
# Runs COMMAND on every worker host ($HADOOP_CONF_DIR/workers, or HADOOP_WORKERS) in parallel,
# each output line prefixed "host: ". COMMAND ARGS run as given (not as one shell string: use
# bash -c '...' for pipes or ;). See hadoop-env.sh for ssh options and HADOOP_WORKER_RUNNER.
set -u
# shellcheck source-path=SCRIPTDIR/../libexec source=hadoop-config.sh
. "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/../libexec/hadoop-config.sh"
usage='workers.sh [--config DIR] [--hostnames "H1,H2"] [--hosts FILE] COMMAND [ARGS...]'
hadoop_sbin_init "$usage" "$@"
set -- "${HADOOP_SBIN_ARGS[@]}"

while [[ $# -gt 0 ]]; do
  case $1 in
    --hostnames | --hosts)
      [[ $# -ge 2 ]] || hadoop_die 2 "Usage: $usage"
      if [[ $1 == --hostnames ]]; then HADOOP_WORKER_NAMES=$2; else HADOOP_WORKERS=$2; fi
      shift 2
      ;;
    -*) hadoop_die 2 "ERROR: unknown option $1." "Usage: $usage" ;;
    *) break ;;
  esac
done
[[ $# -gt 0 ]] || hadoop_die 2 "Usage: $usage"
hadoop_run_on_workers "$@"
