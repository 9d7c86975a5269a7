#!/usr/bin/env bash
# A real single-node Apache Kafka (KRaft, broker + controller in one JVM) without Docker.
#
#   deploy/local/kafka.sh start    fetch the broker jars (first time), format, start, wait until ready
#   deploy/local/kafka.sh stop     stop the broker and delete its data (idempotent)
#   deploy/local/kafka.sh status   exit 0 and print the bootstrap address if running, else exit 3
#   deploy/local/kafka.sh fetch    only fetch the broker jars (the e2e harness runs brokers of its own)
#
# Jars come from Maven Central through deploy/local/kafka/pom.xml (cached in ~/.m2 and in
# .local/kafka/libs). Listeners: PLAINTEXT 127.0.0.1:9092, CONTROLLER 127.0.0.1:9093.
# Topics: the well-known croupier.* topics and their .dlq topics are created at start;
# auto-creation stays on for anything else (tests create their own unique topics explicitly).
# Environment: KAFKA_START_TIMEOUT (seconds, default 90), KAFKA_HEAP (default 768m).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
state="$root/.local/kafka"
libs="$state/libs"
pidfile="$state/kafka.pid"
logfile="$state/kafka.log"
props="$state/server.properties"
python="$root/.venv/bin/python"
bootstrap="127.0.0.1:9092"
broker_port=9092
controller_port=9093
start_timeout="${KAFKA_START_TIMEOUT:-90}"
heap="${KAFKA_HEAP:-768m}"

log() { echo "kafka.sh: $*" >&2; }

# The pid of our running broker, or nothing. Checks the command line so a recycled pid is not mistaken.
running_pid() {
  [[ -f "$pidfile" ]] || return 1
  local pid
  pid="$(cat "$pidfile" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'kafka\.Kafka'; then
    echo "$pid"
    return 0
  fi
  return 1
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

fetch_libs() {
  local stamp="$libs/.pom.sha256" want
  want="$(sha256sum "$here/kafka/pom.xml" | cut -d' ' -f1)"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    return 0
  fi
  command -v mvn >/dev/null || { log "mvn not found (apt-get install -y maven)"; exit 1; }
  command -v java >/dev/null || { log "java not found (Kafka 4 needs Java 17+: apt-get install -y openjdk-17-jre-headless)"; exit 1; }
  log "fetching the Kafka broker jars from Maven Central (first time only)..."
  rm -rf "$libs" "$libs.tmp"
  mkdir -p "$state"
  if ! mvn -q -B -Dstyle.color=never -f "$here/kafka/pom.xml" dependency:copy-dependencies \
      -DoutputDirectory="$libs.tmp" -DincludeScope=runtime >"$state/mvn.log" 2>&1; then
    log "mvn could not fetch the broker jars:"
    cat "$state/mvn.log" >&2
    exit 1
  fi
  rm -rf "$here/kafka/target"
  mv "$libs.tmp" "$libs"
  echo "$want" >"$stamp"
}

write_properties() {
  local data="$1"
  cat >"$props" <<PROPS
# Written by deploy/local/kafka.sh; regenerated at every start.
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:$controller_port
listeners=PLAINTEXT://127.0.0.1:$broker_port,CONTROLLER://127.0.0.1:$controller_port
advertised.listeners=PLAINTEXT://127.0.0.1:$broker_port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$data
num.partitions=3
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=5
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
PROPS
}

start() {
  local pid
  if pid="$(running_pid)"; then
    log "already running (pid $pid) on $bootstrap"
    return 0
  fi
  for port in $broker_port $controller_port; do
    if port_in_use "$port"; then
      log "port $port is already in use by another process; stop it first (a Docker broker? deploy/local/compose.yaml)"
      exit 1
    fi
  done
  [[ -x "$python" ]] || { log "$python missing: run 'make venv' first"; exit 1; }
  fetch_libs
  rm -rf "$state"/data.*
  local data cluster_id
  data="$(mktemp -d "$state/data.XXXXXX")"
  write_properties "$data"
  # Passed as --cluster-id=ID: a URL-safe base64 id may start with "-" (1 in 64), which
  # the tool's argument parser would take for an option after a bare -t.
  cluster_id="$("$python" -c 'import base64, uuid; print(base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("="))')"
  : >"$logfile"
  local java_opts=(-Xms256m "-Xmx$heap" -Djava.awt.headless=true
    "-Dlog4j2.configurationFile=$here/kafka/log4j2.properties")
  # The one-shot format step starts fast with the first JIT tier only; the broker runs as
  # Kafka's own scripts run it (G1 aiming at 20 ms pauses, fully compiled code): its
  # response time is the floor of every table command's latency.
  local broker_opts=(-XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35
    -XX:+ExplicitGCInvokesConcurrent)
  if ! java "${java_opts[@]}" -XX:TieredStopAtLevel=1 -cp "$libs/*" kafka.tools.StorageTool format \
      --cluster-id="$cluster_id" -c "$props" --standalone >>"$logfile" 2>&1; then
    log "formatting the storage failed; log tail:"
    tail -n 40 "$logfile" >&2
    exit 1
  fi
  # Own session (setsid): an interrupt in the starting terminal does not kill the broker half-way;
  # `stop` ends it. The inner shell writes its pid and then becomes the JVM (exec).
  setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' _ "$pidfile" \
    java "${java_opts[@]}" "${broker_opts[@]}" -cp "$libs/*" kafka.Kafka "$props" >>"$logfile" 2>&1 </dev/null &
  local waited=0
  while [[ ! -s "$pidfile" && $waited -lt 50 ]]; do sleep 0.1; waited=$((waited + 1)); done
  pid="$(cat "$pidfile")"
  if ! "$python" "$here/kafka_admin.py" ready --bootstrap "$bootstrap" --timeout "$start_timeout" --pid "$pid"; then
    log "the broker did not become ready; log tail ($logfile):"
    tail -n 60 "$logfile" >&2
    stop_broker
    exit 1
  fi
  if ! "$python" "$here/kafka_admin.py" topics --bootstrap "$bootstrap"; then
    log "topic creation failed; log tail ($logfile):"
    tail -n 40 "$logfile" >&2
    stop_broker
    exit 1
  fi
  log "running (pid $pid) on $bootstrap; log $logfile"
}

stop_broker() {
  local pid
  if pid="$(running_pid)"; then
    kill -TERM "$pid" 2>/dev/null || true
    local waited=0
    while kill -0 "$pid" 2>/dev/null && [[ $waited -lt 300 ]]; do sleep 0.1; waited=$((waited + 1)); done
    if kill -0 "$pid" 2>/dev/null; then
      log "broker $pid did not stop within 30 s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
      while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    fi
    log "stopped (pid $pid)"
  else
    log "not running"
  fi
  rm -f "$pidfile"
  rm -rf "$state"/data.*
}

status() {
  local pid
  if pid="$(running_pid)"; then
    echo "kafka running (pid $pid) on $bootstrap"
    return 0
  fi
  echo "kafka not running"
  return 3
}

case "${1:-}" in
  start) start ;;
  stop) stop_broker ;;
  status) status ;;
  fetch) fetch_libs ;;
  *) echo "usage: $0 start|stop|status|fetch" >&2; exit 2 ;;
esac
