# hadoop-env.sh: environment of every bin/ and sbin/ command, sourced (as bash) after the
# configuration directory is known and before anything else is decided. The yarn command then
# sources yarn-env.sh, the mapred command mapred-env.sh (both in this directory). Everything is optional:
# uncomment and edit what you need. Values already in the environment are visible here, so
# "export X=${X:-default}" keeps an operator's override.

###
# Java and the installation
###

# The JVM. When unset, the java on the PATH is used (symlinks resolved) and JAVA_HOME is
# exported from it, so that YARN containers find the same JVM.
# export JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64

# The installation; derived from the location of bin/ (symlinks resolved) when unset.
# export HADOOP_HOME=/opt/hadoop

# This directory. Also set by --config DIR on every command.
# export HADOOP_CONF_DIR=${HADOOP_HOME}/etc/hadoop

###
# JVM options
###

# Heap of every JVM the scripts start. Plain numbers are megabytes; units (g, m) are allowed.
# Unset: the JVM's own default (a quarter of the machine's memory).
# export HADOOP_HEAPSIZE_MAX=1g
# export HADOOP_HEAPSIZE_MIN=256

# Options of every JVM (default: -Djava.net.preferIPv4Stack=true).
# export HADOOP_OPTS="-Djava.net.preferIPv4Stack=true"

# Options of command-line clients only (hadoop fs, hdfs dfsadmin, yarn node, mapred job, ...).
# export HADOOP_CLIENT_OPTS="-Xmx512m"

# Options of one subcommand, named <COMMAND>_<SUBCOMMAND>_OPTS. They come after the ones above
# and so win. The daemons:
# export HDFS_NAMENODE_OPTS="-Xmx4g -Dhdfs.audit.logger=INFO,RFA"
# export HDFS_DATANODE_OPTS="-Xmx1g"
# export HDFS_SECONDARYNAMENODE_OPTS=""
# export YARN_RESOURCEMANAGER_OPTS="-Xmx2g"
# export YARN_NODEMANAGER_OPTS="-Xmx1g"
# export YARN_PROXYSERVER_OPTS=""
# export MAPRED_HISTORYSERVER_OPTS=""
# and any other subcommand the same way, e.g. HDFS_BALANCER_OPTS, HADOOP_DISTCP_OPTS.
#
# Hadoop 2 names still work, each with a one-line warning naming its replacement (the old name
# wins when both are set): HADOOP_<SUBCOMMAND>_OPTS (HADOOP_NAMENODE_OPTS -> HDFS_NAMENODE_OPTS,
# HADOOP_DATANODE_OPTS -> HDFS_DATANODE_OPTS, ...), HADOOP_HEAPSIZE -> HADOOP_HEAPSIZE_MAX,
# HADOOP_SLAVES -> HADOOP_WORKERS, HADOOP_SLAVE_NAMES -> HADOOP_WORKER_NAMES, and for hdfs
# commands HADOOP_HDFS_{LOG_DIR,PID_DIR,IDENT_STRING,ROOT_LOGGER,STOP_TIMEOUT} -> HADOOP_*.
# yarn-env.sh and mapred-env.sh list their own.

# Extra class path entries for every command (after ours; before them if
# HADOOP_USER_CLASSPATH_FIRST is non-empty).
# export HADOOP_CLASSPATH=/opt/extra/lib/*
# export HADOOP_USER_CLASSPATH_FIRST=yes

###
# Logging
###

# Root logger of clients and of daemons run in the foreground (default INFO,console; the
# console appender writes to stderr).
# export HADOOP_ROOT_LOGGER=INFO,console

# Root logger of daemons started with --daemon start (default INFO,RFA: the .log file).
# --loglevel LEVEL on any command changes just the level.
# export HADOOP_DAEMON_ROOT_LOGGER=INFO,RFA

# Where daemons write hadoop-<ident>-<daemon>-<host>.log (the log4j RFA appender) and .out
# (their stdout and stderr, the last five kept). Default: $HADOOP_HOME/logs.
# export HADOOP_LOG_DIR=${HADOOP_HOME}/logs

###
# Daemons (--daemon start|stop|status, sbin/*.sh)
###

# Pid files, hadoop-<ident>-<daemon>.pid. Default: /tmp.
# export HADOOP_PID_DIR=/var/run/hadoop

# Names this instance in pid and log file names, and is hadoop.id.str. Default: $USER.
# export HADOOP_IDENT_STRING=$USER

# Seconds a stopping daemon gets after SIGTERM before SIGKILL. Default: 5.
# export HADOOP_STOP_TIMEOUT=5

# Seconds --daemon start waits for the daemon to report that its ports are free (it returns
# as soon as it does, or as soon as the daemon dies). Default: 15.
# export HADOOP_DAEMON_START_TIMEOUT=15

###
# Workers (--workers, sbin/workers.sh, start-dfs.sh, start-yarn.sh)
###

# The file listing the worker hosts, one a line. Default: $HADOOP_CONF_DIR/workers.
# export HADOOP_WORKERS=${HADOOP_CONF_DIR}/workers

# Options for ssh to hosts that are not this machine (localhost, 127.*, ::1 and this host's
# own names run directly, without ssh).
# export HADOOP_SSH_OPTS="-o BatchMode=yes -o StrictHostKeyChecking=no -o ConnectTimeout=10s"

# Hook: when set, the command for EVERY host (this machine included) is run as
#     $HADOOP_WORKER_RUNNER HOST COMMAND ARGS...
# instead of over ssh or directly; e.g. to run each worker in its own network namespace:
# export HADOOP_WORKER_RUNNER="ip netns exec"
# or a script of your own taking HOST first.
#
# Every worker command, whichever way it runs, gets HADOOP_WORKER_HOST=<host> in its
# environment (commands typed directly do not). Workers sharing one file system (network
# namespaces, containers on one disk) need their own pid and log directories, e.g.:
# if [ -n "${HADOOP_WORKER_HOST}" ]; then
#   export HADOOP_PID_DIR=/tmp/hadoop-pids/${HADOOP_WORKER_HOST}
#   export HADOOP_LOG_DIR=${HADOOP_HOME}/logs/${HADOOP_WORKER_HOST}
# fi
