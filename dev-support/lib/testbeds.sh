# shellcheck shell=bash
# Named testbed presets of dev-support/bin/emu-cluster (`--testbed NAME`): each seed's own
# node hardware scaled to what this 2-core machine can give. Derivations (the seed's tables,
# the per-core speed factor, the dilation factor D and the data scale S) are in
# dev-support/TESTBEDS.md; keep the numbers here and there the same.
# Sourced by emu-cluster; sets its knob variables and appends to its extra (--conf) array.
# shellcheck disable=SC2034  # the variables are emu-cluster's

TESTBEDS="xie-hetero xie-psp jbs coomr"
# The seeds' 10 GigE scaled like their 1 GigE (jbs, coomr): for --bw.
TESTBED_10GIGE_BW=226mbit

# Measured on this machine: one core ~ a Core 2 core at this many MHz (7-Zip LZMA rating, one
# thread; TESTBEDS.md).
TESTBED_CORE_MIPS=2900

# The seeds' SATA disks' mean random access, 8.5 ms seek + 4.17 ms half turn at 7200 rpm; a
# preset's --disk-access is this times its D (used by --node-disks hdd only).
TESTBED_DISK_ACCESS_MS=12.67
disk_access_of() { awk -v d="$1" -v a="$TESTBED_DISK_ACCESS_MS" 'BEGIN { printf "%.1f\n", d * a }'; }

# Settings every preset shares: 384 MB task containers (the scheduler's minimum must not round
# them up to 512), and DataNodes that fsync each block on close, so that HDFS writes are held
# to the node's write throttle on cgroup v1 too (v1 does not charge background writeback).
testbed_common() {
  extra+=(
    "yarn.scheduler.minimum-allocation-mb=128@yarn-site.xml"
    "mapreduce.map.memory.mb=384@mapred-site.xml"
    "mapreduce.reduce.memory.mb=384@mapred-site.xml"
    "dfs.datanode.synconclose=true@hdfs-site.xml"
  )
}

# Hadoop 0.20's 2 map slots per node (seed 003's nodes): 768 MB map containers in 2048 MB, so
# two maps fill a node's map share and its other 512 MB take the AM or one reduce (0.20 ran
# its JobTracker on the master). The heap stays what a 384 MB container gets (0.8 x 384).
two_map_slots() {
  nm_memory=2048
  extra+=(
    "mapreduce.map.memory.mb=768@mapred-site.xml"
    "mapreduce.map.java.opts=-Xmx307m@mapred-site.xml"
  )
}

# Hadoop 0.20 ran its JobTracker on the master, not in a worker's slot: every MapReduce AM on
# the master's own NodeManager (emu-cluster --am-node master). The AM needs bursts of CPU that
# the presets' 0.3-core master cannot give (it starved there; about 0.15 core on average at 0.6).
am_on_master() {
  am_node=master master_cpu=0.6
}

# testbed_apply NAME: the preset's knobs (emu-cluster's variables) and site settings.
testbed_apply() {
  testbed=$1
  master_cpu=0.3
  case $1 in
    xie-hetero)
      # Seed 003 Tables 3.3/3.4: nodes A..E, Grep computing ratios 1 : 2 : 3.3 : 3.3 : 3.3.
      # D = 1.38 (node A, a 2 x 1 GHz Core 2 Duo = 0.69 of our cores, gets 0.5). S = 1.
      nodes=5 cpu=0.5,0.25,0.15,0.15,0.15 bw=725mbit
      disk_read=43m disk_write=40m disk_access=$(disk_access_of 1.38) memory=3412m vcores=4
      testbed_common
      two_map_slots
      am_on_master
      extra+=("dfs.blocksize=64m@hdfs-site.xml")
      ;;
    xie-psp)
      # Seed 003 Tables 4.1/5.1: 2 x dual-core Xeon 2.4 GHz (3.3 of our cores), 2 GB, one SATA
      # disk, 1 GigE, replication 1, 64 MB blocks. D = 11.0, S = 1: at S = 1/4 JVM start,
      # which does not scale, made a 16 MB map CPU-bound (TESTBEDS.md).
      nodes=4 cpu=0.3 bw=91mbit
      disk_read=5.5m disk_write=5m disk_access=$(disk_access_of 11.0) memory=3384m vcores=4
      replication=1
      testbed_common
      two_map_slots
      am_on_master
      extra+=("dfs.blocksize=64m@hdfs-site.xml")
      ;;
    jbs)
      # Seed 001 section V: 2 x X5650 (24 threads, 13.3 of our cores), 2 SATA disks, 24 GB,
      # 4 maps + 2 reduces per node, 1 GigE (10 GigE: --bw 226mbit), 256 MB blocks.
      # D = 44.2, S = 1/16.
      nodes=4 cpu=0.3 bw=23mbit
      disk_read=4.5m disk_write=4.5m disk_access=$(disk_access_of 44.2) memory=3600m
      nm_memory=2304 vcores=6 disks=2
      testbed_common
      extra+=("dfs.blocksize=16m@hdfs-site.xml")
      ;;
    coomr)
      # Seed 002 section 6.1 and Table 2: the JBS nodes; 2 GB task heaps, io.sort.mb 800,
      # io.file.buffer.size 8 MB, 256 MB blocks. D = 44.2, S = 1/16.
      nodes=4 cpu=0.3 bw=23mbit
      disk_read=4.5m disk_write=4.5m disk_access=$(disk_access_of 44.2) memory=3600m
      nm_memory=2304 vcores=6 disks=2
      testbed_common
      extra+=(
        "dfs.blocksize=16m@hdfs-site.xml"
        "mapreduce.task.io.sort.mb=50@mapred-site.xml"
        "io.file.buffer.size=8388608@core-site.xml"
        "mapreduce.map.java.opts=-Xmx200m@mapred-site.xml"
        "mapreduce.reduce.java.opts=-Xmx200m@mapred-site.xml"
      )
      ;;
    *) die "unknown testbed '$1' (known: $TESTBEDS)" ;;
  esac
}

# testbed_show NAME|list: a preset's knobs as `up` options and --conf settings.
testbed_show() {
  local t
  if [[ $1 == list ]]; then
    for t in $TESTBEDS; do echo "$t"; done
    return
  fi
  (
    extra=() replication='' disks=1
    testbed_apply "$1"
    echo "--nodes $nodes --cpu $cpu --master-cpu $master_cpu --bw $bw --disk-read-bw $disk_read" \
      "--disk-write-bw $disk_write --disk-access $disk_access --memory $memory" \
      "--nm-memory $nm_memory --vcores $vcores" \
      "--disks $disks${replication:+ --replication $replication}"
    for t in "${extra[@]}"; do echo "--conf $t"; done
  )
}
