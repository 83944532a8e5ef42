# Puts Node 24, the version the image runs, first on this shell's PATH (with its npm and npx), when
# the machine's node is another major version: `source scripts/use-node.sh`. `.ci/run` does the same.
# nvm users can run `nvm use` instead (.nvmrc).
_use_node_root="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)" != "$(cat "$_use_node_root/.node-version")" ]]; then
  if _use_node_bin="$(bash "$_use_node_root/scripts/image-node.sh")"; then
    export PATH="$(dirname -- "$_use_node_bin"):$PATH"
    hash -r
  else
    echo "use-node: Node $(cat "$_use_node_root/.node-version") could not be had; node is still $(node --version 2>/dev/null || echo missing)" >&2
  fi
fi
echo "node $(node --version), npm $(npm --version)"
unset _use_node_root _use_node_bin
