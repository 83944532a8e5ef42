#!/usr/bin/env bash
# Stand-ins for the database and broker images where a registry cannot be pulled from, built
# from Debian packages on the locally made Debian base (lib.sh's node_base_image). Source it
# after setting ROOT (log/die are defined unless the caller has); then:
#
#   build_standin_images    builds, or finds already built, and tags
#     $MONGO_STANDIN_IMAGE     localhost/dfc/mongo-standin:ci     FerretDB (scripts/stack.sh
#                              builds it) on PostgreSQL 15; answers hello as the primary of
#                              replica set $FERRETDB_REPL_SET_NAME (rs0) at $FERRETDB_LISTEN_ADDR
#                              (mongo:27017, the name clients use); data in /data/db; takes
#                              mongod's --replSet/--port; health: mongo-standin-healthcheck
#     $RABBITMQ_STANDIN_IMAGE  localhost/dfc/rabbitmq-standin:ci  Debian's rabbitmq-server,
#                              guest allowed from other hosts, data in /var/lib/rabbitmq, node
#                              rabbit@<hostname>; health: rabbitmq-diagnostics -q check_port_connectivity
#
# Each is also tagged with a hash of its inputs (Containerfile folder, FerretDB's version and the
# SQL it applies, the base image's id); a run whose hash already has an image builds nothing.
# They stay in podman's storage only: a build takes half a minute, an archive would be ~1 GB.
# Containerfiles: scripts/ci/podman/standins/{mongo,rabbitmq}/.

MONGO_STANDIN_IMAGE=localhost/dfc/mongo-standin:ci
RABBITMQ_STANDIN_IMAGE=localhost/dfc/rabbitmq-standin:ci
STANDINS_DIR="$ROOT/scripts/ci/podman/standins"

declare -F log >/dev/null || log() { printf '[standins] %s\n' "$*" >&2; }
declare -F die >/dev/null || die() { printf '[standins] ERROR: %s\n' "$*" >&2; exit 1; }
declare -F node_base_image >/dev/null || source "$ROOT/scripts/ci/podman/lib.sh"

build_standin_images() {
  podman_setup
  local base base_id ferretdb_version
  base="$(node_base_image)" || die "no Debian base image"
  base_id="$(podman image inspect --format '{{.Id}}' "$base")" || die "cannot inspect $base"
  ferretdb_version="$(bash "$ROOT/scripts/stack.sh" ferretdb-version)"
  (
    # Another script may build them at the same time (compose.sh, the Kubernetes run).
    exec 8>"$IMAGES_DIR/standins.lock"
    flock -w 1800 8 || die "timed out waiting for $IMAGES_DIR/standins.lock"
    build_standin mongo "$MONGO_STANDIN_IMAGE" "$base" \
      "$(standin_inputs_hash mongo "$base_id" "ferretdb $ferretdb_version" "$ROOT/scripts/local-engine/equality-indexes.sql")"
    build_standin rabbitmq "$RABBITMQ_STANDIN_IMAGE" "$base" "$(standin_inputs_hash rabbitmq "$base_id")"
  ) || exit 1
}

# name base-id [extra words and files ...]: a hash of everything the image is made of.
standin_inputs_hash() {
  local name="$1" base_id="$2" input
  shift 2
  {
    echo "base $base_id"
    (cd "$STANDINS_DIR/$name" && find . -type f | LC_ALL=C sort | xargs sha256sum)
    for input in "$@"; do
      if [[ -f "$input" ]]; then sha256sum <"$input"; else echo "$input"; fi
    done
  } | sha256sum | cut -c1-16
}

build_standin() {
  local name="$1" image="$2" base="$3" hash="$4" repo tagged work
  repo="${image%:*}"
  tagged="$repo:$hash"
  if ! podman image exists "$tagged"; then
    log "building the $name stand-in $tagged (Debian packages on $base)"
    work="$(mktemp -d)"
    cp -R "$STANDINS_DIR/$name/." "$work/"
    if [[ "$name" == mongo ]]; then
      local ferretdb
      ferretdb="$(bash "$ROOT/scripts/stack.sh" ferretdb-bin)" || die "could not build FerretDB (scripts/stack.sh ferretdb-bin)"
      cp "$ferretdb" "$work/ferretdb"
      cp "$ROOT/scripts/local-engine/equality-indexes.sql" "$work/"
    fi
    podman build -q --layers --build-arg "BASE=$base" -t "$tagged" -f "$work/Containerfile" "$work" >"$work/build.log" 2>&1 \
      || { tail -n 30 "$work/build.log" >&2; rm -rf "$work"; die "podman build of the $name stand-in failed"; }
    rm -rf "$work"
    log "built $tagged ($(podman image inspect --format '{{.Size}}' "$tagged" | numfmt --to=iec --suffix=B))"
  fi
  podman tag "$tagged" "$image" || die "podman tag $tagged $image failed"
  # Older builds' hash tags go; an image a container still uses stays (untag only).
  podman images --format '{{.Repository}}:{{.Tag}}' --filter "reference=$repo" \
    | grep -vxF -e "$tagged" -e "$image" -e "$repo:<none>" | xargs -r -I{} podman untag {} {} >/dev/null 2>&1 || true
}
