#!/usr/bin/env bash
# docker-compose.yml, run as written, in CI: Debian's docker-compose 1.29 against podman's
# Docker-compatible API (podman system service), then the README walkthrough
# (scripts/walkthrough.ts) against the published gateway, with one service container killed
# hard half-way and brought back.
#
#   bash scripts/ci/compose.sh
#
# - The service image is the Dockerfile built by podman (scripts/ci/podman/lib.sh), tagged as the
#   name the compose file uses (dfc/service:local); compose runs with --no-build.
# - mongo:7.0 and rabbitmq:3.13-management are pulled when a registry answers. Where none does,
#   scripts/ci/compose/docker-compose.ci.yml replaces those two images (and nothing else) with
#   stand-ins built from Debian packages (scripts/ci/podman/standins.sh).
# - podman runs healthchecks from systemd timers, which this machine lacks: a loop here runs
#   `podman healthcheck run` at each container's interval (every 2 s while it is starting), so
#   depends_on's service_healthy conditions are exercised as written, restarts included.
# - The example receiver runs in webhook-service's network namespace (docker-compose.yml lets it
#   deliver to loopback there); mid-way, flight-request-service's main process gets SIGKILL and
#   the walkthrough goes on once the container is back and healthy. Every webhook must still
#   arrive once.
# - Whatever happens: each container's state is printed, a failing container's log too, and the
#   project (containers, networks, volumes) and the podman service are removed. A run also
#   removes what an earlier, interrupted one left.
#
# Project dfc-ci; the gateway on 127.0.0.1:8080; podman's socket and logs in .data/compose/.
# Environment: COMPOSE_STANDINS=auto|always|never (auto: stand-ins when the pull fails),
# COMPOSE_UP_TIMEOUT (seconds, 900).
set -euo pipefail

ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
PROJECT=dfc-ci
WORK="$ROOT/.data/compose"
SOCK="$WORK/podman.sock"
GATEWAY_URL=http://127.0.0.1:8080
RECEIVER=dfc-ci-receiver
CRASH_SERVICE=flight-request-service
STANDINS="${COMPOSE_STANDINS:-auto}"
UP_TIMEOUT="${COMPOSE_UP_TIMEOUT:-900}"

log() { printf '[compose] %s\n' "$*" >&2; }
die() { printf '[compose] ERROR: %s\n' "$*" >&2; exit 1; }

source "$ROOT/scripts/ci/podman/lib.sh"
source "$ROOT/scripts/ci/podman/standins.sh"

export DOCKER_HOST="unix://$SOCK"
COMPOSE_FILES=(-f "$ROOT/docker-compose.yml")
compose() { docker-compose --ansi never -p "$PROJECT" "${COMPOSE_FILES[@]}" "$@"; }
compose_timeout() { local secs="$1"; shift; timeout "$secs" docker-compose --ansi never -p "$PROJECT" "${COMPOSE_FILES[@]}" "$@"; }
api() { curl -sf --unix-socket "$SOCK" "$@"; }
label() { echo "label=com.docker.compose.$1"; }
project_containers() { podman ps -a --filter "$(label project)=$PROJECT" --format '{{.Names}}' | sort; }
service_container() { podman ps -a --filter "$(label project)=$PROJECT" --filter "$(label service)=$1" --format '{{.Names}}' | head -n 1; }
health() { podman inspect -f '{{.State.Health.Status}}' "$1" 2>/dev/null; }

# ------------------------------------------------------------------ healthchecks --
# Runs each running healthchecked container's check at its interval, every 2 s while it is
# starting and still in its start period (failures there do not count), and at once after a
# (re)start; each in the background, one at a time per container, so a slow check (the broker's
# CLI takes seconds) holds up no other. podman records the results as the health state compose
# reads; the loop logs them to .data/compose/health-loop.log.
health_loop() {
  set +e
  local -A next seen inflight
  local now name status started interval start_period
  while kill -0 "$$" 2>/dev/null; do # ends with this script, however that ends
    now="$(date +%s)"
    while read -r name status started interval start_period; do
      [[ -n "$name" && -n "$status" && -n "$interval" ]] || continue
      if [[ "${seen[$name]:-}" != "$started" ]]; then seen[$name]="$started" next[$name]=0; fi
      [[ -n "${inflight[$name]:-}" ]] && kill -0 "${inflight[$name]}" 2>/dev/null && continue
      ((now >= ${next[$name]:-0})) || continue
      health_check_once "$name" &
      inflight[$name]=$!
      interval="${interval%.*}"; start_period="${start_period%.*}"
      if [[ "$status" != healthy ]] && ((now - started < start_period)); then
        next[$name]=$((now + 2))
      else
        next[$name]=$((now + (interval > 1 ? interval : 1)))
      fi
    done < <(podman ps --filter "$(label project)=$PROJECT" --format '{{.Names}}' | xargs -r podman inspect -f \
      '{{.Name}} {{.State.Health.Status}} {{.State.StartedAt.Unix}} {{if .Config.Healthcheck}}{{.Config.Healthcheck.Interval.Seconds}} {{.Config.Healthcheck.StartPeriod.Seconds}}{{end}}' 2>/dev/null)
    sleep 1
  done
}

health_check_once() {
  local t0=$SECONDS rc=0
  timeout 120 podman healthcheck run "$1" >/dev/null 2>&1 || rc=$?
  printf '%s %s exit %s in %ss: %s\n' "$(date +%T)" "$1" "$rc" "$((SECONDS - t0))" "$(health "$1")" >>"$WORK/health-loop.log"
}

# ------------------------------------------------------- the mid-way crash (a mode) --
# WALKTHROUGH_MIDWAY runs `compose.sh crash SERVICE`: SIGKILL to the container's main process,
# as a crash would; the restart policy (unless-stopped) brings it back when podman honours it
# without systemd, else podman start does (and says so); done when it is healthy again.
crash_and_recover() {
  local service="$1" name pid restarts state i
  name="$(service_container "$service")"
  [[ -n "$name" ]] || die "no container for $service"
  pid="$(podman inspect -f '{{.State.Pid}}' "$name")"
  restarts="$(podman inspect -f '{{.RestartCount}}' "$name")"
  ((pid > 0)) || die "$name is not running"
  log "crash: kill -9 $pid, the main process of $name ($(podman inspect -f '{{.HostConfig.RestartPolicy.Name}}' "$name"), $restarts restarts so far)"
  kill -9 "$pid"
  for ((i = 0; i < 30; i++)); do
    sleep 1
    state="$(podman inspect -f '{{.State.Status}} {{.State.Pid}} {{.RestartCount}}' "$name")"
    read -r status newpid count <<<"$state"
    if [[ "$status" == running && "$newpid" != "$pid" && "$newpid" != 0 ]]; then
      log "crash: podman restarted $name by its restart policy within $((i + 1)) s (restart count $count)"
      break
    fi
  done
  if [[ "$status" != running || "$newpid" == "$pid" ]]; then
    log "crash: $name is '$status' after 30 s: podman did not apply the restart policy; podman start $name"
    podman start "$name" >/dev/null || die "podman start $name failed"
  fi
  # podman resets the health state to starting on a restart: its check runs here until it passes.
  log "crash: health after the restart: $(health "$name"); running its healthcheck until it passes"
  for ((i = 0; i < 90; i++)); do
    timeout 60 podman healthcheck run "$name" >/dev/null 2>&1 && break
    sleep 2
  done
  [[ "$(health "$name")" == healthy ]] || die "$name did not become healthy again within 180 s ($(health "$name"))"
  log "crash: $name is healthy again after $i failed checks; the walkthrough goes on"
}

if [[ "${1:-}" == crash ]]; then
  crash_and_recover "${2:-$CRASH_SERVICE}"
  exit 0
fi

# ------------------------------------------------------------------ lifecycle --
SERVICE_PID=""
HEALTH_PID=""

start_podman_service() {
  mkdir -p "$WORK"
  # A service an interrupted run of this script left (its pid file, its socket).
  if [[ -f "$WORK/podman-service.pid" ]]; then
    local old
    old="$(cat "$WORK/podman-service.pid")"
    if [[ "$(tr '\0' ' ' <"/proc/$old/cmdline" 2>/dev/null)" == *"system service"*"$SOCK"* ]]; then
      log "stopping the podman service an earlier run left (pid $old)"
      kill "$old" 2>/dev/null || true
      sleep 1
    fi
  fi
  rm -f "$SOCK"
  podman system service --time=0 "unix://$SOCK" >"$WORK/podman-service.log" 2>&1 &
  SERVICE_PID=$!
  echo "$SERVICE_PID" >"$WORK/podman-service.pid"
  local i
  for ((i = 0; i < 60; i++)); do
    [[ "$(api http://d/_ping 2>/dev/null)" == OK ]] && { log "podman system service on $DOCKER_HOST (pid $SERVICE_PID)"; return 0; }
    kill -0 "$SERVICE_PID" 2>/dev/null || break
    sleep 0.5
  done
  tail -n 20 "$WORK/podman-service.log" >&2
  die "podman system service did not answer on $SOCK"
}

remove_project() {
  podman rm -f -t 0 "$RECEIVER" >/dev/null 2>&1 || true
  if [[ -S "$SOCK" ]]; then
    timeout 300 docker-compose --ansi never -p "$PROJECT" -f "$ROOT/docker-compose.yml" down -v --remove-orphans -t 10 >"$WORK/down.log" 2>&1 \
      || { log "docker-compose down failed:"; tail -n 20 "$WORK/down.log" >&2; }
  fi
  # What compose could not remove (or a run without the service left): by the project's label.
  podman ps -a -q --filter "$(label project)=$PROJECT" | xargs -r podman rm -f -t 0 >/dev/null 2>&1 || true
  podman volume ls -q --filter "$(label project)=$PROJECT" | xargs -r podman volume rm -f >/dev/null 2>&1 || true
  podman network ls -q --filter "$(label project)=$PROJECT" | xargs -r podman network rm -f >/dev/null 2>&1 || true
}

print_states() {
  local name
  log "containers of $PROJECT:"
  for name in $(project_containers); do
    podman inspect -f '  {{printf "%-36s" .Name}} {{.State.Status}} (exit {{.State.ExitCode}}) health={{if .State.Health.Status}}{{.State.Health.Status}}{{else}}-{{end}} restarts={{.RestartCount}}' "$name" >&2 || true
  done
}

# The containers to show the logs of: not running (a one-shot not exited 0) or not healthy;
# all of them when none stands out.
print_failing_logs() {
  local name status code hc shown=0
  for name in $(project_containers); do
    read -r status code hc <<<"$(podman inspect -f '{{.State.Status}} {{.State.ExitCode}} {{.State.Health.Status}}' "$name" 2>/dev/null)"
    if [[ "$status" == running && ( -z "$hc" || "$hc" == healthy ) ]] || [[ "$status" == exited && "$code" == 0 ]]; then continue; fi
    log "--- logs of $name ($status, exit $code, health ${hc:--}) ---"
    podman logs --tail 80 "$name" >&2 2>&1 || true
    if [[ -n "$hc" && "$hc" != healthy ]]; then
      log "--- its last healthcheck ---"
      podman inspect -f '{{range .State.Health.Log}}{{.End}} exit {{.ExitCode}}: {{.Output}}{{"\n"}}{{end}}' "$name" 2>/dev/null | tail -n 3 >&2 || true
    fi
    shown=1
  done
  if ((!shown)); then
    for name in $(project_containers); do
      log "--- logs of $name (last 40 lines) ---"
      podman logs --tail 40 "$name" >&2 2>&1 || true
    done
  fi
}

finish() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  if [[ -n "$SERVICE_PID" ]]; then
    print_states
    if ((rc != 0)); then
      print_failing_logs
      log "--- the healthcheck loop's last runs ($WORK/health-loop.log) ---"
      tail -n 15 "$WORK/health-loop.log" >&2 2>/dev/null || true
    fi
    log "tearing down: docker-compose down -v"
  fi
  [[ -n "$HEALTH_PID" ]] && kill "$HEALTH_PID" 2>/dev/null && wait "$HEALTH_PID" 2>/dev/null
  remove_project
  if [[ -n "$SERVICE_PID" ]]; then
    kill "$SERVICE_PID" 2>/dev/null && wait "$SERVICE_PID" 2>/dev/null
    rm -f "$SOCK" "$WORK/podman-service.pid"
  fi
  if ((rc == 0)); then log "passed"; else log "FAILED (exit $rc)"; fi
  exit "$rc"
}

# ------------------------------------------------------------------------ run --
START=$SECONDS
podman_setup
command -v curl >/dev/null 2>&1 || die "curl is needed"
[[ -x "$ROOT/node_modules/.bin/tsx" ]] || die "run npm ci first (the walkthrough and the example receiver use tsx)"
trap finish EXIT
trap 'exit 130' INT TERM
start_podman_service
remove_project

# The service image, as the compose file names it; tagged through the Docker API so the name is
# whatever that API makes of dfc/service:local.
build_service_image
app_image="$(compose config | python3 -c 'import sys, yaml; print(yaml.safe_load(sys.stdin)["services"]["gateway"]["image"])')"
api -X POST "http://d/v1.41/images/$(printf '%s' "$SERVICE_IMAGE" | sed 's|/|%2F|g')/tag?repo=${app_image%:*}&tag=${app_image##*:}" >/dev/null \
  || die "tagging $SERVICE_IMAGE as $app_image failed"
log "$SERVICE_IMAGE tagged as $app_image"

# The database and the broker: the compose file's images, or the stand-ins.
mapfile -t data_images < <(compose config | python3 -c 'import sys, yaml; s = yaml.safe_load(sys.stdin)["services"]; print(s["mongo"]["image"]); print(s["rabbitmq"]["image"])')
use_standins=0
case "$STANDINS" in
  always) use_standins=1 ;;
  never) ;;
  auto)
    compose_timeout 180 pull -q mongo rabbitmq >"$WORK/pull.log" 2>&1 || true
    for image in "${data_images[@]}"; do
      api "http://d/v1.41/images/$image/json" >/dev/null || use_standins=1
    done
    ((use_standins)) && log "${data_images[*]} cannot be pulled: stand-ins from Debian packages instead"
    ;;
  *) die "COMPOSE_STANDINS must be auto, always or never" ;;
esac
if ((use_standins)); then
  build_standin_images
  COMPOSE_FILES+=(-f "$ROOT/scripts/ci/compose/docker-compose.ci.yml")
fi

: >"$WORK/health-loop.log"
health_loop &
HEALTH_PID=$!

log "docker-compose up -d (project $PROJECT)"
up_started=$SECONDS
compose_timeout "$UP_TIMEOUT" up -d --no-build 2>&1 | sed 's/^/  /' >&2 \
  || die "docker-compose up failed after $((SECONDS - up_started)) s"
for ((i = 0; i < 300; i++)); do
  curl -sf -o /dev/null --max-time 5 "$GATEWAY_URL/readyz" && break
  sleep 1
done
curl -sf -o /dev/null --max-time 5 "$GATEWAY_URL/readyz" || die "the gateway does not answer $GATEWAY_URL/readyz"
log "the gateway is ready on $GATEWAY_URL $((SECONDS - up_started)) s after docker-compose up"

webhook_container="$(service_container webhook-service)"
node_image="$(node_base_image)"
export GATEWAY_URL
export WALKTHROUGH_RECEIVER="podman run --rm --name $RECEIVER --network container:$webhook_container -v $ROOT:/src:ro -w /src -e WEBHOOK_SECRET -e PORT $node_image node node_modules/.bin/tsx examples/webhook-receiver/server.ts"
export WALKTHROUGH_MIDWAY="bash $ROOT/scripts/ci/compose.sh crash $CRASH_SERVICE"
log "the walkthrough against $GATEWAY_URL (receiver in $webhook_container's network namespace; mid-way $CRASH_SERVICE crashes)"
"$ROOT/node_modules/.bin/tsx" "$ROOT/scripts/walkthrough.ts" || die "the walkthrough failed"

# Nothing may have died meanwhile: every long-running container running and healthy.
for name in $(project_containers); do
  read -r status code <<<"$(podman inspect -f '{{.State.Status}} {{.State.ExitCode}}' "$name")"
  hc="$(health "$name")"
  case "$(podman inspect -f '{{index .Config.Labels "com.docker.compose.service"}}' "$name")" in
    keys | migrate) [[ "$status" == exited && "$code" == 0 ]] || die "$name: $status (exit $code)" ;;
    *) [[ "$status" == running && "$hc" == healthy ]] || die "$name: $status, health $hc" ;;
  esac
done
log "all containers as expected; $((SECONDS - START)) s in all"
