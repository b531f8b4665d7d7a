#!/usr/bin/env bash
# The Galera cluster suite: starts the three-node cluster with HAProxy
# (scripts/galera-cluster.sh), runs test/cluster/ against it, and stops it again.
# Exit status: 0 when the suite passed, 1 when it failed, 3 when the cluster could not start
# (the reason is printed; nothing was tested). Set GALERA_KEEP=1 to leave the cluster running.
set -uo pipefail
cd "$(dirname "$0")/.."
CLUSTER=scripts/galera-cluster.sh

if ! $CLUSTER check; then
  exit 3
fi
if ! $CLUSTER start; then
  echo "the Galera cluster did not start (see above)" >&2
  $CLUSTER stop >/dev/null 2>&1
  exit 3
fi
[ "${GALERA_KEEP:-}" = 1 ] || trap '$CLUSTER stop' EXIT
GALERA_CLUSTER=1 npx jest --config jest.cluster.config.js "$@"
