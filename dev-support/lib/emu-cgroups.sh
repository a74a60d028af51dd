# shellcheck shell=bash
# The emulated cluster's cgroups (dev-support/bin/emu-cluster): one group per node for CPU,
# disk and memory, on cgroup v1 (cpu, cpuacct, blkio, memory hierarchies) or v2 (cpu, io,
# memory in the unified hierarchy), whichever this machine gives; and the block devices under a
# path, for the disk throttle. Sourced; the caller sets PREFIX (the group is PREFIX/<host>)
# and defines log and die.
#
# cgroup v1 is tested on the development machine (it has v1 only); the v2 branches follow the
# kernel's cgroup-v2 documentation and are untested here.

# cg_detect: sets CG_VERSION (1 or 2), CG_DIR[controller] (the cluster's group in the hierarchy
# of each controller we use: cpu, cpuacct, blkio, memory; under v2 all are the one unified dir)
# and CG_DIRS (the distinct dirs). HACC_CGROUP=v1|v2 forces one.
declare -A CG_DIR=()
cg_detect() {
  local want=${HACC_CGROUP:-} c m
  CG_V2ROOT=$(awk '$(NF-2) == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
  if [[ $want != v2 ]] && [[ -n $(cg_v1_mount blkio) && -n $(cg_v1_mount memory) && -n $(cg_v1_mount cpu) ]]; then
    CG_VERSION=1
    CG_DIRS=''
    for c in cpu cpuacct blkio memory; do
      m=$(cg_v1_mount "$c")
      [[ -n $m ]] || die "cgroup v1 has no $c hierarchy mounted"
      CG_DIR[$c]=$m/$PREFIX
      [[ " $CG_DIRS " == *" $m/$PREFIX "* ]] || CG_DIRS+=${CG_DIRS:+ }$m/$PREFIX
    done
  elif [[ $want != v1 && -n $CG_V2ROOT ]] && cg_v2_has "$CG_V2ROOT" cpu io memory; then
    CG_VERSION=2
    CG_DIRS=$CG_V2ROOT/$PREFIX
    for c in cpu cpuacct blkio memory; do CG_DIR[$c]=$CG_DIRS; done
  else
    die "no usable cgroups: need cgroup v1 cpu, cpuacct, blkio and memory hierarchies, or cgroup v2 with cpu, io and memory available at its root"
  fi
}

# cg_v1_mount CONTROLLER: where the v1 hierarchy holding CONTROLLER is mounted (may be shared,
# e.g. cpu,cpuacct).
cg_v1_mount() {
  awk -v c="$1" '$(NF-2) == "cgroup" {
    n = split($NF, o, ","); for (i = 1; i <= n; i++) if (o[i] == c) { print $5; exit } }' /proc/self/mountinfo
}

cg_v2_has() {
  local root=$1 c
  shift
  for c in "$@"; do
    [[ " $(cat "$root/cgroup.controllers" 2>/dev/null) " == *" $c "* ]] || return 1
  done
}

# cg_dir CONTROLLER: the cluster's group for a controller (v2: the one dir).
cg_dir() { echo "${CG_DIR[$1]}"; }

# The CFS period of the CPU quotas (µs): a node may run SHARE × period, then waits for the next
# period. The kernel's default is 100 ms; a shorter one makes a small share run like a slower
# CPU rather than in bursts with stalls of up to (1 - SHARE) × period.
CG_CPU_PERIOD_US=${CG_CPU_PERIOD_US:-100000}

# cg_create NODES HOST...: the cluster's groups, one per host. The whole cluster weighs like one
# busy session per node against the machine's other sessions (autogroups).
cg_create() {
  local nodes=$1 d h
  shift
  if ((CG_VERSION == 2)); then
    d=$CG_DIRS
    # Controllers must be enabled top-down; adding to the root's set leaves what others enabled.
    echo "+cpu +io +memory" > "$(dirname "$d")/cgroup.subtree_control"
    mkdir "$d"
    echo "+cpu +io +memory" > "$d/cgroup.subtree_control"
    echo $((100 * (nodes + 1) > 10000 ? 10000 : 100 * (nodes + 1))) > "$d/cpu.weight"
    for h in "$@"; do mkdir "$d/$h"; done
    return
  fi
  for d in $CG_DIRS; do
    mkdir "$d"
    for h in "$@"; do mkdir "$d/$h"; done
  done
  d=$(cg_dir cpu)
  echo $((1024 * (nodes + 1))) > "$d/cpu.shares"
  for h in "$@"; do echo "$CG_CPU_PERIOD_US" > "$d/$h/cpu.cfs_period_us"; done
}

# cg_set_cpu HOST SHARE: a quota of SHARE cores per period ("none": unlimited); the weight
# follows the share, so that a faster node also wins more under contention.
cg_set_cpu() {
  local host=$1 share=$2 d
  d=$(cg_dir cpu)/$host
  if ((CG_VERSION == 2)); then
    if [[ $share == none ]]; then
      echo "max $CG_CPU_PERIOD_US" > "$d/cpu.max"
      echo 100 > "$d/cpu.weight"
    else
      awk -v s="$share" -v p="$CG_CPU_PERIOD_US" 'BEGIN { print int(s * p), p }' > "$d/cpu.max"
      awk -v s="$share" 'BEGIN { w = int(s * 100); print (w < 1 ? 1 : w) }' > "$d/cpu.weight"
    fi
  elif [[ $share == none ]]; then
    echo -1 > "$d/cpu.cfs_quota_us"
    echo 1024 > "$d/cpu.shares"
  else
    awk -v s="$share" -v p="$CG_CPU_PERIOD_US" 'BEGIN { print int(s * p) }' > "$d/cpu.cfs_quota_us"
    awk -v s="$share" 'BEGIN { w = int(s * 1024); print (w < 2 ? 2 : w) }' > "$d/cpu.shares"
  fi
}

# cg_set_disk HOST DEVICES RBPS WBPS RIOPS WIOPS: throttles HOST's I/O on each device
# (MAJ:MIN ...); each limit a number (bytes/s, requests/s) or "none".
cg_set_disk() {
  local host=$1 devs=$2 rbps=$3 wbps=$4 riops=$5 wiops=$6 d dev
  d=$(cg_dir blkio)/$host
  for dev in $devs; do
    if ((CG_VERSION == 2)); then
      echo "$dev rbps=${rbps/none/max} wbps=${wbps/none/max} riops=${riops/none/max} wiops=${wiops/none/max}" > "$d/io.max"
    else
      # v1: 0 removes a rule.
      echo "$dev ${rbps/none/0}" > "$d/blkio.throttle.read_bps_device"
      echo "$dev ${wbps/none/0}" > "$d/blkio.throttle.write_bps_device"
      echo "$dev ${riops/none/0}" > "$d/blkio.throttle.read_iops_device"
      echo "$dev ${wiops/none/0}" > "$d/blkio.throttle.write_iops_device"
    fi
  done
}

# cg_set_root_disk DEVICE RBPS WBPS RIOPS WIOPS: v1 only: throttles the root group's I/O on one
# device (a node's own disk: writeback is charged to the root group on v1); "none" lifts a limit.
cg_set_root_disk() {
  local dev=$1 d
  d=$(cg_v1_mount blkio)
  echo "$dev ${2/none/0}" > "$d/blkio.throttle.read_bps_device"
  echo "$dev ${3/none/0}" > "$d/blkio.throttle.write_bps_device"
  echo "$dev ${4/none/0}" > "$d/blkio.throttle.read_iops_device"
  echo "$dev ${5/none/0}" > "$d/blkio.throttle.write_iops_device"
}

# cg_clear_root_disk DEVICE: removes cg_set_root_disk's rules (v1; nothing to do on v2).
cg_clear_root_disk() {
  ((CG_VERSION == 1)) || return 0
  cg_set_root_disk "$1" none none none none
}

# cg_set_memory HOST BYTES|none: everything the node's processes charge, page cache included.
cg_set_memory() {
  local host=$1 bytes=$2 d
  d=$(cg_dir memory)/$host
  if ((CG_VERSION == 2)); then
    echo "${bytes/none/max}" > "$d/memory.max"
  else
    echo "${bytes/none/-1}" > "$d/memory.limit_in_bytes"
  fi
}

# cg_procs_files HOST: the cgroup.procs files a process of HOST joins (one per hierarchy).
cg_procs_files() {
  local d
  for d in $CG_DIRS; do echo "$d/$1/cgroup.procs"; done
}

# cg_pids: every process in any of the cluster's groups.
cg_pids() {
  local d
  for d in $CG_DIRS; do
    [[ -d $d ]] && find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null
  done
  return 0
}

cg_existing() {
  local d
  for d in $CG_DIRS; do [[ -d $d ]] && echo "$d"; done
  return 0
}

# cg_remove: removes every group of the cluster (leaves first). A killed task leaves its group
# a moment after it is gone from /proc.
cg_remove() {
  local d tries
  for d in $CG_DIRS; do
    [[ -d $d ]] || continue
    tries=0
    until find "$d" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null && rmdir "$d" 2>/dev/null; do
      ((++tries < 50)) || die "cannot remove $d"
      sleep 0.2
    done
  done
}

# cg_is_member PID HOST: PID is in HOST's group in every hierarchy but those named in
# CG_UNJOINED (v1 controllers a node's processes do not join, e.g. "blkio").
cg_is_member() {
  local pid=$1 host=$2 c
  if ((CG_VERSION == 2)); then
    grep -qx "0::${CG_DIRS#"$CG_V2ROOT"}/$host" "/proc/$pid/cgroup"
    return
  fi
  for c in "${!CG_DIR[@]}"; do
    [[ " ${CG_UNJOINED:-} " == *" $c "* ]] && continue
    grep -qE "^[0-9]+:([^:]*,)?$c(,[^:]*)?:/$PREFIX/$host\$" "/proc/$pid/cgroup" || return 1
  done
}

# cg_stats HOST DEVICES: one line of counters, "key=value ..." - cpu_ns (CPU used), throttled
# (CFS periods throttled), rbytes, wbytes, rios, wios (summed over DEVICES), mem (usage incl.
# page cache), anon (anonymous memory: what the page cache cannot take back), limit.
cg_stats() {
  local host=$1 devs=$2
  if ((CG_VERSION == 2)); then
    local d=$CG_DIRS/$host
    awk -v devs=" $devs " '
      FILENAME ~ /cpu.stat$/ && $1 == "usage_usec" { cpu = $2 * 1000 }
      FILENAME ~ /cpu.stat$/ && $1 == "nr_throttled" { thr = $2 }
      FILENAME ~ /io.stat$/ && index(devs, " " $1 " ") {
        for (i = 2; i <= NF; i++) { split($i, kv, "="); io[kv[1]] += kv[2] } }
      FILENAME ~ /memory.stat$/ && $1 == "anon" { anon = $2 }
      FILENAME ~ /memory.current$/ { mem = $1 }
      FILENAME ~ /memory.max$/ { lim = ($1 == "max" ? -1 : $1) }
      END { printf "cpu_ns=%.0f throttled=%.0f rbytes=%.0f wbytes=%.0f rios=%.0f wios=%.0f mem=%.0f anon=%.0f limit=%.0f\n",
            cpu, thr, io["rbytes"], io["wbytes"], io["rios"], io["wios"], mem, anon, lim }' \
      "$d/cpu.stat" "$d/io.stat" "$d/memory.stat" "$d/memory.current" "$d/memory.max"
    return
  fi
  local cpu blk mem
  cpu=$(cg_dir cpu)/$host blk=$(cg_dir blkio)/$host mem=$(cg_dir memory)/$host
  awk -v devs=" $devs " '
    FILENAME ~ /cpuacct.usage$/ { cpu = $1 }
    FILENAME ~ /cpu.stat$/ && $1 == "nr_throttled" { thr = $2 }
    FILENAME ~ /io_service_bytes$/ && index(devs, " " $1 " ") { b[$2] += $3 }
    FILENAME ~ /io_serviced$/ && index(devs, " " $1 " ") { n[$2] += $3 }
    FILENAME ~ /memory.stat$/ && $1 == "total_rss" { anon = $2 }
    FILENAME ~ /memory.usage_in_bytes$/ { m = $1 }
    FILENAME ~ /memory.limit_in_bytes$/ { lim = ($1 > 2^60 ? -1 : $1) }
    END { printf "cpu_ns=%.0f throttled=%.0f rbytes=%.0f wbytes=%.0f rios=%.0f wios=%.0f mem=%.0f anon=%.0f limit=%.0f\n",
          cpu, thr, b["Read"], b["Write"], n["Read"], n["Write"], m, anon, lim }' \
    "$(cg_dir cpuacct)/$host/cpuacct.usage" "$cpu/cpu.stat" \
    "$blk/blkio.throttle.io_service_bytes" "$blk/blkio.throttle.io_serviced" \
    "$mem/memory.stat" "$mem/memory.usage_in_bytes" "$mem/memory.limit_in_bytes"
}

############################################################################ block devices

# block_devices_of PATH: the whole-disk block devices (MAJ:MIN, one a line) that hold PATH,
# through partitions, device-mapper/md (their slaves), loop devices (the device holding the
# backing file) and overlay (its upper dir). Fails on a file system with no block device under
# it (tmpfs, NFS).
block_devices_of() {
  local path=$1 majmin fstype src opts upper
  read -r majmin fstype src < <(findmnt -n -o MAJ:MIN,FSTYPE,SOURCE -T "$path")
  opts=$(findmnt -n -o OPTIONS -T "$path")
  if [[ $fstype == overlay ]]; then
    upper=$(tr ',' '\n' <<< "$opts" | sed -n 's/^upperdir=//p')
    [[ -n $upper ]] || die "$path is on an overlay without an upper dir: no block device to throttle"
    block_devices_of "$upper"
    return
  fi
  if [[ ! -e /sys/dev/block/$majmin && -b $src ]]; then
    # e.g. btrfs reports an anonymous device number: take the device it was mounted from.
    majmin=$(stat -L -c '%t %T' "$src" | { read -r a b; echo "$((16#$a)):$((16#$b))"; })
  fi
  [[ -e /sys/dev/block/$majmin ]] || die "$path is on $fstype ($src), not on a block device: the disk knobs need a work dir on a disk (--work-dir)"
  whole_disks_of "$majmin" | sort -u
}

whole_disks_of() {
  local sys s backing
  sys=$(readlink -f "/sys/dev/block/$1")
  if [[ -f $sys/partition ]]; then
    whole_disks_of "$(cat "$sys/../dev")"
  elif [[ -n $(ls -A "$sys/slaves" 2>/dev/null) ]]; then
    for s in "$sys"/slaves/*; do whole_disks_of "$(cat "$s/dev")"; done
  elif [[ -f $sys/loop/backing_file ]]; then
    backing=$(cat "$sys/loop/backing_file")
    block_devices_of "$backing"
  else
    echo "$1"
  fi
}

# describe_devices DEVICES: "vda (254:0, virtio, non-rotational)" per device.
describe_devices() {
  local dev sys name rot
  for dev in $1; do
    sys=$(readlink -f "/sys/dev/block/$dev")
    name=$(basename "$sys")
    rot=$(cat "$sys/queue/rotational" 2>/dev/null || echo '?')
    printf '%s (%s, %s)\n' "$name" "$dev" "$([[ $rot == 1 ]] && echo rotational || echo non-rotational)"
  done | paste -s -d ' ' -
}
