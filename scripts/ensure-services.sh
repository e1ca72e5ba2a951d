#!/usr/bin/env bash
# Checks that PostgreSQL (127.0.0.1:5432) and Redis (127.0.0.1:6379) answer, starting either if it
# has stopped, and fails loudly when one still does not answer.
set -uo pipefail

pg_ok() { pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; }
redis_ok() { [ "$(redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null)" = "PONG" ]; }

if ! pg_ok; then
  echo "ensure-services: PostgreSQL is not answering; starting it" >&2
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start || true
fi
if ! redis_ok; then
  echo "ensure-services: Redis is not answering; starting it" >&2
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
fi

for _ in $(seq 1 30); do
  if pg_ok && redis_ok; then
    echo "ensure-services: PostgreSQL and Redis answer"
    exit 0
  fi
  sleep 1
done
pg_ok || echo "ensure-services: PostgreSQL at 127.0.0.1:5432 does not answer" >&2
redis_ok || echo "ensure-services: Redis at 127.0.0.1:6379 does not answer" >&2
exit 1
