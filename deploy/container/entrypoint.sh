#!/bin/sh
# The image's commands, under tini (PID 1, which passes SIGTERM on and reaps):
#   serve (default)   the launcher: workers, drain on SIGTERM; MIGRATIONS=check refuses a schema
#                     that is not this version's
#   migrate           apply this version's migrations to DATABASE_URL, then exit (0 / 1)
#   healthcheck       GET /api/health/ready on this container (the HEALTHCHECK)
# Anything else runs as given (`docker run IMAGE node -v`).
set -eu
command=${1:-serve}
[ "$#" -gt 0 ] && shift
case "$command" in
  serve)
    # The launcher's embedded Postgres (npm start without DATABASE_URL) is not in the image.
    if [ -z "${DATABASE_URL:-}" ]; then
      echo "DATABASE_URL is not set: the image serves your PostgreSQL (it carries no embedded one); run migrate against it first" >&2
      exit 1
    fi
    exec node server/cli/start.mjs "$@"
    ;;
  migrate) exec node server/cli/migrate.mjs "$@" ;;
  healthcheck) exec node server/cli/healthcheck.mjs "$@" ;;
  *) exec "$command" "$@" ;;
esac
