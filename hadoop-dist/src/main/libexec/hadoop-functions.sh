#!/usr/bin/env bash
# hadoop-functions.sh: everything bin/{hadoop,hdfs,yarn,mapred} and sbin/*.sh share.
# Sourced through hadoop-config.sh, never run. Functions are named hadoop_*, globals HADOOP_*.
#
# A bin script is a table of subcommands plus a call to hadoop_main; see hadoop_main for the
# table format. Sections below: messages, environment, JVM command line, daemons, workers,
# subcommand dispatch, sbin helpers.

# Rows every bin script has (same format as the bin scripts' own HADOOP_SUBCOMMANDS).
HADOOP_COMMON_SUBCOMMANDS='
classpath  shell   -                                        print the class path (--glob, --jar FILE: via org.apache.hadoop.util.Classpath)
envvars    shell   -                                        print the computed environment variables
version    client  io.hadoopaccel.common.tools.AccelVersionInfo  print the version
'

# Main class that --daemon start runs: checks the daemon's ports, then calls the real main.
HADOOP_DAEMON_LAUNCHER=io.hadoopaccel.common.tools.DaemonLauncher

############################################################################ messages

hadoop_error() {
  printf '%s\n' "$*" >&2
}

# hadoop_die CODE MESSAGE...
hadoop_die() {
  local code=$1
  shift
  hadoop_error "$@"
  exit "$code"
}

hadoop_debug() {
  if [[ -n "${HADOOP_SHELL_DEBUG:-}" ]]; then
    hadoop_error "DEBUG: $*"
  fi
}

######################################################################### environment

# JAVA_HOME/bin/java, or the java on the PATH with symlinks resolved. JAVA_HOME is exported
# either way: YARN containers run $JAVA_HOME/bin/java from the NodeManager's environment.
hadoop_find_java() {
  local java
  if [[ -n "${JAVA_HOME:-}" ]]; then
    java=$JAVA_HOME/bin/java
    [[ -x "$java" ]] || hadoop_die 1 "ERROR: JAVA_HOME is $JAVA_HOME, but $java is not executable."
  else
    java=$(command -v java) || hadoop_die 1 "ERROR: JAVA_HOME is not set and there is no java on the PATH."
    java=$(readlink -f -- "$java")
    JAVA_HOME=${java%/bin/java}
  fi
  export JAVA_HOME
  HADOOP_JAVA=$java
}

# Deprecated environment variable names that stock Hadoop 3 still honours, per program ("*":
# every command): OLD NEW. A set OLD wins over NEW, with one warning line, as in stock.
HADOOP_DEPRECATED_ENVVARS='
*       HADOOP_SLAVES                     HADOOP_WORKERS
*       HADOOP_SLAVE_NAMES                HADOOP_WORKER_NAMES
*       HADOOP_HEAPSIZE                   HADOOP_HEAPSIZE_MAX
hdfs    HADOOP_HDFS_LOG_DIR               HADOOP_LOG_DIR
hdfs    HADOOP_HDFS_PID_DIR               HADOOP_PID_DIR
hdfs    HADOOP_HDFS_IDENT_STRING          HADOOP_IDENT_STRING
hdfs    HADOOP_HDFS_ROOT_LOGGER           HADOOP_ROOT_LOGGER
hdfs    HADOOP_HDFS_STOP_TIMEOUT          HADOOP_STOP_TIMEOUT
yarn    YARN_LOG_DIR                      HADOOP_LOG_DIR
yarn    YARN_PID_DIR                      HADOOP_PID_DIR
yarn    YARN_IDENT_STRING                 HADOOP_IDENT_STRING
yarn    YARN_ROOT_LOGGER                  HADOOP_ROOT_LOGGER
yarn    YARN_STOP_TIMEOUT                 HADOOP_STOP_TIMEOUT
yarn    YARN_OPTS                         HADOOP_OPTS
yarn    YARN_HEAPSIZE                     HADOOP_HEAPSIZE_MAX
yarn    YARN_SLAVES                       HADOOP_WORKERS
yarn    YARN_WORKERS                      HADOOP_WORKERS
yarn    YARN_USER_CLASSPATH               HADOOP_CLASSPATH
yarn    YARN_USER_CLASSPATH_FIRST         HADOOP_USER_CLASSPATH_FIRST
mapred  HADOOP_MAPRED_LOG_DIR             HADOOP_LOG_DIR
mapred  HADOOP_MAPRED_PID_DIR             HADOOP_PID_DIR
mapred  HADOOP_MAPRED_IDENT_STRING        HADOOP_IDENT_STRING
mapred  HADOOP_MAPRED_ROOT_LOGGER         HADOOP_ROOT_LOGGER
mapred  HADOOP_MAPRED_STOP_TIMEOUT        HADOOP_STOP_TIMEOUT
mapred  HADOOP_JOB_HISTORYSERVER_OPTS     MAPRED_HISTORYSERVER_OPTS
'

# hadoop_deprecate_envvar OLD NEW: if OLD is set, NEW takes its value, with a warning.
hadoop_deprecate_envvar() {
  local old=$1 new=$2
  if [[ -n "${!old:-}" ]]; then
    hadoop_error "WARNING: $old has been replaced by $new. Using value of $old."
    printf -v "$new" '%s' "${!old}"
    export "${new?}"
  fi
}

# The rows of HADOOP_DEPRECATED_ENVVARS for this program (HADOOP_PROG; none for sbin scripts).
hadoop_deprecated_envvars() {
  local prog old new
  while read -r prog old new; do
    [[ -n "$prog" ]] || continue
    if [[ $prog == '*' || $prog == "${HADOOP_PROG:-}" ]]; then
      hadoop_deprecate_envvar "$old" "$new"
    fi
  done <<< "$HADOOP_DEPRECATED_ENVVARS"
}

# Sources an operator's env file: it may read variables that are unset, so no -u while it runs.
hadoop_source_env_file() {
  [[ -f "$1" ]] || return 0
  local nounset=
  [[ $- == *u* ]] && nounset=1
  set +u
  # shellcheck source=/dev/null
  . "$1"
  [[ -n "$nounset" ]] && set -u
  return 0
}

# Sources $HADOOP_CONF_DIR/hadoop-env.sh, then yarn-env.sh (yarn) or mapred-env.sh (mapred),
# maps deprecated variable names and fills in defaults. Call after option parsing (HADOOP_PROG
# set by hadoop_main, or by a yarn/mapred sbin script before hadoop_sbin_init).
hadoop_init_environment() {
  # YARN_CONF_DIR: stock yarn commands take it over HADOOP_CONF_DIR; --config wins over both.
  # (HADOOP_SBIN_PROG=yarn: the yarn sbin scripts, which hand their directory on with --config.)
  if [[ "${HADOOP_PROG:-${HADOOP_SBIN_PROG:-}}" == yarn && -n "${YARN_CONF_DIR:-}" &&
    -z "${HADOOP_CONFIG_OPTION:-}" ]]; then
    hadoop_deprecate_envvar YARN_CONF_DIR HADOOP_CONF_DIR
  fi
  HADOOP_CONF_DIR=${HADOOP_CONF_DIR:-$HADOOP_HOME/etc/hadoop}
  [[ -d "$HADOOP_CONF_DIR" ]] || hadoop_die 1 "ERROR: configuration directory $HADOOP_CONF_DIR does not exist."
  export HADOOP_CONF_DIR

  hadoop_source_env_file "$HADOOP_CONF_DIR/hadoop-env.sh"
  case ${HADOOP_PROG:-} in
    yarn) hadoop_source_env_file "$HADOOP_CONF_DIR/yarn-env.sh" ;;
    mapred) hadoop_source_env_file "$HADOOP_CONF_DIR/mapred-env.sh" ;;
  esac
  hadoop_deprecated_envvars

  hadoop_find_java

  HADOOP_LOG_DIR=${HADOOP_LOG_DIR:-$HADOOP_HOME/logs}
  HADOOP_PID_DIR=${HADOOP_PID_DIR:-/tmp}
  HADOOP_IDENT_STRING=${HADOOP_IDENT_STRING:-${USER:-$(id -un)}}
  HADOOP_STOP_TIMEOUT=${HADOOP_STOP_TIMEOUT:-5}
  HADOOP_DAEMON_START_TIMEOUT=${HADOOP_DAEMON_START_TIMEOUT:-15}
  HADOOP_OPTS=${HADOOP_OPTS--Djava.net.preferIPv4Stack=true}
  export HADOOP_LOG_DIR HADOOP_PID_DIR HADOOP_IDENT_STRING

  # One installation holds every component. YARN containers build their class path from
  # these (yarn.application.classpath, mapreduce.application.classpath defaults).
  export HADOOP_COMMON_HOME=$HADOOP_HOME HADOOP_HDFS_HOME=$HADOOP_HOME
  export HADOOP_YARN_HOME=$HADOOP_HOME HADOOP_MAPRED_HOME=$HADOOP_HOME
}

# The class path: conf dir, then every component's jars (third-party ones all in common/lib).
# share/hadoop/hdfs itself is on it too, as in stock, for the daemons' web UIs in its webapps/.
# hadoop_classpath [tools]  ->  HADOOP_CP
hadoop_classpath() {
  local share=$HADOOP_HOME/share/hadoop
  HADOOP_CP="$HADOOP_CONF_DIR:$share/common/lib/*:$share/common/*:$share/hdfs:$share/hdfs/*:$share/yarn/*:$share/mapreduce/*"
  # The streaming jar too: the shipped mapred-site.xml names ShmStreaming's identifier resolver
  # (share/hadoop/mapreduce), which extends a streaming class; `hadoop jar hadoop-streaming.jar`
  # would otherwise load the resolver from this class path and its superclass from the jar's
  # own class loader, and fail to link.
  local jar
  for jar in "$share"/tools/lib/hadoop-streaming-[0-9]*.jar; do
    [[ -f "$jar" ]] && HADOOP_CP+=":$jar"
  done
  if [[ "${1:-}" == tools ]]; then
    HADOOP_CP+=":$share/tools/lib/*"
  fi
  if [[ -n "${HADOOP_CLASSPATH:-}" ]]; then
    if [[ -n "${HADOOP_USER_CLASSPATH_FIRST:-}" ]]; then
      HADOOP_CP="$HADOOP_CLASSPATH:$HADOOP_CP"
    else
      HADOOP_CP+=":$HADOOP_CLASSPATH"
    fi
  fi
}

# The jar of a tool in share/hadoop/tools/lib, e.g. hadoop_tools_jar hadoop-streaming.
hadoop_tools_jar() {
  local jar
  for jar in "$HADOOP_HOME/share/hadoop/tools/lib/$1"-[0-9]*.jar; do
    if [[ -f "$jar" ]]; then
      printf '%s\n' "$jar"
      return 0
    fi
  done
  hadoop_die 1 "ERROR: no $1 jar in $HADOOP_HOME/share/hadoop/tools/lib."
}

################################################################### JVM command line

# Appends the words of a string (an *_OPTS variable) to the named array, without globbing.
# hadoop_append_words ARRAY_NAME STRING
hadoop_append_words() {
  local -n into=$1
  local -a words
  read -r -a words <<< "$2"
  into+=("${words[@]}")
}

# 512 -> 512m (plain numbers are megabytes, as in stock); 2g stays 2g.
hadoop_heap_size() {
  if [[ "$1" =~ ^[0-9]+$ ]]; then
    printf '%sm\n' "$1"
  else
    printf '%s\n' "$1"
  fi
}

# The root logger with --loglevel's level, if one was given: "INFO,RFA" -> "DEBUG,RFA".
hadoop_logger() {
  if [[ -n "${HADOOP_LOGLEVEL:-}" ]]; then
    printf '%s,%s\n' "$HADOOP_LOGLEVEL" "${1#*,}"
  else
    printf '%s\n' "$1"
  fi
}

# Log file base name of a daemon, stock style: hadoop-<ident>-<daemon>-<host>.
hadoop_daemon_log_base() {
  printf 'hadoop-%s-%s-%s\n' "$HADOOP_IDENT_STRING" "$1" "${HOSTNAME:-$(hostname)}"
}

# JVM options for a subcommand. MODE is client, daemon (in the foreground) or background.
# hadoop_jvm_options MODE  ->  HADOOP_JVM_ARGS (uses HADOOP_PROG, HADOOP_SUBCMD)
hadoop_jvm_options() {
  local mode=$1 logfile logger opts_var
  local native=$HADOOP_HOME/lib/native
  case $mode in
    client)
      logfile=hadoop.log
      logger=${HADOOP_ROOT_LOGGER:-INFO,console}
      ;;
    daemon)
      logfile=$(hadoop_daemon_log_base "$HADOOP_SUBCMD").log
      logger=${HADOOP_ROOT_LOGGER:-INFO,console}
      ;;
    background)
      logfile=$(hadoop_daemon_log_base "$HADOOP_SUBCMD").log
      # The daemon's console is its .out file; the log proper goes through the RFA appender.
      logger=${HADOOP_DAEMON_ROOT_LOGGER:-INFO,RFA}
      ;;
  esac
  logger=$(hadoop_logger "$logger")

  HADOOP_JVM_ARGS=()
  # First, so that ps and the pid check in hadoop_daemon_pid see which daemon this is.
  [[ $mode != client ]] && HADOOP_JVM_ARGS+=("-Dproc_$HADOOP_SUBCMD")
  local max=${HADOOP_HEAPSIZE_MAX:-} heap_var
  if [[ $mode != client ]]; then
    # A daemon's own heap, as in stock: YARN_RESOURCEMANAGER_HEAPSIZE, YARN_NODEMANAGER_HEAPSIZE,
    # YARN_PROXYSERVER_HEAPSIZE, YARN_TIMELINESERVER_HEAPSIZE, HADOOP_JOB_HISTORYSERVER_HEAPSIZE.
    heap_var=${HADOOP_PROG^^}_${HADOOP_SUBCMD^^}_HEAPSIZE
    [[ $HADOOP_PROG/$HADOOP_SUBCMD == mapred/historyserver ]] && heap_var=HADOOP_JOB_HISTORYSERVER_HEAPSIZE
    heap_var=${heap_var//[^A-Z0-9_]/_}
    [[ -n "${!heap_var:-}" ]] && max=${!heap_var}
  fi
  [[ -n "$max" ]] && HADOOP_JVM_ARGS+=("-Xmx$(hadoop_heap_size "$max")")
  [[ -n "${HADOOP_HEAPSIZE_MIN:-}" ]] && HADOOP_JVM_ARGS+=("-Xms$(hadoop_heap_size "$HADOOP_HEAPSIZE_MIN")")
  HADOOP_JVM_ARGS+=(
    "-Djava.library.path=$native" "-Djna.library.path=$native"
    "-Dhadoop.home.dir=$HADOOP_HOME" "-Dhadoop.id.str=$HADOOP_IDENT_STRING"
    "-Dhadoop.log.dir=$HADOOP_LOG_DIR" "-Dhadoop.log.file=$logfile" "-Dhadoop.root.logger=$logger"
    "-Dyarn.home.dir=$HADOOP_HOME" "-Dyarn.log.dir=$HADOOP_LOG_DIR" "-Dyarn.log.file=$logfile"
    "-Dyarn.root.logger=$logger"
  )
  # The operator's options come last so that they win over ours.
  hadoop_append_words HADOOP_JVM_ARGS "${HADOOP_OPTS:-}"
  if [[ $mode == client ]]; then
    hadoop_append_words HADOOP_JVM_ARGS "${HADOOP_CLIENT_OPTS:-}"
    [[ $HADOOP_PROG == yarn ]] && hadoop_append_words HADOOP_JVM_ARGS "${YARN_CLIENT_OPTS:-}"
  fi
  # Per subcommand: HDFS_NAMENODE_OPTS, YARN_RESOURCEMANAGER_OPTS, HADOOP_DISTCP_OPTS, ...
  # The Hadoop 2 name HADOOP_<SUBCOMMAND>_OPTS (HADOOP_NAMENODE_OPTS) still works, with a warning.
  opts_var=${HADOOP_PROG^^}_${HADOOP_SUBCMD^^}_OPTS
  opts_var=${opts_var//[^A-Z0-9_]/_}
  local old_var=HADOOP_${HADOOP_SUBCMD^^}_OPTS
  old_var=${old_var//[^A-Z0-9_]/_}
  [[ $old_var != "$opts_var" ]] && hadoop_deprecate_envvar "$old_var" "$opts_var"
  hadoop_append_words HADOOP_JVM_ARGS "${!opts_var:-}"
}

# The whole command line: hadoop_java_command MODE CLASS [ARGS...]  ->  HADOOP_JAVA_CMD
hadoop_java_command() {
  local mode=$1 class=$2
  shift 2
  hadoop_jvm_options "$mode"
  hadoop_classpath "${HADOOP_CP_EXTRA:-}"
  HADOOP_JAVA_CMD=("$HADOOP_JAVA" "${HADOOP_JVM_ARGS[@]}" -cp "$HADOOP_CP" "$class" "$@")
  if [[ -n "${HADOOP_SHELL_DEBUG:-}" ]]; then
    hadoop_debug "$(printf '%q ' "${HADOOP_JAVA_CMD[@]}")"
  fi
}

# Replaces this shell with java running CLASS: hadoop_exec_java MODE CLASS [ARGS...]
hadoop_exec_java() {
  hadoop_java_command "$@"
  exec "${HADOOP_JAVA_CMD[@]}"
}

############################################################################# daemons

hadoop_pid_file() {
  printf '%s/hadoop-%s-%s.pid\n' "$HADOOP_PID_DIR" "$HADOOP_IDENT_STRING" "$1"
}

# True if PID is a live process (zombies count as dead: nobody may reap an orphaned daemon).
hadoop_process_alive() {
  local state=
  kill -0 "$1" 2>/dev/null || return 1
  if [[ -r "/proc/$1/stat" ]]; then
    read -r _ _ state _ < "/proc/$1/stat" 2>/dev/null || return 1
    [[ "$state" != Z ]]
  fi
}

# Prints the pid of the running DAEMON and succeeds, or fails if it is not running. The pid
# file alone is not trusted: its pid must be alive and (where /proc exists) be that daemon.
hadoop_daemon_pid() {
  local daemon=$1 pidfile pid cmdline
  pidfile=$(hadoop_pid_file "$daemon")
  [[ -r "$pidfile" ]] || return 1
  read -r pid < "$pidfile" || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  hadoop_process_alive "$pid" || return 1
  if [[ -r "/proc/$pid/cmdline" ]]; then
    cmdline=$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null)
    [[ " $cmdline" == *" -Dproc_$daemon "* ]] || return 1
  fi
  printf '%s\n' "$pid"
}

# Keeps the last five: FILE -> FILE.1 -> ... -> FILE.5.
hadoop_rotate_file() {
  local file=$1 i
  [[ -f "$file" ]] || return 0
  for ((i = 4; i >= 1; i--)); do
    if [[ -f "$file.$i" ]]; then
      mv -f -- "$file.$i" "$file.$((i + 1))"
    fi
  done
  mv -f -- "$file" "$file.1"
}

# Starts DAEMON in the background through the DaemonLauncher and waits until the launcher
# reports its ports free (success) or the process dies (failure: its error is shown).
# hadoop_daemon_start DAEMON CLASS [ARGS...]
hadoop_daemon_start() {
  local daemon=$1 class=$2 pid pidfile out polls
  shift 2
  if pid=$(hadoop_daemon_pid "$daemon"); then
    hadoop_die 1 "$daemon is running as process $pid. Stop it first."
  fi
  mkdir -p -- "$HADOOP_PID_DIR" "$HADOOP_LOG_DIR" ||
    hadoop_die 1 "ERROR: cannot create $HADOOP_PID_DIR or $HADOOP_LOG_DIR."
  pidfile=$(hadoop_pid_file "$daemon")
  out=$HADOOP_LOG_DIR/$(hadoop_daemon_log_base "$daemon").out
  hadoop_rotate_file "$out"

  hadoop_java_command background "$HADOOP_DAEMON_LAUNCHER" "$daemon" "$class" "$@"
  # A session of its own, so that signals to the starting shell's process group (Ctrl-C,
  # timeout(1), a CI job being torn down) do not reach the daemon. setsid execs in place here
  # (a background child is no group leader), so $! stays the JVM's pid.
  local -a detach=()
  if command -v setsid > /dev/null; then
    detach=(setsid)
  fi
  nohup "${detach[@]}" "${HADOOP_JAVA_CMD[@]}" > "$out" 2>&1 < /dev/null &
  pid=$!
  printf '%s\n' "$pid" > "$pidfile" || hadoop_die 1 "ERROR: cannot write $pidfile."

  # Poll (no long sleeps: a healthy launch reports within about a second).
  polls=$((HADOOP_DAEMON_START_TIMEOUT * 10))
  while ((polls-- > 0)); do
    if grep -q "^$daemon: ports free, starting " "$out" 2>/dev/null; then
      return 0
    fi
    if ! hadoop_process_alive "$pid"; then
      rm -f -- "$pidfile"
      if grep -q '^ERROR: ' "$out"; then
        grep '^ERROR: ' "$out" >&2
      else
        tail -n 20 -- "$out" >&2
      fi
      hadoop_die 1 "ERROR: $daemon failed to start (see $out)."
    fi
    sleep 0.1
  done
  hadoop_error "WARNING: $daemon (process $pid) has not reported within ${HADOOP_DAEMON_START_TIMEOUT} s; see $out."
}

# TERM, up to HADOOP_STOP_TIMEOUT seconds' grace, then KILL.
hadoop_daemon_stop() {
  local daemon=$1 pid pidfile polls
  pidfile=$(hadoop_pid_file "$daemon")
  if ! pid=$(hadoop_daemon_pid "$daemon"); then
    echo "no $daemon to stop"
    rm -f -- "$pidfile"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null
  polls=$((HADOOP_STOP_TIMEOUT * 10))
  while ((polls-- > 0)) && hadoop_process_alive "$pid"; do
    sleep 0.1
  done
  if hadoop_process_alive "$pid"; then
    echo "WARNING: $daemon did not stop gracefully after $HADOOP_STOP_TIMEOUT seconds: killing with kill -9"
    kill -KILL "$pid" 2>/dev/null
    # Until it is gone, so that its ports are free when we return.
    polls=50
    while ((polls-- > 0)) && hadoop_process_alive "$pid"; do
      sleep 0.1
    done
  fi
  rm -f -- "$pidfile"
}

hadoop_daemon_status() {
  local pid
  if pid=$(hadoop_daemon_pid "$1"); then
    echo "$1 is running as process $pid."
    return 0
  fi
  echo "$1 is not running."
  return 1
}

############################################################################# workers

# Hosts for --workers, one a line: --hostnames / HADOOP_WORKER_NAMES, else the HADOOP_WORKERS
# file, else $HADOOP_CONF_DIR/workers. Comments and blank lines skipped, duplicates dropped.
hadoop_worker_hosts() {
  local file
  if [[ -n "${HADOOP_WORKER_NAMES:-}" ]]; then
    tr ', \t' '\n' <<< "$HADOOP_WORKER_NAMES"
  else
    file=${HADOOP_WORKERS:-$HADOOP_CONF_DIR/workers}
    # A bare name (--hosts myhosts) is looked up in the configuration directory, as in stock.
    if [[ ! -r "$file" && "$file" != */* ]]; then
      file=$HADOOP_CONF_DIR/$file
    fi
    [[ -r "$file" ]] || hadoop_die 1 "ERROR: cannot read the workers file $file."
    sed -e 's/#.*//' -e 's/[[:space:]]\{1,\}/\n/g' -- "$file"
  fi | awk 'NF && !seen[$1]++ { print $1 }'
}

# True if HOST names this machine, so that no ssh is needed.
hadoop_is_local_host() {
  local host=${1,,}
  case $host in
    localhost | localhost.localdomain | 127.* | ::1 | 0.0.0.0) return 0 ;;
  esac
  if [[ -z "${HADOOP_LOCAL_NAMES:-}" ]]; then
    HADOOP_LOCAL_NAMES=" $(hostname 2>/dev/null) $(hostname -f 2>/dev/null) "
    HADOOP_LOCAL_NAMES=${HADOOP_LOCAL_NAMES,,}
  fi
  [[ "$HADOOP_LOCAL_NAMES" == *" $host "* ]]
}

# Runs COMMAND on HOST: through $HADOOP_WORKER_RUNNER if set (for every host), directly if the
# host is this machine, else over ssh. HADOOP_WORKER_HOST tells the command (and so its
# hadoop-env.sh) which host it runs as. hadoop_run_on_host HOST COMMAND [ARGS...]
hadoop_run_on_host() {
  local host=$1
  shift
  local -a runner ssh_opts
  if [[ -n "${HADOOP_WORKER_RUNNER:-}" ]]; then
    read -r -a runner <<< "$HADOOP_WORKER_RUNNER"
    HADOOP_WORKER_HOST=$host "${runner[@]}" "$host" "$@"
  elif hadoop_is_local_host "$host"; then
    HADOOP_WORKER_HOST=$host "$@"
  else
    read -r -a ssh_opts <<< "${HADOOP_SSH_OPTS-"-o BatchMode=yes -o StrictHostKeyChecking=no -o ConnectTimeout=10s"}"
    # ssh hands the remote shell one string: quote every word for it, here.
    # shellcheck disable=SC2029
    ssh "${ssh_opts[@]}" "$host" "HADOOP_WORKER_HOST=$(printf '%q' "$host") $(printf '%q ' "$@")"
  fi
}

# Prefixes each line of stdin with "PREFIX: ".
hadoop_prefix_lines() {
  local line
  while IFS= read -r line || [[ -n "$line" ]]; do
    printf '%s: %s\n' "$1" "$line"
  done
}

# Runs COMMAND on every worker host in parallel, output prefixed with "host: "; fails if it
# failed on any host. hadoop_run_on_workers COMMAND [ARGS...]
hadoop_run_on_workers() {
  local -a hosts pids
  local host i rc=0
  mapfile -t hosts < <(hadoop_worker_hosts)
  if ((${#hosts[@]} == 0)); then
    hadoop_error "WARNING: no worker hosts (${HADOOP_WORKER_NAMES:-${HADOOP_WORKERS:-$HADOOP_CONF_DIR/workers}})."
    return 0
  fi
  hadoop_is_local_host localhost # fills the cache once, not once per host subshell
  for host in "${hosts[@]}"; do
    (
      hadoop_run_on_host "$host" "$@" < /dev/null 2>&1 | hadoop_prefix_lines "$host"
      exit "${PIPESTATUS[0]}"
    ) &
    pids+=("$!")
  done
  for i in "${!pids[@]}"; do
    if ! wait "${pids[$i]}"; then
      rc=1
    fi
  done
  return "$rc"
}

################################################################## subcommand dispatch

# The subcommand table rows of this bin script: its own, then the common ones.
hadoop_subcommand_rows() {
  printf '%s\n%s\n' "${HADOOP_SUBCOMMANDS:-}" "$HADOOP_COMMON_SUBCOMMANDS" |
    awk 'NF && $1 !~ /^#/'
}

# Finds SUBCMD in the table: sets HADOOP_SUBCMD_KIND and HADOOP_CLASSNAME, or fails.
hadoop_lookup_subcommand() {
  local name kind class help
  while read -r name kind class help; do
    if [[ "$name" == "$1" ]]; then
      HADOOP_SUBCMD_KIND=$kind
      HADOOP_CLASSNAME=$class
      return 0
    fi
  done < <(hadoop_subcommand_rows)
  return 1
}

hadoop_daemon_names() {
  hadoop_subcommand_rows | awk '$2 == "daemon" { print $1 }' | sort | paste -s -d ' ' -
}

hadoop_usage() {
  local prog=$HADOOP_PROG
  cat << EOF
Usage: $prog [OPTIONS] SUBCOMMAND [SUBCOMMAND OPTIONS]
   or: $prog [OPTIONS] CLASSNAME [CLASSNAME OPTIONS]
  where CLASSNAME is a user-provided Java class (a name with a dot or a capital first letter)

  OPTIONS:
    --config DIR              configuration directory (default \$HADOOP_HOME/etc/hadoop)
    --daemon start|stop|status
                              run a daemon subcommand in the background, stop it, or query it
    --workers                 run the command on every host of the workers file
    --hostnames "H1,H2"       with --workers: these hosts instead
    --hosts FILE              with --workers: the hosts listed in FILE
    --loglevel LEVEL          log level of the command, e.g. DEBUG
    --debug                   print the java command line before running it
    --help                    print this help

  SUBCOMMAND is one of:
EOF
  local name kind class help
  while read -r name kind class help; do
    if [[ $kind == daemon ]]; then
      help="(daemon) $help"
    fi
    printf '    %-22s %s\n' "$name" "$help"
  done < <(hadoop_subcommand_rows | sort -k1,1)
  echo
  echo "Run a subcommand with no arguments or with -help for its own help."
}

# Usage on stderr, exit 2.
hadoop_usage_error() {
  [[ $# -gt 0 ]] && hadoop_error "$@"
  hadoop_usage >&2
  exit 2
}

# hadoop_prepend_args WORD...: puts words before the subcommand's own arguments (for hooks).
hadoop_prepend_args() {
  HADOOP_SUBCMD_ARGS=("$@" "${HADOOP_SUBCMD_ARGS[@]}")
}

# `classpath`: without arguments the class path itself; with any, upstream's Classpath tool.
hadoop_subcommand_classpath() {
  if [[ $# -eq 0 ]]; then
    hadoop_classpath
    printf '%s\n' "$HADOOP_CP"
  else
    hadoop_exec_java client org.apache.hadoop.util.Classpath "$@"
  fi
}

hadoop_subcommand_envvars() {
  local name value
  while read -r name value; do
    printf "%s='%s'\n" "$name" "$value"
  done << EOF
JAVA_HOME $JAVA_HOME
HADOOP_HOME $HADOOP_HOME
HADOOP_CONF_DIR $HADOOP_CONF_DIR
HADOOP_COMMON_HOME $HADOOP_COMMON_HOME
HADOOP_COMMON_DIR share/hadoop/common
HADOOP_COMMON_LIB_JARS_DIR share/hadoop/common/lib
HADOOP_COMMON_LIB_NATIVE_DIR lib/native
HADOOP_HDFS_HOME $HADOOP_HDFS_HOME
HADOOP_HDFS_DIR share/hadoop/hdfs
HADOOP_YARN_HOME $HADOOP_YARN_HOME
HADOOP_YARN_DIR share/hadoop/yarn
HADOOP_MAPRED_HOME $HADOOP_MAPRED_HOME
HADOOP_MAPRED_DIR share/hadoop/mapreduce
HADOOP_TOOLS_HOME $HADOOP_HOME
HADOOP_TOOLS_DIR share/hadoop/tools
HADOOP_TOOLS_LIB_JARS_DIR share/hadoop/tools/lib
HADOOP_LOG_DIR $HADOOP_LOG_DIR
HADOOP_PID_DIR $HADOOP_PID_DIR
HADOOP_IDENT_STRING $HADOOP_IDENT_STRING
EOF
}

# Parses the options before the subcommand. Sets HADOOP_SUBCMD, HADOOP_SUBCMD_ARGS,
# HADOOP_DAEMON_MODE, HADOOP_WORKER_MODE, and HADOOP_FORWARD_OPTS (for the --workers rerun).
hadoop_parse_options() {
  HADOOP_DAEMON_MODE=
  HADOOP_WORKER_MODE=
  HADOOP_FORWARD_OPTS=()
  while [[ $# -gt 0 ]]; do
    case $1 in
      --config | --daemon | --loglevel | --hostnames | --hosts)
        [[ $# -ge 2 ]] || hadoop_usage_error "ERROR: $1 needs a value."
        ;;&
      --config)
        [[ -d "$2" ]] || hadoop_die 1 "ERROR: --config: $2 is not a directory."
        HADOOP_CONF_DIR=$(cd -P -- "$2" && pwd -P)
        HADOOP_CONFIG_OPTION=1
        shift 2
        ;;
      --daemon)
        case $2 in
          start | stop | status) ;;
          *) hadoop_usage_error "ERROR: --daemon takes start, stop or status, not '$2'." ;;
        esac
        HADOOP_DAEMON_MODE=$2
        HADOOP_FORWARD_OPTS+=(--daemon "$2")
        shift 2
        ;;
      --loglevel)
        HADOOP_LOGLEVEL=$2
        HADOOP_FORWARD_OPTS+=(--loglevel "$2")
        shift 2
        ;;
      --workers)
        HADOOP_WORKER_MODE=1
        shift
        ;;
      --hostnames)
        HADOOP_WORKER_NAMES=$2
        shift 2
        ;;
      --hosts)
        HADOOP_WORKERS=$2
        shift 2
        ;;
      --debug)
        HADOOP_SHELL_DEBUG=1
        HADOOP_FORWARD_OPTS+=(--debug)
        shift
        ;;
      --help | -h | help)
        hadoop_usage
        exit 0
        ;;
      -*)
        hadoop_usage_error "ERROR: unknown option $1."
        ;;
      *)
        break
        ;;
    esac
  done
  [[ $# -gt 0 ]] || hadoop_usage_error
  HADOOP_SUBCMD=$1
  shift
  HADOOP_SUBCMD_ARGS=("$@")
}

# Entry point of bin/hadoop, bin/hdfs, bin/yarn and bin/mapred: hadoop_main PROG ARGS...
#
# The calling script sets HADOOP_SUBCOMMANDS, one row per subcommand:
#     NAME  KIND  MAIN_CLASS  HELP TEXT...
# KIND is client (a command-line tool), daemon (a server; supports --daemon), tools (a client
# that needs share/hadoop/tools/lib) or shell (done in bash by hadoop_subcommand_NAME; class -).
# A function PROG_prepare_NAME, if the script defines one, runs just before the subcommand and
# may adjust HADOOP_SUBCMD_ARGS (hadoop_prepend_args) or HADOOP_CLASSNAME.
hadoop_main() {
  HADOOP_PROG=$1
  shift
  hadoop_parse_options "$@"

  if [[ -n "$HADOOP_DAEMON_MODE" ]] &&
    { ! hadoop_lookup_subcommand "$HADOOP_SUBCMD" || [[ "$HADOOP_SUBCMD_KIND" != daemon ]]; }; then
    hadoop_error "ERROR: '$HADOOP_SUBCMD' is not a daemon of $HADOOP_PROG; --daemon applies to: $(hadoop_daemon_names)"
    exit 2
  fi
  if ! hadoop_lookup_subcommand "$HADOOP_SUBCMD"; then
    if [[ "$HADOOP_SUBCMD" =~ ^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)+$ ||
      "$HADOOP_SUBCMD" =~ ^[A-Z][A-Za-z0-9_$]*$ ]]; then
      HADOOP_SUBCMD_KIND=client
      HADOOP_CLASSNAME=$HADOOP_SUBCMD
    else
      hadoop_usage_error "ERROR: $HADOOP_PROG has no subcommand '$HADOOP_SUBCMD'."
    fi
  fi

  hadoop_init_environment

  if [[ -n "$HADOOP_WORKER_MODE" ]]; then
    # shellcheck disable=SC2153 # HADOOP_BIN_DIR is set by hadoop-config.sh
    hadoop_run_on_workers "$HADOOP_BIN_DIR/$HADOOP_PROG" --config "$HADOOP_CONF_DIR" \
      "${HADOOP_FORWARD_OPTS[@]}" "$HADOOP_SUBCMD" "${HADOOP_SUBCMD_ARGS[@]}"
    exit
  fi

  HADOOP_CP_EXTRA=
  [[ $HADOOP_SUBCMD_KIND == tools ]] && HADOOP_CP_EXTRA=tools
  if declare -F "${HADOOP_PROG}_prepare_${HADOOP_SUBCMD}" > /dev/null; then
    "${HADOOP_PROG}_prepare_${HADOOP_SUBCMD}"
  fi

  case $HADOOP_SUBCMD_KIND in
    shell)
      "hadoop_subcommand_$HADOOP_SUBCMD" "${HADOOP_SUBCMD_ARGS[@]}"
      ;;
    daemon)
      case $HADOOP_DAEMON_MODE in
        start) hadoop_daemon_start "$HADOOP_SUBCMD" "$HADOOP_CLASSNAME" "${HADOOP_SUBCMD_ARGS[@]}" ;;
        stop) hadoop_daemon_stop "$HADOOP_SUBCMD" ;;
        status) hadoop_daemon_status "$HADOOP_SUBCMD" ;;
        *) hadoop_exec_java daemon "$HADOOP_CLASSNAME" "${HADOOP_SUBCMD_ARGS[@]}" ;;
      esac
      ;;
    *)
      hadoop_exec_java client "$HADOOP_CLASSNAME" "${HADOOP_SUBCMD_ARGS[@]}"
      ;;
  esac
}

######################################################################## sbin helpers

# Option parsing and environment for the sbin scripts, which take only --config DIR (and
# --help). Leaves the remaining arguments in HADOOP_SBIN_ARGS.
# hadoop_sbin_init "USAGE LINE" ARGS...
hadoop_sbin_init() {
  local usage=$1
  shift
  while [[ $# -gt 0 ]]; do
    case $1 in
      --config)
        [[ $# -ge 2 && -d "${2:-}" ]] || hadoop_die 2 "ERROR: --config needs a directory." "Usage: $usage"
        HADOOP_CONF_DIR=$(cd -P -- "$2" && pwd -P)
        HADOOP_CONFIG_OPTION=1
        shift 2
        ;;
      --help | -h)
        echo "Usage: $usage"
        exit 0
        ;;
      *)
        break
        ;;
    esac
  done
  # shellcheck disable=SC2034 # read by the sbin script
  HADOOP_SBIN_ARGS=("$@")
  hadoop_init_environment
}

# Runs a bin command with this script's configuration: hadoop_bin PROG ARGS...
hadoop_bin() {
  local prog=$1
  shift
  "$HADOOP_BIN_DIR/$prog" --config "$HADOOP_CONF_DIR" "$@"
}

# True if KEY appears in any *-site.xml, i.e. could be set at all. Lets the sbin scripts skip
# a JVM start (about a second) to read a key nobody configured.
hadoop_key_in_site_files() {
  grep -qsF -- "$1" "$HADOOP_CONF_DIR"/*.xml
}

# The value of KEY (core, hdfs and yarn site files), empty if unset.
hadoop_conf_value() {
  local -a yarn_site=()
  hadoop_key_in_site_files "$1" || return 0
  if [[ -f "$HADOOP_CONF_DIR/yarn-site.xml" ]]; then
    yarn_site=(-conf "$HADOOP_CONF_DIR/yarn-site.xml")
  fi
  hadoop_bin hdfs getconf "${yarn_site[@]}" -confKey "$1" 2> /dev/null || true
}

# "a\n b  c" -> "a b c"
hadoop_join_words() {
  local -a words
  read -r -d '' -a words <<< "$1"
  printf '%s\n' "${words[*]}"
}

# Where start-dfs.sh and stop-dfs.sh run the HDFS daemons. Sets (space-separated host lists):
#   HADOOP_NAMENODE_HOSTS     from `hdfs getconf -namenodes`
#   HADOOP_SECONDARY_HOSTS    from `hdfs getconf -secondarynamenodes`; "local" for 0.0.0.0;
#                             empty with HA (a standby namenode does its work)
#   HADOOP_JOURNALNODE_HOSTS  HA only: the hosts of a qjournal:// dfs.namenode.shared.edits.dir
#   HADOOP_ZKFC_HOSTS         HA only, with automatic failover: the namenode hosts
# shellcheck disable=SC2034 # the variables are read by the sbin scripts
hadoop_dfs_daemon_hosts() {
  local names edits
  names=$(hadoop_bin hdfs getconf -namenodes) ||
    hadoop_die 1 "ERROR: cannot tell the namenode hosts (fs.defaultFS must be an hdfs:// URI)."
  HADOOP_NAMENODE_HOSTS=$(hadoop_join_words "$names")
  HADOOP_SECONDARY_HOSTS=
  HADOOP_JOURNALNODE_HOSTS=
  HADOOP_ZKFC_HOSTS=
  if [[ "$HADOOP_NAMENODE_HOSTS" != *" "* ]]; then
    # Unless configured, the secondary runs here (0.0.0.0): no need to start a JVM to ask.
    names=0.0.0.0
    if hadoop_key_in_site_files dfs.namenode.secondary.http-address; then
      names=$(hadoop_bin hdfs getconf -secondarynamenodes 2> /dev/null)
    fi
    HADOOP_SECONDARY_HOSTS=$(hadoop_join_words "$names")
    [[ "$HADOOP_SECONDARY_HOSTS" == 0.0.0.0 ]] && HADOOP_SECONDARY_HOSTS=local
    return 0
  fi
  edits=$(hadoop_conf_value dfs.namenode.shared.edits.dir)
  if [[ "$edits" == qjournal://* ]]; then
    # qjournal://jn1:8485;jn2:8485;jn3:8485/journal-id
    edits=${edits#qjournal://}
    edits=${edits%%/*}
    HADOOP_JOURNALNODE_HOSTS=$(tr ';' '\n' <<< "$edits" | sed -e 's/:[0-9]*$//' | tr '\n' ' ')
    HADOOP_JOURNALNODE_HOSTS=${HADOOP_JOURNALNODE_HOSTS% }
  fi
  if [[ "$(hadoop_conf_value dfs.ha.automatic-failover.enabled)" == true ]]; then
    HADOOP_ZKFC_HOSTS=$HADOOP_NAMENODE_HOSTS
  fi
}

# hadoop_start_stop_on HOSTS PROG ACTION DAEMON: one daemon on each of HOSTS ("local": here).
hadoop_start_stop_on() {
  local on=$1 prog=$2 action=$3 daemon=$4
  [[ -n "$on" ]] || return 0
  local verb=Starting shown=$on
  [[ $action == stop ]] && verb=Stopping
  [[ $on == local ]] && shown=$(hostname)
  echo "$verb $daemon on [$shown]"
  if [[ "$on" == local ]]; then
    hadoop_bin "$prog" --daemon "$action" "$daemon"
  else
    hadoop_bin "$prog" --workers --hostnames "$on" --daemon "$action" "$daemon"
  fi
}

# hadoop-daemon.sh, yarn-daemon.sh, mr-jobhistory-daemon.sh: thin wrappers over PROG --daemon;
# with "workers", hadoop-daemons.sh and yarn-daemons.sh: the same on every worker host
# (PROG --workers [--hosts FILE | --hostnames LIST] --daemon ...).
# hadoop_daemon_wrapper PROG SCRIPT_NAME [workers] -- ARGS...
hadoop_daemon_wrapper() {
  local prog=$1 script=$2 on_workers= usage action daemon rc
  shift 2
  if [[ ${1:-} == workers ]]; then
    on_workers=1
    shift
  fi
  [[ ${1:-} == -- ]] && shift
  if [[ -n "$on_workers" ]]; then
    usage="$script [--config DIR] [--hosts FILE | --hostnames \"H1,H2\"] (start|stop|status) <daemon> [daemon options]"
  else
    usage="$script [--config DIR] (start|stop|status) <daemon> [daemon options]"
  fi
  HADOOP_SBIN_PROG=$prog
  hadoop_sbin_init "$usage" "$@"
  set -- "${HADOOP_SBIN_ARGS[@]}"
  local -a where=()
  if [[ -n "$on_workers" ]]; then
    where=(--workers)
    while [[ ${1:-} == --hosts || ${1:-} == --hostnames ]]; do
      [[ $# -ge 2 ]] || hadoop_die 2 "Usage: $usage"
      where+=("$1" "$2")
      shift 2
    done
  fi
  case ${1:-} in
    start | stop | status) ;;
    *) hadoop_die 2 "Usage: $usage" ;;
  esac
  [[ $# -ge 2 ]] || hadoop_die 2 "Usage: $usage"
  action=$1
  daemon=$2
  shift 2
  hadoop_bin "$prog" "${where[@]}" --daemon "$action" "$daemon" "$@"
  rc=$?
  [[ $rc -eq 2 ]] && hadoop_error "Usage: $usage"
  exit "$rc"
}
