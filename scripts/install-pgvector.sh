#!/usr/bin/env bash
# Makes the pgvector extension available to the local PostgreSQL server.
#
# Debian 12 ships no pgvector package, so this builds it from the source package of the next
# Debian release (trixie) against postgresql-server-dev-N at the server's own version. Only a
# deb-src line is added (in its own sources file, pinned so that no binary ever comes from
# trixie); nothing else on the machine is upgraded.
#
# Idempotent: when the server already offers the `vector` extension it only makes sure that
# `CREATE EXTENSION vector` works, and exits 0.
#
# Env: PGHOST (127.0.0.1), PGPORT (5432), PGUSER (postgres), PGDATABASE (test).
set -euo pipefail

export PGHOST="${PGHOST:-127.0.0.1}" PGPORT="${PGPORT:-5432}" PGUSER="${PGUSER:-postgres}"
export PGDATABASE="${PGDATABASE:-test}"
export DEBIAN_FRONTEND=noninteractive
APT=(apt-get -y -q -o DPkg::Lock::Timeout=300)
SRC_FILE=/etc/apt/sources.list.d/pgvector-src.sources
PIN_FILE=/etc/apt/preferences.d/pgvector-src

log() { echo "install-pgvector: $*" >&2; }
sql() { psql -X -v ON_ERROR_STOP=1 -Atqc "$1"; }

create_extension() {
  sql "CREATE EXTENSION IF NOT EXISTS vector" >/dev/null
  log "vector $(sql "SELECT extversion FROM pg_extension WHERE extname = 'vector'") is usable in database $PGDATABASE"
}

if [ "$(sql "SELECT count(*) FROM pg_available_extensions WHERE name = 'vector'")" = "1" ]; then
  log "the server already offers the vector extension"
  create_extension
  exit 0
fi

major="$(sql "SELECT current_setting('server_version_num')::int / 10000")"
server_pkg="postgresql-$major"
server_version="$(dpkg-query -W -f='${Version}' "$server_pkg" 2>/dev/null || true)"
if [ -z "$server_version" ]; then
  log "the running server (major $major) was not installed from $server_pkg; cannot match headers"
  exit 1
fi
log "server $server_pkg $server_version"

"${APT[@]}" update
# Headers at exactly the server's version, so the module is built against what it is loaded into.
"${APT[@]}" install --no-install-recommends \
  "postgresql-server-dev-$major=$server_version" build-essential dpkg-dev

if [ ! -f "$SRC_FILE" ]; then
  cat >"$SRC_FILE" <<'EOF'
# Added by scripts/install-pgvector.sh: source packages only (pgvector is not in bookworm).
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
fi
if [ ! -f "$PIN_FILE" ]; then
  cat >"$PIN_FILE" <<'EOF'
# Added by scripts/install-pgvector.sh: never take a binary package from trixie.
Package: *
Pin: release n=trixie
Pin-Priority: -1
EOF
fi
"${APT[@]}" update

work="$(mktemp -d)"
chmod 755 "$work"  # apt-get source downloads as _apt
trap 'rm -rf "$work"' EXIT
cd "$work"
"${APT[@]}" source pgvector
src_dir="$(find . -maxdepth 1 -type d -name 'pgvector-*' | head -n 1)"
[ -n "$src_dir" ] || { log "apt-get source pgvector produced no source tree"; exit 1; }
cd "$src_dir"

pg_config="/usr/lib/postgresql/$major/bin/pg_config"
jobs="$(nproc 2>/dev/null || echo 1)"
# with_llvm=no: skip JIT bitcode, which would need clang; the extension works the same without it.
make -j"$jobs" PG_CONFIG="$pg_config" with_llvm=no OPTFLAGS="" >/dev/null
make PG_CONFIG="$pg_config" with_llvm=no install >/dev/null
log "built and installed $(basename "$src_dir")"

create_extension
