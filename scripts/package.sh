#!/usr/bin/env bash
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
#
# Makes the release packages of apnskit, for machines without a Swift toolchain:
#
#   dist/apnskit-VERSION-linux-x86_64.tar.gz  bin/, share/ (man page, bash/zsh/fish completions),
#                                             LICENSE, NOTICE, CHANGELOG.md and a short README
#   dist/apnskit_VERSION_amd64.deb            the same in Debian's places, with Depends: computed
#                                             by dpkg-shlibdeps from what the binary links
#
#   scripts/package.sh [OUTPUT-DIR]           (default: dist)
#
# The CLI is linked with the Swift runtime and Foundation inside it (-static-stdlib), so it needs
# only glibc, libstdc++, OpenSSL 3 (libssl3) and nghttp2 (libnghttp2-14) from the system; the
# script fails when the binary names any library of the toolchain (readelf + ldd).
#
# APNSKIT_PACKAGE_BUILD=release (default)  a release build: swift build -c release --static-swift-stdlib
# APNSKIT_PACKAGE_BUILD=debug              link the debug build's objects again with -static-stdlib,
#                                          compiling nothing: what CI does after its own debug build
#                                          (scripts/test.sh), to test the packages in seconds
#                                          instead of a release build's minutes. Not for release.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

out="${1:-dist}"
mode="${APNSKIT_PACKAGE_BUILD:-release}"
version="$(tr -d '[:space:]' < VERSION)"
arch="$(dpkg --print-architecture)"            # amd64
machine="$(uname -m)"                          # x86_64
name="apnskit-$version-linux-$machine"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

# static_binary MODE DEST: the CLI, linked statically against the Swift runtime, at DEST.
static_binary() {
  local dest="$2"
  case "$1" in
    release)
      local binary
      binary="$(build_product apnskit -c release --static-swift-stdlib)"
      cp "$binary" "$dest" ;;
    debug)
      # The debug build's own link command (from its build manifest), with another output and
      # -static-stdlib added: the same objects, the runtime linked in.
      # No swift command here: in CI this runs while `swift test` holds the build folder.
      local manifest=.build/debug.yaml bin_path
      bin_path="$(realpath .build/debug)"
      if [ ! -x "$bin_path/apnskit" ] || [ ! -f "$manifest" ]; then
        echo "package.sh: APNSKIT_PACKAGE_BUILD=debug links the debug build's objects, but there is no debug build; run swift build first." >&2
        exit 3
      fi
      python3 - "$manifest" "$bin_path/apnskit" "$dest" <<'PY'
import json, subprocess, sys
manifest, product, dest = sys.argv[1:4]
outputs_line = f'    outputs: ["{product}"]'
lines = open(manifest).read().splitlines()
for i, line in enumerate(lines):
    if line == outputs_line and lines[i + 2].startswith("    args: "):
        args = json.loads(lines[i + 2][len("    args: "):])
        break
else:
    sys.exit(f"package.sh: no link command for {product} in {manifest}; the build's manifest changed form.")
args[args.index("-o") + 1] = dest
# The objects were compiled against the shared toolchain's modules, whose autolink entries name
# Foundation's shared libraries only; the static archives need their own dependencies named
# (what the swift_static modules' entries add when SwiftPM compiles with --static-swift-stdlib).
static = ["-static-stdlib", "-lFoundation", "-lCoreFoundation", "-lFoundationInternationalization", "-l_FoundationICU",
          "-lFoundationEssentials", "-l_FoundationCShims", "-l_FoundationCollections", "-lswiftSynchronization",
          "-lstdc++", "-lm"]
# The linker's warning about glibc's mktemp inside Foundation is Foundation's, not ours.
link = subprocess.run(args + static, capture_output=True, text=True)
if link.returncode != 0:
    sys.stderr.write(link.stderr)
    sys.exit(f"package.sh: linking the debug build's objects with the Swift runtime failed (above).")
PY
      ;;
    *) echo "package.sh: APNSKIT_PACKAGE_BUILD must be release or debug (got '$1')." >&2; exit 2 ;;
  esac
  # Symbols and debug info are for debugging the build, not for running it (a third of the size).
  strip --strip-unneeded "$dest"
}

# check_links BINARY: every library BINARY needs comes from the system, none from the toolchain.
check_links() {
  local binary="$1" needed
  needed="$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')"
  echo "package.sh: $binary links: $needed"
  if readelf -d "$binary" | grep -qE '\((RPATH|RUNPATH)\).*swift'; then
    echo "package.sh: $binary has a search path into the Swift toolchain; it would not run without it." >&2
    exit 1
  fi
  local lib
  for lib in $needed; do
    case "$lib" in
      libc.so.6|libm.so.6|libdl.so.2|libpthread.so.0|librt.so.1|libutil.so.1|ld-linux-x86-64.so.2) ;;  # glibc (libc6)
      libstdc++.so.6|libgcc_s.so.1) ;;                                  # libstdc++6, libgcc-s1: apt's own
      libssl.so.3|libcrypto.so.3) ;;                                    # libssl3
      libnghttp2.so.14) ;;                                              # libnghttp2-14
      *) echo "package.sh: $binary needs $lib, which is not a Debian base library: it would not run without the Swift toolchain." >&2; exit 1 ;;
    esac
  done
  # ldd resolves them here: none may come from the toolchain's folder.
  if ldd "$binary" | grep -E '/swift|not found'; then
    echo "package.sh: ldd finds a library of $binary in the Swift toolchain (above)." >&2
    exit 1
  fi
}

echo "package.sh: apnskit $version ($mode build), into $out/"
binary="$work/apnskit"
static_binary "$mode" "$binary"
if [ "$mode" = release ]; then bin_path="$(swift build -c release --show-bin-path)"; else bin_path="$(realpath .build/debug)"; fi
check_links "$binary"
"$binary" --version

# The man page and completions, as install.sh lays them out under a prefix (scripts/test.sh
# builds the man page generator with the debug build).
if [ "$mode" = release ]; then swift build --product generate-manual >&2; fi
stage="$work/stage"
DESTDIR="$stage" APNSKIT_BINARY="$binary" bash scripts/install.sh /usr >/dev/null

# The notices of what the binary carries: the licences of every package linked into it.
notice="$work/NOTICE"
bash scripts/notice.sh "$bin_path" >"$notice"

# ---- the tarball: a prefix tree (bin/, share/) to unpack into /usr/local or anywhere ----
tree="$work/$name"
mkdir -p "$tree"
cp -a "$stage/usr/bin" "$stage/usr/share" "$tree/"
cp LICENSE CHANGELOG.md "$tree/"
cp "$notice" "$tree/NOTICE"
sed "s/@VERSION@/$version/g; s/@NAME@/$name/g" scripts/package/README.tarball > "$tree/README"
tar -C "$work" --owner=0 --group=0 --numeric-owner --sort=name -czf "$out/$name.tar.gz" "$name"
echo "package.sh: $out/$name.tar.gz"

# ---- the .deb: Debian's places, dpkg-shlibdeps' Depends ----
deb="$work/deb"
mkdir -p "$deb/DEBIAN" "$deb/usr/share/doc/apnskit" "$deb/usr/share/zsh/vendor-completions"
cp -a "$stage/usr" "$deb/"
# Debian's zsh reads vendor completions from vendor-completions, not site-functions (/usr/local's).
mv "$deb/usr/share/zsh/site-functions/_apnskit" "$deb/usr/share/zsh/vendor-completions/_apnskit"
rmdir "$deb/usr/share/zsh/site-functions"
gzip -9n "$deb/usr/share/man/man1/apnskit.1"
gzip -9nc CHANGELOG.md > "$deb/usr/share/doc/apnskit/changelog.gz"
{ sed -n '1,/^License: Apache-2.0$/p' scripts/package/copyright; echo " See /usr/share/common-licenses/Apache-2.0."
  echo; echo "Files: usr/bin/apnskit (linked into it)"; echo "Comment:"
  sed 's/^$/ ./; s/^/ /' "$notice"; } > "$deb/usr/share/doc/apnskit/copyright"
chmod -R u=rwX,go=rX "$deb"
# dpkg-shlibdeps works in a source package's folder: a minimal debian/control is enough.
mkdir -p "$work/src/debian"
printf 'Source: apnskit\n\nPackage: apnskit\nArchitecture: any\n' > "$work/src/debian/control"
depends="$(cd "$work/src" && dpkg-shlibdeps -O "$deb/usr/bin/apnskit" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')"
for package in libc6 libssl3 libnghttp2-14; do
  case "$depends" in
    *"$package "*|*"$package") ;;
    *) echo "package.sh: dpkg-shlibdeps gave Depends: $depends, without $package; the binary does not link what apnskit needs." >&2; exit 1 ;;
  esac
done
installed_size="$(du -sk --exclude=DEBIAN "$deb" | cut -f1)"
sed "s/@VERSION@/$version/; s/@ARCH@/$arch/; s/@DEPENDS@/$depends/; s/@SIZE@/$installed_size/" \
  scripts/package/control > "$deb/DEBIAN/control"
(cd "$deb" && find usr -type f -exec md5sum {} + | sort -k2 > DEBIAN/md5sums)
# xz for a release (a third smaller); gzip for CI's debug packages (xz of the debug binary
# costs a minute of CPU beside the tests).
compression=xz
if [ "$mode" = debug ]; then compression=gzip; fi
dpkg-deb --root-owner-group "-Z$compression" --build "$deb" "$out/apnskit_${version}_${arch}.deb" >/dev/null
echo "package.sh: $out/apnskit_${version}_${arch}.deb (Depends: $depends)"
