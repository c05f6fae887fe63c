#!/usr/bin/env bash
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
#
# Prints the NOTICE that ships beside a packaged apnskit binary: apnskit's licence, then, for
# every Swift package whose code is linked into the binary, that package's LICENSE and NOTICE
# files as it ships them (Apache-2.0 section 4 asks for both), then the libraries linked from
# the system. Which packages are linked is read from the build's own link file list, not
# guessed: a package none of whose targets the CLI links is left out.
#
#   scripts/notice.sh BIN-PATH     (the build's products folder: swift build [-c release] --show-bin-path)
set -euo pipefail
cd "$(dirname "$0")/.."

bin_path="$1"
link_list="$bin_path/apnskit.product/Objects.LinkFileList"
if [ ! -f "$link_list" ]; then
  echo "notice.sh: $link_list is missing; build apnskit first (swift build --product apnskit)." >&2
  exit 3
fi

cat <<'EOF'
apnskit
Copyright (c) 2026 the apnskit authors.
Licensed under the Apache License, Version 2.0 (LICENSE).

This binary contains code from the Swift packages below, each under its own licence, which
follows. It also contains the Swift runtime, the Swift standard library, Foundation and
libdispatch from the Swift toolchain (Apache License 2.0 with the Runtime Library Exception:
https://swift.org/LICENSE.txt) and the ICU data and code Foundation carries (Unicode License
v3: https://github.com/swiftlang/swift-foundation-icu/blob/main/LICENSE.md).

It links, from the system, OpenSSL 3 (libssl3, Apache License 2.0), nghttp2 (libnghttp2-14,
MIT licence) and the GNU C and C++ libraries; their licences ship with those packages
(/usr/share/doc/libssl3/copyright and so on).
EOF

# A checkout's targets are its Sources/ folders; one of them is linked when its objects
# (<Target>.build/...) are on the link file list.
for checkout in .build/checkouts/*/; do
  package="$(basename "$checkout")"
  linked=()
  for target_dir in "$checkout"Sources/*/; do
    [ -d "$target_dir" ] || continue
    target="$(basename "$target_dir")"
    if grep -q "/${target}.build/" "$link_list"; then linked+=("$target"); fi
  done
  [ ${#linked[@]} -gt 0 ] || continue
  printf '\n================================================================================\n'
  printf '%s (linked: %s)\n' "$package" "${linked[*]}"
  printf '================================================================================\n'
  for file in NOTICE.txt NOTICE LICENSE.txt LICENSE LICENSE.md; do
    if [ -f "$checkout$file" ]; then printf '\n--- %s ---\n\n' "$file"; cat "$checkout$file"; fi
  done
done
