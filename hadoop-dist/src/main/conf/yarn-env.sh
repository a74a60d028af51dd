# yarn-env.sh: environment of the yarn command only (bin/yarn, and so start-yarn.sh,
# yarn-daemon.sh, yarn-daemons.sh), sourced after hadoop-env.sh: what is set here wins for YARN.
# Everything is optional; uncomment and edit what you need. hadoop-env.sh documents the
# variables every command shares (JAVA_HOME, HADOOP_HEAPSIZE_MAX, HADOOP_OPTS, HADOOP_LOG_DIR,
# HADOOP_PID_DIR, ...).

###
# Daemon heaps (plain numbers are megabytes; g and m allowed). Each wins over HADOOP_HEAPSIZE_MAX
# for its daemon.
###
# export YARN_RESOURCEMANAGER_HEAPSIZE=1g
# export YARN_NODEMANAGER_HEAPSIZE=1g
# export YARN_PROXYSERVER_HEAPSIZE=256
# export YARN_TIMELINESERVER_HEAPSIZE=1g

###
# Daemon JVM options, after HADOOP_OPTS (so they win), e.g. GC logging or a JMX port.
###
# export YARN_RESOURCEMANAGER_OPTS="-Xlog:gc*:file=${HADOOP_LOG_DIR}/rm-gc.log"
# export YARN_NODEMANAGER_OPTS=""
# export YARN_PROXYSERVER_OPTS=""
# export YARN_TIMELINESERVER_OPTS=""

# Options of the yarn client commands (yarn application, yarn node, yarn logs, ...), after
# HADOOP_CLIENT_OPTS.
# export YARN_CLIENT_OPTS=""

###
# Hadoop 2 names. Still honoured, each with a one-line warning naming its replacement; the old
# name wins when both are set:
#   YARN_CONF_DIR -> HADOOP_CONF_DIR (--config DIR wins over both)
#   YARN_LOG_DIR -> HADOOP_LOG_DIR        YARN_PID_DIR -> HADOOP_PID_DIR
#   YARN_OPTS -> HADOOP_OPTS              YARN_HEAPSIZE -> HADOOP_HEAPSIZE_MAX
#   YARN_IDENT_STRING -> HADOOP_IDENT_STRING   YARN_ROOT_LOGGER -> HADOOP_ROOT_LOGGER
#   YARN_STOP_TIMEOUT -> HADOOP_STOP_TIMEOUT   YARN_SLAVES, YARN_WORKERS -> HADOOP_WORKERS
#   YARN_USER_CLASSPATH -> HADOOP_CLASSPATH
#   YARN_USER_CLASSPATH_FIRST -> HADOOP_USER_CLASSPATH_FIRST
#   HADOOP_<DAEMON>_OPTS (e.g. HADOOP_RESOURCEMANAGER_OPTS) -> YARN_<DAEMON>_OPTS
###
