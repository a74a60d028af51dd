# shellcheck shell=bash
# Shared by dev-support/bin/pseudo-cluster and the emulated cluster: install a tarball
# into a scratch dir, write the site files, wait for daemons, check for leftovers.
# Sourced; callers set -euo pipefail.

repo=${repo:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}

# Containers inherit the NodeManager's environment: a developer's PYTHONUNBUFFERED=1 would make
# every streaming Python task unbuffered. Jobs that want it say -cmdenv PYTHONUNBUFFERED=1.
unset PYTHONUNBUFFERED

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
# on top of what the tarball ships. SITE_FINAL=true marks them final (a job's job.xml cannot
# override them in the node's tasks).
site() {
  local file=$1 props= final=
  shift
  [[ ${SITE_FINAL:-} == true ]] && final='<final>true</final>'
  while [[ $# -gt 0 ]]; do
    props+="  <property><name>$1</name><value>$2</value>$final</property>"$'\n'
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

# The same over the daemons' HTTP endpoints (URL: the NameNode's or ResourceManager's web
# address): a poll costs no client JVM, which is seconds of CPU on a loaded 2-core machine.
http_page_has() { local page; page=$(curl -sf --max-time 5 "$1") && [[ $page == *"$2"* ]]; }
http_live_datanodes_are() {
  http_page_has "$1/jmx?qry=Hadoop:service=NameNode,name=FSNamesystemState" "\"NumLiveDataNodes\" : $2,"
}
http_safemode_is_off() { http_page_has "$1/jmx?qry=Hadoop:service=NameNode,name=NameNodeInfo" '"Safemode" : "",'; }
http_running_nodemanagers_are() { http_page_has "$1/ws/v1/cluster/metrics" "\"activeNodes\":$2,"; }

live_datanodes_are() { hdfs dfsadmin -report -live 2>/dev/null | grep -q "^Live datanodes ($1)"; }
running_nodemanagers_are() { yarn node -list 2>/dev/null | grep -q "Total Nodes:$1\$"; }

# apply_conf_overrides CONF_DIR NAME=VALUE@FILE...: the --conf options of the cluster scripts,
# added last so that they win over what the script wrote. {host} in a value becomes the name of
# the node the conf dir is for (CONF_DIR's last component), for paths that must differ per node
# when the nodes share one file system (e.g. a Unix socket).
apply_conf_overrides() {
  local conf=$1 kv v host
  host=$(basename "$conf")
  shift
  for kv in "$@"; do
    [[ $kv == *=*@*.xml ]] || die "--conf wants NAME=VALUE@FILE, got $kv"
    v=${kv#*=}
    # A per-node value must win in the node's tasks too: the client's job.xml carries the
    # default of every key (the shipped core-site.xml includes accel-default.xml).
    local final=false
    [[ $v == *'{host}'* ]] && final=true
    v=${v//\{host\}/$host}
    SITE_FINAL=$final site "$conf/${kv##*@}" "${kv%%=*}" "${v%@*}"
  done
}

# own_pids: this script, its forks (same command line) and its ancestors, whose command lines
# may name the work dir too.
own_pids() {
  local pid=$$ mine p
  while [[ $pid =~ ^[0-9]+$ && $pid -gt 1 ]]; do
    echo "$pid"
    pid=$(ps -o ppid= -p "$pid" | tr -d ' ')
  done
  mine=$(tr '\0' ' ' < "/proc/$$/cmdline")
  for p in $(pgrep -s 0 || true); do
    [[ "$(tr '\0' ' ' 2>/dev/null < "/proc/$p/cmdline")" == "$mine" ]] && echo "$p"
  done
  return 0
}

# without_own_pids: filters stdin (pids, one a line), dropping own_pids and pids gone by now
# (forks of this script that ran pgrep and the like).
without_own_pids() {
  local pid mine
  mine=" $(own_pids | paste -s -d ' ' -) "
  while read -r pid; do
    [[ $mine == *" $pid "* || ! -e /proc/$pid ]] || echo "$pid"
  done
}

# leftovers WORK: pids of processes whose command line mentions WORK (daemons log there,
# containers run there), except this script's own.
leftovers() { { pgrep -f -- "$1/" || true; } | without_own_pids; }
