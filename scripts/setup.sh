#!/usr/bin/env bash
# Installs the system packages apnskit builds against and tests with.
# Idempotent: packages already present are left alone. Uses sudo only when not root.
set -euo pipefail

packages=(
  libssl-dev openssl           # OpenSSL 3: the C API we wrap, and the CLI we interoperate with
  libnghttp2-dev               # nghttp2: HTTP/2 framing for the transport
  nghttp2-client nghttp2-server nghttp2-proxy   # nghttp, nghttpd, nghttpx, h2load: real HTTP/2 peers for tests
  pkg-config                   # SwiftPM finds OpenSSL and nghttp2 through it
  valgrind                     # leak checks
  python3                      # pty and ssl peers in tests (passphrase prompt, legacy gateway)
  curl                         # an HTTP/2 client from another loopback address (slots per peer)
  ca-certificates
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all system packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
