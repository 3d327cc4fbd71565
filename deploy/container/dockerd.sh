#!/usr/bin/env bash
# Makes sure a Docker daemon answers: when none does, starts Debian's dockerd in the background
# and waits for it. It leaves the host's network alone (no iptables rules, no NAT, no bridge):
# builds and containers use --network host.
set -euo pipefail

if docker info >/dev/null 2>&1; then exit 0; fi
if ! command -v dockerd >/dev/null 2>&1; then
  echo "dockerd is not installed (Debian: apt-get install -y docker.io)" >&2
  exit 1
fi
log=${DOCKERD_LOG:-/var/log/dockerd.log}
echo "starting dockerd (log: $log)"
# Its own session: it outlives this script and whatever process group ran it.
setsid -f dockerd --iptables=false --ip-masq=false --bridge=none >>"$log" 2>&1 </dev/null
for _ in $(seq 1 300); do
  if docker info >/dev/null 2>&1; then exit 0; fi
  sleep 0.2
done
echo "dockerd did not answer within 60 s; see $log" >&2
exit 1
