#!/usr/bin/env bash
# distribute-exclude.sh [--config DIR] EXCLUDE_FILE
# Copies a local exclude file (hosts to decommission, one a line) to every namenode host, to the
# path named by dfs.hosts.exclude (`hdfs getconf -excludeFile`). Hosts that are this machine get
# a plain copy, others go over ssh (or HADOOP_WORKER_RUNNER), as for workers. Then run
# refresh-namenodes.sh so that the namenodes read it.
set -u
# shellcheck source-path=SCRIPTDIR/../libexec source=hadoop-config.sh
. "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/../libexec/hadoop-config.sh"
usage="distribute-exclude.sh [--config DIR] EXCLUDE_FILE"
hadoop_sbin_init "$usage" "$@"
[[ ${#HADOOP_SBIN_ARGS[@]} -eq 1 ]] || hadoop_die 2 "Usage: $usage"
source_file=${HADOOP_SBIN_ARGS[0]}
[[ -f "$source_file" && -r "$source_file" ]] || hadoop_die 1 "ERROR: cannot read $source_file."

target=$(hadoop_bin hdfs getconf -excludeFile 2>/dev/null)
[[ -n "$target" && "$target" != *" "* ]] ||
  hadoop_die 1 "ERROR: dfs.hosts.exclude is not set in $HADOOP_CONF_DIR: the namenodes read no exclude file."
namenodes=$(hadoop_bin hdfs getconf -namenodes 2>/dev/null) && [[ -n "$namenodes" ]] ||
  hadoop_die 1 "ERROR: cannot tell the namenode hosts (fs.defaultFS must be an hdfs:// URI)."
rc=0
for host in $namenodes; do
  echo "Copying $source_file to $host:$target"
  # The contents travel on stdin, so the same command works locally, over ssh and via the runner.
  # shellcheck disable=SC2016 # $1 is for the remote sh
  hadoop_run_on_host "$host" sh -c 'cat > "$1"' sh "$target" < "$source_file" || rc=1
done
((rc == 0)) && echo "Done; now run refresh-namenodes.sh."
exit "$rc"
