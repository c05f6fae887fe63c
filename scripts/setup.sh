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
  ca-certificates
  curl                         # curl --http2: a third-party client in the conformance suite
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# Third-party APNs clients the conformance suite runs against the mock
# (scripts/conformance/mock_conformance.py): pinned, installed with pip, idempotent.
python_clients=(aioapns==4.0 "httpx[http2]==0.28.1")
if ! python3 -c "import aioapns, httpx, h2" 2>/dev/null; then
  echo "setup: pip-installing ${python_clients[*]}"
  python3 -m pip install --quiet "${python_clients[@]}"
fi

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
