#!/usr/bin/env bash
# refresh-namenodes.sh [--config DIR]: makes every namenode (all of them with HA or federation)
# re-read its include and exclude files (dfs.hosts, dfs.hosts.exclude), e.g. after
# distribute-exclude.sh: `hdfs dfsadmin -fs hdfs://ADDR -refreshNodes` for each RPC address
# that `hdfs getconf -nnRpcAddresses` lists.
set -u
# shellcheck source-path=SCRIPTDIR/../libexec source=hadoop-config.sh
. "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/../libexec/hadoop-config.sh"
usage="refresh-namenodes.sh [--config DIR]"
hadoop_sbin_init "$usage" "$@"
[[ ${#HADOOP_SBIN_ARGS[@]} -eq 0 ]] || hadoop_die 2 "Usage: $usage"

addresses=$(hadoop_bin hdfs getconf -nnRpcAddresses 2>/dev/null) && [[ -n "$addresses" ]] ||
  hadoop_die 1 "ERROR: cannot tell the namenodes' RPC addresses (fs.defaultFS must be an hdfs:// URI)."
rc=0
for address in $addresses; do
  echo "Refreshing namenode [$address]"
  hadoop_bin hdfs dfsadmin -fs "hdfs://$address" -refreshNodes || rc=1
done
exit "$rc"
