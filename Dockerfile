# The game backend as a container image: the launcher (server/cli/start.mjs: workers, drain on
# SIGTERM, the schema check) on Node 24, as a non-root user, under tini.
#
#   docker build -t game-backend .
#   docker run --rm -e DATABASE_URL=… game-backend migrate
#   docker run -e DATABASE_URL=… -e JWT_SECRET=… -e REDIS_URL=… -p 3000:3000 game-backend
#
# BASE picks the base image: the public node:24-slim by default. Where no image registry is
# reachable, deploy/container/base.sh makes one from debootstrap and Node from the npm registry
# (`--build-arg BASE=game-backend-base:bookworm-node24`).
ARG BASE=node:24-slim

# ---- build: every dependency, the production build, then only the files the server runs.
FROM ${BASE} AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
# Dependencies before sources, so a change to the sources alone reuses this layer. Install
# scripts wait for the sources (the postinstall generates the Prisma client and builds the SDK
# from them); argon2's needs none here, it ships a prebuilt binary for this platform.
COPY package.json package-lock.json ./
COPY sdk/package.json sdk/
RUN npm install --no-audit --no-fund --ignore-scripts
COPY . .
RUN npm run postinstall \
 && npm run build \
 && node deploy/container/runtime-files.mjs /runtime

# ---- run: the base, tini, and the runtime files; no compilers, dev dependencies or secrets.
FROM ${BASE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log \
 && echo 'gamebackend:x:10001:10001:game backend:/app:/usr/sbin/nologin' >>/etc/passwd \
 && echo 'gamebackend:x:10001:' >>/etc/group \
 && mkdir -p /data && chown 10001:10001 /data
WORKDIR /app
# Owned by root, read-only to the server: it writes only to DATA_DIR.
COPY --from=build /runtime/ /app/
COPY deploy/container/entrypoint.sh /usr/local/bin/game-backend
# MIGRATIONS=check: an instance never changes the schema; `migrate` (the same image) does, first.
ENV DATA_DIR=/data \
    MIGRATIONS=check \
    HOST=0.0.0.0 \
    PORT=3000 \
    NEXT_TELEMETRY_DISABLED=1
USER 10001:10001
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=5s --start-period=120s --retries=3 CMD ["node", "server/cli/healthcheck.mjs"]
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/game-backend"]
CMD ["serve"]
# Last: a new revision or date changes only this metadata, not the layers above.
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG CREATED=unknown
LABEL org.opencontainers.image.title="game-backend" \
      org.opencontainers.image.description="Self-hostable game backend: player auth, data, leaderboards, economy, store receipts, dashboard" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}"
