#!/usr/bin/env bash
# Installs the system packages apnskit builds against and tests with.
# Idempotent: packages already present are left alone. Uses sudo only when not root.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

packages=(
  libssl-dev openssl           # OpenSSL 3: the C API we wrap, and the CLI we interoperate with
  libnghttp2-dev               # nghttp2: HTTP/2 framing for the transport
  nghttp2-client nghttp2-server nghttp2-proxy   # nghttp, nghttpd, nghttpx, h2load: real HTTP/2 peers for tests
  pkg-config                   # SwiftPM finds OpenSSL and nghttp2 through it
  valgrind                     # leak checks
  time                         # /usr/bin/time -v: peak memory of a command in the bounds tests (mock expect's 32 MiB read)
  gcc libc6-dev                 # builds scripts/malloc-count.c, the benchmarks' counting malloc interposer
  man-db                       # `man -l` reads the installed man page in the install.sh test
  libxml2-utils                # xmllint validates check's JUnit XML against the JUnit schema
  python3                      # real parsers in tests (JUnit XML, Prometheus text format); plistlib writes the profile tests' provisioning profiles
  ca-certificates
  curl                         # curl --http2: a third-party client in the conformance suite
  tinyproxy-bin                # a real HTTP CONNECT proxy (with and without basic auth) for the --proxy tests
  # Independent writers of credential files for the corpus (scripts/credential-corpus.py)
  openjdk-17-jdk-headless      # keytool: PKCS12 keystores
  gnutls-bin                   # certtool --to-p12
  libnss3-tools                # pk12util, certutil (NSS)
  python3-pip                  # to install the PyPI packages below
  chromium                     # headless browser: the mock inbox's page test and its screenshot (docs/inbox.png)
  fonts-dejavu-core            # a font for that screenshot (chromium renders boxes without one)
  postgresql                   # the outbox tests' and benchmark's real server (initdb/pg_ctl in a temporary folder) and psql
)

# PyPI packages the tests use as real peers, pinned. Debian's own python3 refuses installs
# into the system (PEP 668) unless told --break-system-packages.
python_packages=(
  cryptography==48.0.0         # the corpus's certificates and its PKCS#12 writer
  prometheus-client==0.26.0    # its text-format parser reads `check --format prometheus`
  # Third-party APNs clients the conformance suite runs against the mock
  # (scripts/conformance/mock_conformance.py); h2 is httpx's HTTP/2 (the [http2] extra).
  aioapns==4.0
  httpx==0.28.1
  h2==4.4.1
  kalyke-apns==1.5.0           # MIT; on httpx2 (brings httpx2, httpcore2, anyio, truststore)
  apns2-up==0.9.0              # MIT; PyAPNs2's maintained fork, on hyper-up's HTTP/2
  hyper-up==0.9.0
)
# mopyapns (MIT, a PyAPNs2 fork on httpx) installs a module named `apns2`, as apns2-up does: it
# goes into a folder of its own, without dependencies (cryptography, httpx[http2] and PyJWT are
# above), and the conformance suite imports it from there.
mopyapns_spec=mopyapns==0.8.0
mopyapns_dir=/opt/apnskit-conformance/mopyapns
ensure_python_packages() {
  local spec name version
  for spec in "${python_packages[@]}"; do
    name="${spec%%==*}"; version="${spec#*==}"
    if [ "$(python_package_version "$name")" = "$version" ]; then continue; fi
    echo "setup: installing Python $spec"
    python3 -m pip install --quiet --disable-pip-version-check "$spec" 2>/dev/null \
      || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages "$spec"
  done
  if [ ! -d "$mopyapns_dir/mopyapns-${mopyapns_spec#*==}.dist-info" ]; then
    echo "setup: installing Python $mopyapns_spec into $mopyapns_dir"
    rm -rf "$mopyapns_dir"
    mkdir -p "$mopyapns_dir"
    python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$mopyapns_dir" "$mopyapns_spec" 2>/dev/null \
      || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages --no-deps --target "$mopyapns_dir" "$mopyapns_spec"
  fi
}

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all system packages present"
  ensure_python_packages
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
ensure_python_packages
echo "setup: done"
