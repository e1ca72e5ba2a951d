#!/usr/bin/env bash
# Runs the test suite on another Node version — by default the image's (the Dockerfile's
# NODE_VERSION, the current LTS) — in a clean copy of the work tree with its own `npm ci`, so
# native modules are built for that version. Prints vitest's output.
#   bash scripts/test-on-node.sh [VERSION]
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
version="${1:-$(sed -n 's/^ARG NODE_VERSION=//p' "$repo/Dockerfile" | head -n 1)}"
[ -n "$version" ] || { echo "test-on-node: no version given and no ARG NODE_VERSION in the Dockerfile" >&2; exit 1; }
node_dir="$(bash "$repo/scripts/node-runtime.sh" "$version")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$repo" && git ls-files -co --exclude-standard -z | xargs -0 -I{} cp --parents {} "$work" 2>/dev/null || true)
cd "$work"
export PATH="$node_dir/bin:$PATH" npm_config_nodedir="$node_dir"
echo "test-on-node: node $(node --version), npm $(npm --version), in $work"
npm ci --no-audit --no-fund
npm test
