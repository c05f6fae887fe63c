#!/usr/bin/env bash
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
# Installs apnskit: the binary, bash/zsh/fish completions and a man page, in their usual places
# under PREFIX (default /usr/local). docs/installing.md says how to uninstall.
#
#   scripts/install.sh [PREFIX]
#
# APNSKIT_BINARY=PATH  install that already built apnskit and build nothing: no release build
#                      (minutes on a small machine), and the man page generator must already be
#                      built (`swift build --product generate-manual`, as scripts/test.sh does).
#                      CI's install test uses this, from inside `swift test`, where a nested
#                      `swift build` would wait forever for the build folder's lock.
# DESTDIR=DIR          stage under DIR (for packaging): files land in DIR/PREFIX/...
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

prefix="${1:-/usr/local}"
case "$prefix" in
  /*) ;;
  *) echo "install.sh: PREFIX must be an absolute path (got '$prefix'), as in scripts/install.sh /usr/local." >&2; exit 2 ;;
esac
root="${DESTDIR:-}${prefix}"

if [ -n "${APNSKIT_BINARY:-}" ]; then
  binary="$APNSKIT_BINARY"
  if [ ! -x "$binary" ]; then
    echo "install.sh: APNSKIT_BINARY=$binary is not an executable file; build apnskit first or unset APNSKIT_BINARY." >&2
    exit 3
  fi
else
  echo "install.sh: release build, the Swift runtime linked in (a few minutes)"
  binary="$(apnskit_binary release --static-swift-stdlib)"
fi

# The man page comes from swift-argument-parser's generate-manual plugin. The plugin itself
# (`swift package plugin generate-manual`) first rebuilds every product in release mode;
# running its generator tool on the binary being installed gives the same page without that.
if [ -z "${APNSKIT_BINARY:-}" ]; then generator="$(build_product generate-manual 2>/dev/null)"
else generator="$(swift build --show-bin-path)/generate-manual"; fi
if [ ! -x "$generator" ]; then
  echo "install.sh: the man page generator $generator is not built; run swift build --product generate-manual (APNSKIT_BINARY builds nothing)." >&2
  exit 3
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$generator" "$binary" --section 1 --output-directory "$work"
# mdoc wants paragraph breaks as .Pp; the generator leaves blank lines, which groff warns about.
sed -i "s/^$/.Pp/" "$work/apnskit.1"
"$binary" --generate-completion-script bash >"$work/apnskit.bash"
"$binary" --generate-completion-script zsh >"$work/_apnskit"
"$binary" --generate-completion-script fish >"$work/apnskit.fish"

install -d "$root/bin" "$root/share/man/man1" "$root/share/bash-completion/completions" \
  "$root/share/zsh/site-functions" "$root/share/fish/vendor_completions.d"
install -m 0755 "$binary" "$root/bin/apnskit"
install -m 0644 "$work/apnskit.1" "$root/share/man/man1/apnskit.1"
install -m 0644 "$work/apnskit.bash" "$root/share/bash-completion/completions/apnskit"
install -m 0644 "$work/_apnskit" "$root/share/zsh/site-functions/_apnskit"
install -m 0644 "$work/apnskit.fish" "$root/share/fish/vendor_completions.d/apnskit.fish"

echo "install.sh: installed into $root:"
for file in bin/apnskit share/man/man1/apnskit.1 share/bash-completion/completions/apnskit \
  share/zsh/site-functions/_apnskit share/fish/vendor_completions.d/apnskit.fish; do
  echo "  $root/$file"
done
