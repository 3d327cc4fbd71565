#!/bin/sh
# Writes secrets.env for the dev overlay's secretGenerator, once: random passwords for its
# Postgres and Redis and a random JWT_SECRET. Delete it (and the namespace) to start over.
set -eu
cd "$(dirname "$0")"
if [ -e secrets.env ]; then
  echo "init-secrets: secrets.env exists; keeping it" >&2
  exit 0
fi
# Letters and digits only: they go into connection URLs unescaped.
secret() { LC_ALL=C tr -dc 'A-Za-z0-9' </dev/urandom | head -c "$1"; }
umask 077
postgres=$(secret 32)
redis=$(secret 32)
cat >secrets.env.tmp <<ENV
POSTGRES_PASSWORD=$postgres
REDIS_PASSWORD=$redis
DATABASE_URL=postgresql://game:$postgres@postgres:5432/game
REDIS_URL=redis://:$redis@redis:6379
JWT_SECRET=$(secret 48)
ENV
mv secrets.env.tmp secrets.env
echo "init-secrets: wrote $(pwd)/secrets.env"
