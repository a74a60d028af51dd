#!/usr/bin/env bash
# hadoop-config.sh: sourced first by every bin/ and sbin/ script of this distribution.
#
# It finds the installation (HADOOP_HOME, from this file's real location when unset) and loads
# the shared functions. The environment proper (hadoop-env.sh, java, defaults) is set up later by
# hadoop_init_environment, once the caller has parsed --config.

if [[ -n "${HADOOP_CONFIG_LOADED:-}" ]]; then
  return 0
fi
HADOOP_CONFIG_LOADED=1

# Symlinks resolved, so that a bin/ linked into /usr/local/bin still finds its libexec/.
HADOOP_LIBEXEC_DIR=$(cd -P -- "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")" && pwd -P)
HADOOP_BIN_DIR=$(cd -P -- "$HADOOP_LIBEXEC_DIR/../bin" && pwd -P)
# shellcheck disable=SC2034 # for the sbin scripts
HADOOP_SBIN_DIR=$(cd -P -- "$HADOOP_LIBEXEC_DIR/../sbin" && pwd -P)

# shellcheck source-path=SCRIPTDIR source=hadoop-functions.sh
. "$HADOOP_LIBEXEC_DIR/hadoop-functions.sh"

if [[ -z "${HADOOP_HOME:-}" ]]; then
  HADOOP_HOME=$(cd -P -- "$HADOOP_LIBEXEC_DIR/.." && pwd -P)
fi
export HADOOP_HOME
