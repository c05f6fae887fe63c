#!/usr/bin/env bash
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
#
# The release packages proven on bare systems, in clean Debian 12 roots made by mmdebstrap from
# Debian's packages (apt, bash, coreutils and their dependencies; no Swift, no Python, no
# openssl CLI):
#
#   deb root      apt-get install ./apnskit_VERSION_amd64.deb (apt resolves libssl3 and
#                 libnghttp2-14), then scripts/package/flow.sh: mock ca, csr, mock issue,
#                 p12 create --legacy, prepare, check, mock serve, verify, a batch push
#   tarball root  apt-get install libssl3 libnghttp2-14 (what the tarball's README says), the
#                 tarball unpacked into /usr/local, the same flow
#   setup root    the Swift toolchain bind-mounted read-only at /opt/swift and nothing else;
#                 scripts/setup.sh (both sets), then scripts/check-tools.sh: every command of
#                 scripts/setup-tools.txt is there
#
#   scripts/package-test.sh [roots|packages|all]   (default: all)
#   scripts/package-test.sh demo                   not in CI (a release build: many minutes):
#                 a root with only Swift, a clone of this checkout's HEAD, then
#                 scripts/demo.sh, timed, as a new user on a fresh machine runs it
#   scripts/package-test.sh ci                     not in CI (a whole CI run, minutes): the same
#                 root with .ci/run (all but this packages lane, which makes roots itself)
#
# roots makes the base root and runs the setup root (no apnskit build needed: scripts/test.sh
# runs it beside the build); packages makes the packages (APNSKIT_PACKAGE_BUILD, default debug:
# the debug build linked again with the runtime inside) and runs the deb and tarball roots.
# Each stage prints its seconds. The flows run in their own network namespace with only a
# loopback interface. Roots live in WORK (default .build/package-test) and are deleted at the
# end; APNSKIT_ROOT_CACHE=DIR keeps the base root there between local runs (never in CI: a
# fresh clone has none).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

what="${1:-all}"
case "$what" in roots|packages|all|demo|ci) ;; *) echo "package-test.sh: say roots, packages, all, demo or ci (got '$what')." >&2; exit 2 ;; esac
if [ "$(id -u)" -ne 0 ]; then echo "package-test.sh: making and entering roots needs root (chroot, mount); run it as root." >&2; exit 2; fi
work="$(mkdir -p "${PACKAGE_TEST_WORK:-.build/package-test}" && cd "${PACKAGE_TEST_WORK:-.build/package-test}" && pwd)"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
version="$(tr -d '[:space:]' < VERSION)"
base="${APNSKIT_ROOT_CACHE:+$(mkdir -p "$APNSKIT_ROOT_CACHE" && cd "$APNSKIT_ROOT_CACHE" && pwd)/bookworm-apt}"
base="${base:-$work/base}"
mounts=()
roots=()

# Unmounts what this script mounted (last first), then deletes its roots; a root that still
# has a mount under it is never deleted (a bind-mounted toolchain would go with it).
cleanup() {
  local i root
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    umount "${mounts[$i]}" 2>/dev/null || umount -l "${mounts[$i]}" 2>/dev/null || true
  done
  mounts=()
  for root in "${roots[@]}"; do
    if findmnt -rn -o TARGET | grep -q "^$root"; then
      echo "package-test.sh: $root still has a mount under it; left in place." >&2
    else
      rm -rf --one-file-system "$root"
    fi
  done
}
trap cleanup EXIT

mount_in() { mount "$@"; mounts+=("${!#}"); }

# in_root ROOT COMMAND...: COMMAND inside ROOT, with a clean environment.
in_root() {
  local root="$1"; shift
  chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=/root LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive "$@"
}

# in_root_loopback_only ROOT COMMAND...: the same in a new network namespace whose only
# interface is loopback: what runs there can reach nothing but 127.0.0.1.
in_root_loopback_only() {
  local root="$1"; shift
  unshare --net -- sh -c 'ip link set lo up && exec "$@"' sh chroot "$root" /usr/bin/env -i \
    PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=/root LANG=C.UTF-8 "$@"
}

# The base: a minimal Debian 12 with apt (package lists kept, so roots made from it install
# without another download of the lists).
make_base() {
  if [ -x "$base/usr/bin/apt-get" ] && [ -n "${APNSKIT_ROOT_CACHE:-}" ]; then
    echo "package-test.sh: base root from the cache ($base)"; return 0
  fi
  rm -rf --one-file-system "$base.tmp"
  # dpkg without fsync (a root thrown away after the test needs no crash safety: minutes
  # less), and man-db without rebuilding its index after every install.
  mmdebstrap --quiet --variant=apt --mode=root --skip=cleanup/apt/lists --dpkgopt=force-unsafe-io \
    --customize-hook='echo "man-db man-db/auto-update boolean false" | chroot "$1" debconf-set-selections' \
    bookworm "$base.tmp" \
    "deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
    "deb ${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security} bookworm-security main"
  rm -rf --one-file-system "$base"
  mv "$base.tmp" "$base"
}

# new_root NAME: a copy of the base, with /proc mounted, at $root (not printed: the mount and
# the root must be recorded in this shell, for cleanup).
new_root() {
  root="$work/root-$1"
  rm -rf --one-file-system "$root"
  cp -a "$base" "$root"
  roots+=("$root")
  mount_in -t proc proc "$root/proc"
}

# no_swift ROOT: the root has no Swift: no swift on PATH, no Swift runtime library anywhere.
no_swift() {
  local found
  found="$(find "$1" -xdev \( -name 'libswiftCore*' -o -name 'libFoundation*.so*' -o -name 'swift' -type f \) -print -quit)"
  if [ -n "$found" ]; then echo "package-test.sh: the root has Swift ($found); the test would prove nothing." >&2; return 1; fi
}

deb_root() {
  local root deb="apnskit_${version}_$(dpkg --print-architecture).deb"
  new_root deb
  cp "$work/dist/$deb" "$root/tmp/"
  stage "deb root: apt-get install ./$deb" in_root "$root" sh -c "cd /tmp && apt-get install -y -qq ./$deb >/dev/null"
  no_swift "$root"
  in_root "$root" sh -c 'test -f /usr/share/man/man1/apnskit.1.gz && test -f /usr/share/bash-completion/completions/apnskit &&
    test -f /usr/share/zsh/vendor-completions/_apnskit && test -f /usr/share/fish/vendor_completions.d/apnskit.fish &&
    test -f /usr/share/doc/apnskit/copyright' || { echo "package-test.sh: the .deb did not install its man page, completions or copyright." >&2; return 1; }
  cp scripts/package/flow.sh "$root/tmp/flow.sh"
  stage "deb root: the flow" in_root_loopback_only "$root" bash /tmp/flow.sh /usr/bin/apnskit /tmp/flow
  stage "deb root: apt-get remove" in_root "$root" sh -c 'apt-get remove -y -qq apnskit >/dev/null && ! test -e /usr/bin/apnskit'
}

tarball_root() {
  local root name="apnskit-$version-linux-$(uname -m)"
  new_root tarball
  stage "tarball root: apt-get install libssl3 libnghttp2-14" in_root "$root" sh -c 'apt-get install -y -qq libssl3 libnghttp2-14 >/dev/null'
  cp "$work/dist/$name.tar.gz" "$root/tmp/"
  # As the tarball's README says.
  in_root "$root" tar -xzf "/tmp/$name.tar.gz" -C /usr/local --strip-components=1 "$name/bin" "$name/share"
  no_swift "$root"
  cp scripts/package/flow.sh "$root/tmp/flow.sh"
  stage "tarball root: the flow" in_root_loopback_only "$root" bash /tmp/flow.sh apnskit /tmp/flow
}

# bind_toolchain ROOT: the host's Swift toolchain at ROOT/opt/swift, read-only.
bind_toolchain() {
  mkdir -p "$1/opt/swift"
  mount_in --bind "${SWIFT_TOOLCHAIN:-/opt/swift}" "$1/opt/swift"
  mount -o remount,bind,ro "$1/opt/swift"
}

# toolchain_root NAME: a root with only Swift added and a clone of this checkout's HEAD at
# /src/apnskit: what a new user's fresh machine holds. The certificates this machine trusts beyond
# Debian's go in too (as a fresh machine on the same network would have them), for git's clones
# of the dependencies and pip.
toolchain_root() {
  new_root "$1"
  bind_toolchain "$root"
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
  # So are this machine's ways to the package dependencies' repositories: the URL rewrites in
  # its /etc/gitconfig (url.LOCAL.insteadOf URL), with each local folder they name bound in
  # read-only. (Not credential helpers or anything else of that file.)
  local key value folder
  while read -r key value; do
    git config --file "$root/etc/gitconfig" --add "$key" "$value"
    folder="${key#url.}"; folder="${folder%.insteadof}"
    if [ -d "$folder" ] && [ ! -e "$root$folder" ]; then
      mkdir -p "$root$folder"
      mount_in --bind "$folder" "$root$folder"
      mount -o remount,bind,ro "$root$folder"
    fi
  done < <(git config --system --get-regexp '^url\..*\.insteadof$' || true)
  git clone --quiet "$PWD" "$root/src/apnskit"
}

# The demo root: what a new user does on a fresh machine with only Swift: clone, scripts/demo.sh.
demo_root() {
  toolchain_root demo
  stage "demo root: scripts/demo.sh (setup.sh demo, release build, the demo)" \
    in_root "$root" CI=true bash -c 'cd /src/apnskit && bash scripts/demo.sh' > "$work/demo-root.log" 2>&1 \
    || { tail -30 "$work/demo-root.log" >&2; return 1; }
  tail -3 "$work/demo-root.log"
}

# The CI root: .ci/run as CI runs it (CI=true, no stdin), on a fresh machine with only Swift. The
# machine's /dev (terminals for the prompt tests, /dev/shm for Chromium) and /sys go in, as
# any machine has them. The packages lane is this script, which makes roots of its own: it runs
# on the host (PACKAGE_TEST=0 in the root); every other check runs.
ci_root() {
  toolchain_root ci
  mount_in --rbind /dev "$root/dev"
  mount --make-rslave "$root/dev"
  mount_in -t sysfs sysfs "$root/sys"
  local pip_cert=()
  if [ -n "${PIP_CERT:-}" ] && [ -f "$PIP_CERT" ]; then
    cp "$PIP_CERT" "$root/etc/pip-ca.pem"
    pip_cert=(PIP_CERT=/etc/pip-ca.pem)
  fi
  stage "CI root: .ci/run (setup.sh, build, every test and check but the packages lane)" \
    in_root "$root" "${pip_cert[@]}" CI=true PACKAGE_TEST=0 bash -c 'cd /src/apnskit && bash .ci/run' </dev/null > "$work/ci-root.log" 2>&1 \
    || { tail -40 "$work/ci-root.log" >&2; return 1; }
  grep -E "^== test.sh" "$work/ci-root.log" | tail -12
}

# The setup root: only Swift added. setup.sh installs both sets, then every listed tool is there.
setup_root() {
  local root
  new_root setup
  bind_toolchain "$root"
  mkdir -p "$root/src"
  cp -a scripts "$root/src/"
  # pip reaches PyPI as this machine's pip does: behind a proxy that re-signs TLS, the CA file
  # pip is told to trust (PIP_CERT) goes into the root too.
  local pip_cert=()
  if [ -n "${PIP_CERT:-}" ] && [ -f "$PIP_CERT" ]; then
    cp "$PIP_CERT" "$root/etc/pip-ca.pem"
    pip_cert=(PIP_CERT=/etc/pip-ca.pem)
  fi
  stage "setup root: scripts/setup.sh" in_root "$root" "${pip_cert[@]}" bash /src/scripts/setup.sh
  stage "setup root: scripts/check-tools.sh" in_root "$root" bash /src/scripts/check-tools.sh all
  in_root "$root" bash -c '. /src/scripts/lib.sh && swift --version >/dev/null' \
    || { echo "package-test.sh: the toolchain does not run in the root after scripts/setup.sh (a library it links is missing)." >&2; return 1; }
}

packages() {
  rm -rf "$work/dist"
  stage "packages (scripts/package.sh, ${APNSKIT_PACKAGE_BUILD:-debug} build)" \
    env APNSKIT_PACKAGE_BUILD="${APNSKIT_PACKAGE_BUILD:-debug}" bash scripts/package.sh "$work/dist"
}

if [ "$what" != packages ] || [ ! -x "$base/usr/bin/apt-get" ]; then stage "base root (mmdebstrap bookworm)" make_base; fi
if [ "$what" = demo ]; then demo_root; cleanup; echo "== package-test.sh: passed (demo)"; exit 0; fi
if [ "$what" = ci ]; then ci_root; cleanup; echo "== package-test.sh: passed (ci)"; exit 0; fi
if [ "$what" != packages ]; then setup_root; fi
if [ "$what" != roots ]; then
  packages
  deb_root
  tarball_root
fi
cleanup
echo "== package-test.sh: passed ($what)"
