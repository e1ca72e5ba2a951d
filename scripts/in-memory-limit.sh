#!/usr/bin/env bash
# Runs a command under a memory limit, as a container with `--memory` runs it (Cloud Run's
# --memory 512Mi): in a memory cgroup of its own (v2, else v1), so that Node sizes V8's heap from
# the limit (about half of it) and the service's RECALL_CACHE_MAX_RSS_MB default reads it. Needs
# root and a writable cgroup hierarchy; removes the cgroup afterwards. Memory figures measured on a
# machine without a limit let V8 size its heap from the whole machine (24 GB here).
#   bash scripts/in-memory-limit.sh 512 node --import tsx bench/recall-users.ts --users 10000
set -euo pipefail
mb="${1:?usage: in-memory-limit.sh MiB command...}"
shift
[ "$#" -gt 0 ] || { echo "in-memory-limit: no command given" >&2; exit 1; }
name="memory-graph-limit-$$"
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
  group="/sys/fs/cgroup/$name"
  mkdir "$group"
  echo "$((mb * 1024 * 1024))" > "$group/memory.max"
else
  group="/sys/fs/cgroup/memory/$name"
  mkdir "$group"
  echo "$((mb * 1024 * 1024))" > "$group/memory.limit_in_bytes"
fi
status=0
sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$group" "$@" || status=$?
rmdir "$group" 2>/dev/null || true
exit "$status"
