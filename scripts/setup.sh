#!/usr/bin/env bash
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
# Installs the system packages apnskit builds against and tests with, in two sets:
#
#   scripts/setup.sh demo   the minimal set: what the Swift toolchain itself needs on a bare
#                           Debian 12, the C libraries apnskit links and the tools scripts/demo.sh
#                           runs (demo.sh asks for this set only: no JDK, browser or valgrind)
#   scripts/setup.sh        both sets: the demo set and the test set (peers, checkers and the
#                           PyPI packages the tests run against); scripts/test.sh asks for this
#
# scripts/setup-tools.txt lists every command the tests and scripts run, with its set;
# scripts/check-tools.sh checks them, and scripts/package-test.sh does so in a clean root.
# Idempotent: packages already present are left alone. Uses sudo only when not root.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

wanted="${1:-all}"
case "$wanted" in
  demo|all) ;;
  *) echo "setup.sh: the set must be demo or all (got '$wanted'), as in scripts/setup.sh demo." >&2; exit 2 ;;
esac

# The demo set: building apnskit and running scripts/demo.sh on a machine with only Swift.
demo_packages=(
  # The Swift toolchain's own needs on Debian 12 (ldd of swift-build, swift-driver, lld; the
  # linker's C runtime and libraries). A machine with Swift installed by its packages has them.
  git                          # SwiftPM clones the dependencies with it
  libncurses6 libsqlite3-0 libcurl4 libxml2   # swift-build, swift-driver and lld link them
  libc6-dev libgcc-12-dev libstdc++-12-dev    # crt files, libgcc and libstdc++ for the linker
  binutils                     # the linker's helpers (ar, strip, readelf)
  libssl-dev openssl           # OpenSSL 3: the C API we wrap, and the CLI we interoperate with
  libnghttp2-dev               # nghttp2: HTTP/2 framing for the transport
  pkg-config                   # SwiftPM finds OpenSSL and nghttp2 through it
  ca-certificates
  curl                         # demo.sh's --print-curl steps and the inbox's JSON API
  python3                      # scripts/lib.sh's JSON and arithmetic helpers
)

# The test set, on top of the demo set: everything scripts/test.sh and the other scripts run.
packages=(
  time                         # /usr/bin/time: the hardening tests' peak-memory bounds, and -v for mock expect's memory bound
  zlib1g-dev                   # libz.so for the linker: async-http-client's compression (NIOExtras' zlib), linked into the conformance suite's AHCConformance
  nghttp2-client nghttp2-server nghttp2-proxy   # nghttp, nghttpd, nghttpx, h2load: real HTTP/2 peers for tests
  valgrind                     # leak checks
  gdb                          # test.sh's deadline prints a stuck test process's stacks with it
  procps                       # ps, pgrep: test.sh finds, reports and ends its lanes' processes by parent PID
  gcc libc6-dev                 # builds scripts/malloc-count.c, the benchmarks' counting malloc interposer
  man-db                       # `man -l` reads the installed man page in the install.sh test
  libxml2-utils                # xmllint validates check's JUnit XML against the JUnit schema
  # python3 (demo set): real parsers in tests (JUnit XML, Prometheus text format); plistlib writes the profile tests' provisioning profiles
  # curl (demo set): curl --http2, a third-party client in the conformance suite
  tinyproxy-bin                # a real HTTP CONNECT proxy (with and without basic auth) for the --proxy tests
  # Independent writers of credential files for the corpus (scripts/credential-corpus.py)
  openjdk-17-jdk-headless      # keytool: PKCS12 keystores
  gnutls-bin                   # certtool --to-p12
  libnss3-tools                # pk12util, certutil (NSS)
  python3-pip                  # to install the PyPI packages below
  chromium                     # headless browser: the mock inbox's page test and its screenshot (docs/inbox.png)
  fonts-dejavu-core            # a font for that screenshot (chromium renders boxes without one)
  postgresql                   # the outbox tests' and benchmark's real server (initdb/pg_ctl in a temporary folder) and psql
  # The release packages and their clean-root test (scripts/package.sh, scripts/package-test.sh)
  dpkg-dev                     # dpkg-shlibdeps: the .deb's Depends
  mmdebstrap                   # clean Debian 12 roots from Debian's packages
  iproute2 util-linux          # ip, unshare, findmnt: the roots' own loopback-only network namespace
)

# PyPI packages the tests use as real peers, pinned, with the pins of what they bring that
# another pin constrains (aioapns brings pyOpenSSL, which wants cryptography >= 49, < 51), so
# that pip never moves one to satisfy another. Installed in one pip run, so pip's resolver sees
# every pin at once and fails on a conflict instead of flipping versions between runs.
# Debian's own python3 refuses installs into the system (PEP 668) unless told
# --break-system-packages.
python_packages=(
  cryptography==50.0.2         # the corpus's certificates and its PKCS#12 writer
  pyOpenSSL==26.4.0            # aioapns's TLS (needs cryptography >= 49, < 51)
  PyJWT==2.15.1                # aioapns's provider tokens
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
  [ "$wanted" = all ] || return 0
  local spec name version outdated=()
  for spec in "${python_packages[@]}"; do
    name="${spec%%==*}"; version="${spec#*==}"
    if [ "$(python_package_version "$name")" != "$version" ]; then outdated+=("$spec"); fi
  done
  if [ ${#outdated[@]} -gt 0 ]; then
    echo "setup: installing Python ${outdated[*]}"
    python3 -m pip install --quiet --disable-pip-version-check "${python_packages[@]}" 2>/dev/null \
      || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages "${python_packages[@]}"
  fi
  if [ ! -d "$mopyapns_dir/mopyapns-${mopyapns_spec#*==}.dist-info" ]; then
    echo "setup: installing Python $mopyapns_spec into $mopyapns_dir"
    rm -rf "$mopyapns_dir"
    mkdir -p "$mopyapns_dir"
    python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$mopyapns_dir" "$mopyapns_spec" 2>/dev/null \
      || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages --no-deps --target "$mopyapns_dir" "$mopyapns_spec"
  fi
}

wanted_packages=("${demo_packages[@]}")
if [ "$wanted" = all ]; then wanted_packages+=("${packages[@]}"); fi
missing=()
for p in "${wanted_packages[@]}"; do
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
