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
  # Independent writers of credential files for the corpus (scripts/credential-corpus.py)
  openjdk-17-jdk-headless      # keytool: PKCS12 keystores
  gnutls-bin                   # certtool --to-p12
  libnss3-tools                # pk12util, certutil (NSS)
  python3-pip                  # to install Python cryptography below
)

# Python cryptography (PyPI, pinned): the corpus's certificates and its PKCS#12 writer.
cryptography_version=48.0.0
ensure_cryptography() {
  if python3 -c "import cryptography, sys; sys.exit(cryptography.__version__ != '$cryptography_version')" 2>/dev/null; then return; fi
  echo "setup: installing Python cryptography==$cryptography_version"
  python3 -m pip install --quiet "cryptography==$cryptography_version" 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages "cryptography==$cryptography_version"
}

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# Third-party APNs clients the conformance suite runs against the mock
# (scripts/conformance/mock_conformance.py): pinned, installed with pip, idempotent.
# Installed together with the corpus's pinned cryptography, so pip picks one consistent set.
ensure_apns_clients() {
  local clients=(aioapns==4.0 "httpx[http2]==0.28.1" "cryptography==$cryptography_version")
  if python3 -c "import aioapns, httpx, h2" 2>/dev/null; then return; fi
  echo "setup: pip-installing ${clients[*]}"
  python3 -m pip install --quiet "${clients[@]}" 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages "${clients[@]}"
}

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all system packages present"
  ensure_cryptography
  ensure_apns_clients
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
ensure_cryptography
ensure_apns_clients
echo "setup: done"
