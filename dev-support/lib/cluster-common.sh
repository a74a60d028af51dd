# Shared by dev-support/bin/pseudo-cluster and the emulated cluster: install a tarball
# into a scratch dir, write the site files, wait for daemons, check for leftovers.
# Sourced; callers set -euo pipefail.

repo=${repo:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}

log() { printf '[%s %s] %s\n' "${LOG_TAG:-cluster}" "$(date +%H:%M:%S)" "$*"; }
die() { log "ERROR: $*"; exit 1; }

# find_or_build_tarball [FILE]: prints the tarball path, building it when there is none.
find_or_build_tarball() {
  local t=${1:-}
  if [[ -z $t ]]; then
    t=$(ls "$repo"/hadoop-dist/target/hadoop-*.tar.gz 2>/dev/null | head -n 1 || true)
  fi
  if [[ -z $t ]]; then
    local profiles=dist
    if command -v cmake >/dev/null && [[ -f /usr/include/gtest/gtest.h ]]; then
      profiles=dist,native
    else
      log "cmake or GoogleTest missing: building without -Pnative (see BUILDING.txt)" >&2
    fi
    log "no tarball yet: mvn -B package -P$profiles -DskipTests" >&2
    (cd "$repo" && mvn -B -q package -P"$profiles" -DskipTests) >&2
    t=$(ls "$repo"/hadoop-dist/target/hadoop-*.tar.gz | head -n 1)
  fi
  [[ -f $t ]] || die "tarball $t not found"
  echo "$t"
}

# install_tarball TARBALL WORK: unpacks into WORK (emptied first); prints HADOOP_HOME.
install_tarball() {
  local tarball=$1 work=$2 home
  rm -rf "$work"
  mkdir -p "$work"
  tar -xzf "$tarball" -C "$work"
  home=$(ls -d "$work"/hadoop-*/ | head -n 1)
  echo "${home%/}"
}

# site FILE name value [name value ...]: adds properties before </configuration>,
# on top of what the tarball ships.
site() {
  local file=$1 props=
  shift
  while [[ $# -gt 0 ]]; do
    props+="  <property><name>$1</name><value>$2</value></property>"$'\n'
    shift 2
  done
  PROPS=$props awk '/<\/configuration>/ { printf "%s", ENVIRON["PROPS"] } { print }' "$file" > "$file.new"
  mv "$file.new" "$file"
}

# fast_test_settings CONF_DIR: fast heartbeats and kills (measured in shared/notes) and
# small containers, for a 2-core machine.
fast_test_settings() {
  local conf=$1
  site "$conf/hdfs-site.xml" \
    dfs.namenode.safemode.extension 0 \
    dfs.heartbeat.interval 1
  site "$conf/yarn-site.xml" \
    yarn.scheduler.minimum-allocation-mb 256 \
    yarn.nodemanager.vmem-check-enabled false \
    yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage 99.9 \
    yarn.resourcemanager.nodemanagers.heartbeat-interval-ms 200 \
    yarn.nodemanager.process-kill-wait.ms 200 \
    yarn.nodemanager.sleep-delay-before-sigkill.ms 100 \
    yarn.scheduler.capacity.maximum-am-resource-percent 0.5
  site "$conf/mapred-site.xml" \
    mapreduce.framework.name yarn \
    yarn.app.mapreduce.am.resource.mb 512 \
    mapreduce.map.memory.mb 512 \
    mapreduce.reduce.memory.mb 512 \
    yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms 200 \
    mapreduce.client.completion.pollinterval 200 \
    mapreduce.client.progressmonitor.pollinterval 200
}

# wait_until SECONDS DESCRIPTION COMMAND...: polls a condition once a second, bounded.
wait_until() {
  local limit=$1 what=$2
  shift 2
  local deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || die "timed out after ${limit}s waiting for $what"
    sleep 1
  done
}

live_datanodes_are() { hdfs dfsadmin -report -live 2>/dev/null | grep -q "^Live datanodes ($1)"; }
running_nodemanagers_are() { yarn node -list 2>/dev/null | grep -q "Total Nodes:$1\$"; }

# leftovers WORK: pids of processes whose command line mentions WORK (daemons log there,
# containers run there).
leftovers() { pgrep -f -- "$1/" || true; }
