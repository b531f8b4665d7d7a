#!/usr/bin/env bash
# A throwaway three-node MariaDB Galera cluster on loopback with HAProxy in front, for
# the cluster tests (test/cluster/) and for trying the gateway on a cluster by hand. It never
# touches the machine's own MariaDB (port 3306, /var/lib/mysql): every node has its own data
# directory, socket and ports under $GALERA_DIR.
#
#   scripts/galera-cluster.sh start          three nodes (the first bootstraps the cluster) + HAProxy
#   scripts/galera-cluster.sh stop           stops HAProxy and the nodes, deletes $GALERA_DIR
#   scripts/galera-cluster.sh status         each node's wsrep state and the cluster size
#   scripts/galera-cluster.sh kill N         kill -9 of node N (1-3), as a crash
#   scripts/galera-cluster.sh restart N      starts node N again; it rejoins by IST (or SST) and waits until Synced
#   scripts/galera-cluster.sh urls           prints the DATABASE_URL of HAProxy and of each node (server level, no database)
#   scripts/galera-cluster.sh check          exits 0 when galera-4, mariadbd and haproxy are installed, else prints why
#
# Ports (all on 127.0.0.1): HAProxy $GALERA_PORT_BASE (default 3340); node N answers SQL on
# base+N, Galera replication (gcomm) on base+10+N, IST on base+20+N, rsync SST on base+30+N.
# Root has no password over TCP (a test cluster); HAProxy checks nodes as user haproxy_check.
set -euo pipefail

DIR="${GALERA_DIR:-/tmp/sg-galera}"
BASE="${GALERA_PORT_BASE:-3340}"
PROVIDER="${GALERA_PROVIDER:-/usr/lib/galera/libgalera_smm.so}"
NODES=(1 2 3)

sql_port() { echo $((BASE + $1)); }
gcomm_port() { echo $((BASE + 10 + $1)); }
ist_port() { echo $((BASE + 20 + $1)); }
sst_port() { echo $((BASE + 30 + $1)); }
cluster_address() {
  local a=() n
  for n in "${NODES[@]}"; do a+=("127.0.0.1:$(gcomm_port "$n")"); done
  (IFS=,; echo "gcomm://${a[*]}")
}
q() { mariadb --protocol=tcp -h127.0.0.1 -P"$(sql_port "$1")" -uroot -N -B -e "$2" 2>/dev/null; }
wsrep_state() { q "$1" "SHOW GLOBAL STATUS LIKE 'wsrep_local_state_comment'" | cut -f2; }

check() {
  local missing=()
  [ -f "$PROVIDER" ] || missing+=("$PROVIDER (Debian package galera-4)")
  command -v mariadbd >/dev/null 2>&1 || missing+=("mariadbd (mariadb-server)")
  command -v mariadb-install-db >/dev/null 2>&1 || missing+=("mariadb-install-db (mariadb-server)")
  command -v haproxy >/dev/null 2>&1 || missing+=("haproxy")
  command -v rsync >/dev/null 2>&1 || missing+=("rsync (SST)")
  if [ ${#missing[@]} -gt 0 ]; then
    echo "cannot start a Galera cluster: missing ${missing[*]}" >&2
    return 1
  fi
}

write_config() {
  local n=$1 d="$DIR/node$1"
  cat >"$d/my.cnf" <<EOF
[mysqld]
user=mysql
datadir=$d/data
socket=$d/mysqld.sock
pid-file=$d/mysqld.pid
log-error=$d/error.log
bind-address=127.0.0.1
port=$(sql_port "$n")
skip-name-resolve
innodb_buffer_pool_size=64M
innodb_log_file_size=32M
innodb_flush_log_at_trx_commit=2
max_connections=200
# What Galera needs of every writer
binlog_format=ROW
default_storage_engine=InnoDB
innodb_autoinc_lock_mode=2
# Galera
wsrep_on=ON
wsrep_provider=$PROVIDER
wsrep_cluster_name=sg-test
wsrep_cluster_address=$(cluster_address)
wsrep_node_name=node$n
wsrep_node_address=127.0.0.1:$(gcomm_port "$n")
wsrep_node_incoming_address=127.0.0.1:$(sql_port "$n")
wsrep_provider_options="gmcast.listen_addr=tcp://127.0.0.1:$(gcomm_port "$n");ist.recv_addr=127.0.0.1:$(ist_port "$n");gcache.size=64M;evs.suspect_timeout=PT3S;evs.inactive_timeout=PT6S;evs.install_timeout=PT6S"
wsrep_sst_method=rsync
wsrep_sst_receive_address=127.0.0.1:$(sst_port "$n")
wsrep_slave_threads=2
EOF
}

start_node() {
  local n=$1 d="$DIR/node$1" extra=${2:-}
  # shellcheck disable=SC2086
  setsid mariadbd --defaults-file="$d/my.cnf" $extra </dev/null >>"$d/stdout.log" 2>&1 &
  echo $! >"$d/mariadbd.pid"
}

# Waits until node N answers and is Synced (at most $2 seconds, default 90).
wait_synced() {
  local n=$1 limit=${2:-90} i
  for i in $(seq 1 "$limit"); do
    [ "$(wsrep_state "$n")" = "Synced" ] && return 0
    if ! kill -0 "$(cat "$DIR/node$n/mariadbd.pid")" 2>/dev/null; then
      echo "node $n exited; last lines of its error log:" >&2
      tail -n 30 "$DIR/node$n/error.log" >&2
      return 1
    fi
    sleep 1
  done
  echo "node $n not Synced after ${limit}s (state: $(wsrep_state "$n"))" >&2
  tail -n 30 "$DIR/node$n/error.log" >&2
  return 1
}

write_haproxy() {
  local n
  {
    cat <<EOF
global
  maxconn 2000
  pidfile $DIR/haproxy.pid
defaults
  mode tcp
  timeout connect 1s
  timeout client 60s
  timeout server 60s
  retries 2
  option redispatch
listen galera
  bind 127.0.0.1:$BASE
  balance roundrobin
  option mysql-check user haproxy_check post-41
  default-server inter 500ms fall 2 rise 2 on-marked-down shutdown-sessions
EOF
    for n in "${NODES[@]}"; do echo "  server node$n 127.0.0.1:$(sql_port "$n") check"; done
  } >"$DIR/haproxy.cfg"
}

start() {
  check
  if [ -f "$DIR/haproxy.pid" ] || ls "$DIR"/node*/mariadbd.pid >/dev/null 2>&1; then
    echo "a cluster seems to run in $DIR already (stop it first)" >&2
    return 1
  fi
  rm -rf "$DIR"
  mkdir -p "$DIR"
  local n
  for n in "${NODES[@]}"; do
    mkdir -p "$DIR/node$n/data"
    write_config "$n"
    chown -R mysql:mysql "$DIR/node$n"
    mariadb-install-db --defaults-file="$DIR/node$n/my.cnf" --auth-root-authentication-method=normal \
      --skip-test-db >"$DIR/node$n/install.log" 2>&1 || { cat "$DIR/node$n/install.log" >&2; return 1; }
  done
  chmod 755 "$DIR"
  start_node 1 --wsrep-new-cluster
  wait_synced 1
  q 1 "CREATE USER IF NOT EXISTS 'haproxy_check'@'127.0.0.1'; CREATE DATABASE IF NOT EXISTS test"
  for n in 2 3; do
    start_node "$n"
    wait_synced "$n"
  done
  write_haproxy
  haproxy -D -f "$DIR/haproxy.cfg"
  for _ in $(seq 1 20); do
    mariadb --protocol=tcp -h127.0.0.1 -P"$BASE" -uroot -e 'select 1' >/dev/null 2>&1 && break
    sleep 0.5
  done
  status
}

stop() {
  local n pid
  if [ -f "$DIR/haproxy.pid" ]; then
    kill "$(cat "$DIR/haproxy.pid")" 2>/dev/null || true
  fi
  for n in "${NODES[@]}"; do
    pid=$(cat "$DIR/node$n/mariadbd.pid" 2>/dev/null || true)
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done
  for n in "${NODES[@]}"; do
    pid=$(cat "$DIR/node$n/mariadbd.pid" 2>/dev/null || true)
    [ -z "$pid" ] && continue
    for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$DIR"
}

status() {
  local n
  for n in "${NODES[@]}"; do
    echo "node$n 127.0.0.1:$(sql_port "$n") state=$(wsrep_state "$n" || true) cluster_size=$(q "$n" "SHOW GLOBAL STATUS LIKE 'wsrep_cluster_size'" | cut -f2 || true)"
  done
  echo "haproxy 127.0.0.1:$BASE $([ -f "$DIR/haproxy.pid" ] && kill -0 "$(cat "$DIR/haproxy.pid")" 2>/dev/null && echo running || echo stopped)"
}

urls() {
  local n
  echo "haproxy=mysql://root@127.0.0.1:$BASE"
  for n in "${NODES[@]}"; do echo "node$n=mysql://root@127.0.0.1:$(sql_port "$n")"; done
}

node_arg() {
  case "${1:-}" in 1 | 2 | 3) ;; *) echo "node number 1-3 expected" >&2; exit 2 ;; esac
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  urls) urls ;;
  check) check ;;
  kill)
    node_arg "${2:-}"
    kill -9 "$(cat "$DIR/node$2/mariadbd.pid")"
    ;;
  restart)
    node_arg "${2:-}"
    start_node "$2"
    wait_synced "$2" "${3:-120}"
    ;;
  *)
    sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
