#!/usr/bin/env bash
# A local Redis Cluster for the tests: 3 masters with 1 replica each, from
# Debian's redis-server in cluster mode, created with `redis-cli --cluster create` as an
# operator would. Sourced by .ci/run (which calls start_redis_cluster); also runnable alone:
#
#   bash .ci/redis-cluster.sh        # prints REDIS_CLUSTER_NODES=127.0.0.1:p1,… on stdout
#
# Reuse before start: REDIS_CLUSTER_NODES when it answers cluster_state:ok, else a cluster an
# earlier run left on the default ports (CI machines may be reused). Ports that are busy with
# anything else are skipped, so a second cluster never lands on a port in use. No persistence
# (--save "" --appendonly no); config files and logs in a fresh temporary directory.

REDIS_CLUSTER_BASE_PORT="${REDIS_CLUSTER_BASE_PORT:-30001}"

_rc_log() { printf '[ci] %s\n' "$*" >&2; }

# host:port answers CLUSTER INFO with cluster_state:ok and knows at least $2 nodes.
_rc_node_ok() {
  local host="${1%:*}" port="${1##*:}" want="${2:-1}" info known
  info=$(timeout 3 redis-cli -h "$host" -p "$port" cluster info 2>/dev/null | tr -d '\r') || return 1
  [[ "$info" == *"cluster_state:ok"* ]] || return 1
  known=$(sed -n 's/^cluster_known_nodes:\([0-9]*\)$/\1/p' <<<"$info")
  [ "${known:-0}" -ge "$want" ] || return 1
  # A replica counts once its first sync is done (ROLE: slave host port connected offset).
  local role
  role=$(timeout 3 redis-cli -h "$host" -p "$port" role 2>/dev/null | tr -d '\r') || return 1
  [ "$(sed -n 1p <<<"$role")" != "slave" ] || [ "$(sed -n 4p <<<"$role")" = "connected" ]
}

# Every node of a comma-separated host:port list is ok and knows all of them.
_rc_all_ok() {
  local nodes="$1" count node
  IFS=',' read -r -a _rc_list <<<"$nodes"
  count="${#_rc_list[@]}"
  for node in "${_rc_list[@]}"; do
    _rc_node_ok "$node" "$count" || return 1
  done
}

_rc_port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start_redis_cluster() {
  if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
    if declare -F apt_install >/dev/null; then
      apt_install redis-server redis-tools
    else
      _rc_log "redis-server and redis-cli are needed: apt-get install redis-server"
      return 1
    fi
  fi

  if [ -n "${REDIS_CLUSTER_NODES:-}" ] && _rc_all_ok "$REDIS_CLUSTER_NODES"; then
    _rc_log "reusing the Redis Cluster at REDIS_CLUSTER_NODES=$REDIS_CLUSTER_NODES"
    export REDIS_CLUSTER_NODES
    return 0
  fi

  local ports=() p nodes
  for p in $(seq "$REDIS_CLUSTER_BASE_PORT" $((REDIS_CLUSTER_BASE_PORT + 5))); do
    ports+=("$p")
  done
  nodes=$(printf '127.0.0.1:%s,' "${ports[@]}")
  nodes="${nodes%,}"
  if _rc_all_ok "$nodes"; then
    _rc_log "reusing the Redis Cluster an earlier run left at $nodes"
    export REDIS_CLUSTER_NODES="$nodes"
    return 0
  fi

  # Six free ports from the base up (anything listening, a cluster or not, is skipped).
  ports=()
  p="$REDIS_CLUSTER_BASE_PORT"
  while [ "${#ports[@]}" -lt 6 ]; do
    if [ "$p" -gt $((REDIS_CLUSTER_BASE_PORT + 500)) ]; then
      _rc_log "no six free ports from $REDIS_CLUSTER_BASE_PORT up"
      return 1
    fi
    _rc_port_busy "$p" || ports+=("$p")
    p=$((p + 1))
  done

  local dir
  dir=$(mktemp -d "${TMPDIR:-/tmp}/ci-redis-cluster.XXXXXX")
  _rc_log "starting a 3-master, 3-replica Redis Cluster on ports ${ports[*]} (config in $dir)"
  for p in "${ports[@]}"; do
    redis-server --daemonize yes --bind 127.0.0.1 --port "$p" --save "" --appendonly no \
      --cluster-enabled yes --cluster-config-file "$dir/nodes-$p.conf" --cluster-node-timeout 5000 \
      --dir "$dir" --logfile "$dir/redis-$p.log" --pidfile "$dir/redis-$p.pid" || return 1
  done
  for p in "${ports[@]}"; do
    for _ in $(seq 1 50); do
      [ "$(timeout 2 redis-cli -p "$p" ping 2>/dev/null)" = "PONG" ] && break
      sleep 0.1
    done
  done

  nodes=$(printf '127.0.0.1:%s,' "${ports[@]}")
  nodes="${nodes%,}"
  # shellcheck disable=SC2046
  if ! redis-cli --cluster create $(tr ',' ' ' <<<"$nodes") --cluster-replicas 1 --cluster-yes >"$dir/create.log" 2>&1; then
    _rc_log "redis-cli --cluster create failed:"
    cat "$dir/create.log" >&2
    return 1
  fi

  # Every node must say cluster_state:ok and know all six before the tests start.
  for _ in $(seq 1 300); do
    _rc_all_ok "$nodes" && break
    sleep 0.1
  done
  if ! _rc_all_ok "$nodes"; then
    _rc_log "the Redis Cluster at $nodes did not reach cluster_state:ok within 30 s"
    return 1
  fi
  _rc_log "Redis Cluster ok at $nodes"
  export REDIS_CLUSTER_NODES="$nodes"
}

# Run directly (not sourced): start or reuse, print the setting.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  start_redis_cluster
  printf 'REDIS_CLUSTER_NODES=%s\n' "$REDIS_CLUSTER_NODES"
fi
