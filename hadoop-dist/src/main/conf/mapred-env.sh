# mapred-env.sh: environment of the mapred command only (bin/mapred, and so
# mr-jobhistory-daemon.sh), sourced after hadoop-env.sh: what is set here wins for MapReduce's
# commands. Everything is optional; uncomment and edit what you need. hadoop-env.sh documents
# the variables every command shares. Task JVMs are not started by these scripts: their options
# are mapreduce.map.java.opts and mapreduce.reduce.java.opts in mapred-site.xml.

###
# Job history server
###
# Heap (plain numbers are megabytes); wins over HADOOP_HEAPSIZE_MAX for the history server.
# export HADOOP_JOB_HISTORYSERVER_HEAPSIZE=1g

# JVM options of the history server, after HADOOP_OPTS.
# export MAPRED_HISTORYSERVER_OPTS=""

# Options of one mapred client subcommand, e.g. `mapred job` or `mapred streaming`.
# export MAPRED_JOB_OPTS=""
# export MAPRED_STREAMING_OPTS=""

###
# Hadoop 2 names. Still honoured, each with a one-line warning naming its replacement; the old
# name wins when both are set:
#   HADOOP_JOB_HISTORYSERVER_OPTS -> MAPRED_HISTORYSERVER_OPTS
#   HADOOP_MAPRED_LOG_DIR -> HADOOP_LOG_DIR      HADOOP_MAPRED_PID_DIR -> HADOOP_PID_DIR
#   HADOOP_MAPRED_IDENT_STRING -> HADOOP_IDENT_STRING
#   HADOOP_MAPRED_ROOT_LOGGER -> HADOOP_ROOT_LOGGER
#   HADOOP_MAPRED_STOP_TIMEOUT -> HADOOP_STOP_TIMEOUT
###
