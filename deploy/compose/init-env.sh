#!/bin/sh
# Writes .env beside docker-compose.yml with random secrets, once. Postgres keeps the password
# it was first started with (in its volume), so an existing .env is never replaced: remove it
# and the volumes (docker compose down -v) to start over.
set -eu
cd "$(dirname "$0")"
if [ -e .env ]; then
  echo "init-env: .env exists; keeping it (its POSTGRES_PASSWORD is the one in the postgres-data volume)" >&2
  exit 0
fi
# Letters and digits only: they go into connection URLs unescaped.
secret() { LC_ALL=C tr -dc 'A-Za-z0-9' </dev/urandom | head -c "$1"; }
umask 077
cat >.env.tmp <<ENV
POSTGRES_PASSWORD=$(secret 32)
REDIS_PASSWORD=$(secret 32)
JWT_SECRET=$(secret 48)
METRICS_TOKEN=$(secret 32)
HTTP_PORT=${HTTP_PORT:-8080}
PUBLIC_URL=${PUBLIC_URL:-http://localhost:${HTTP_PORT:-8080}}
ENV
mv .env.tmp .env
echo "init-env: wrote $(pwd)/.env (keep it private; docker compose reads it from this folder)"
