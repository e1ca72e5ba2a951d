#!/usr/bin/env bash
# The inspector's browser tests drive Debian's Chromium through playwright-core (which never
# downloads a browser). Installs it with apt when it is missing; fails loudly when it cannot.
set -uo pipefail

found() { command -v chromium >/dev/null 2>&1 || [ -x "${CHROMIUM_PATH:-/nonexistent}" ]; }

if found; then
  echo "ensure-chromium: $(command -v chromium || echo "$CHROMIUM_PATH") is there"
  exit 0
fi
echo "ensure-chromium: Chromium is missing; installing it from Debian" >&2
if [ "$(id -u)" = "0" ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
  sudo -n apt-get update -qq && sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
found || { echo "ensure-chromium: Chromium could not be installed (apt-get install chromium)" >&2; exit 1; }
echo "ensure-chromium: installed $(command -v chromium)"
