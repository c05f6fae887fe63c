#!/usr/bin/env bash
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
#
# The libraries' public API against the last release: `swift package
# diagnose-api-breaking-changes` compares the modules of the APNs and APNsMock products (and the
# three modules APNs re-exports) with the release commit named in api-baseline/release. A
# breaking change passes only when it is listed in api-baseline/accepted-breaks.txt (the breaks
# VERSION makes on purpose), VERSION raises the release's major version (before 1.0: its minor
# version) and CHANGELOG.md's section for VERSION (or [Unreleased]) has a line starting
# `- **Breaking**`.
#
# The release's API is kept in api-baseline/COMMIT/*.json (swift-api-digester's dumps, made by
# the same command from that commit's build), so CI compares without building the release
# again. A new release: put "VERSION COMMIT" in api-baseline/release, run this script once (it
# builds the release and writes the dumps of the two products' modules, minutes), then dump the
# three re-exported modules from that same build, which SwiftPM does not do itself:
#   B=.build/x86_64-unknown-linux-gnu/apidiff/COMMIT-checkout; D=$B/.build/debug
#   swift-api-digester -dump-sdk -compiler-style-diags -I $D -I $D/Modules -I $D/CShims.build \
#     -I $B/Sources/COpenSSL -I $B/Sources/CNGHTTP2 -I $B/Sources/CShims/include \
#     -module APNsSender -o api-baseline/COMMIT/APNsSender.json    (and APNsProtocol, APNsCredentials)
# Without them those modules' changes would go unchecked, so the check refuses to run while one
# of the five dumps is missing. Then empty api-baseline/accepted-breaks.txt and commit both.
#
#   scripts/api-check.sh        (after swift build: the current modules are built, not rebuilt)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

read -r release commit < api-baseline/release
version="$(tr -d '[:space:]' < VERSION)"
for v in "$release" "$version"; do
  [[ "$v" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "api-check: '$v' (VERSION or api-baseline/release) is not a version MAJOR.MINOR.PATCH." >&2; exit 2; }
done
if ! git cat-file -e "${commit}^{commit}" 2>/dev/null; then
  echo "api-check: the release commit $commit (api-baseline/release) is not in this clone; fetch the full history (git fetch --unshallow)." >&2
  exit 3
fi

for module in APNs APNsMock APNsCredentials APNsProtocol APNsSender; do
  if [ -d "api-baseline/$commit" ] && [ ! -s "api-baseline/$commit/$module.json" ]; then
    echo "api-check: api-baseline/$commit/$module.json is missing, so $module's API would go unchecked; dump it as the header of scripts/api-check.sh says." >&2
    exit 2
  fi
done
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
swift package diagnose-api-breaking-changes "$commit" --baseline-dir "$PWD/api-baseline" \
  --products APNs APNsMock --targets APNsCredentials APNsProtocol APNsSender >"$log" 2>&1 || status=$?
breaks="$(grep -c 'API breakage:' "$log" || true)"

if [ "$status" -eq 0 ] && [ "$breaks" -eq 0 ]; then
  echo "api-check: the public API of APNs and APNsMock is compatible with $release ($commit)."
  exit 0
fi
if [ "$breaks" -eq 0 ]; then
  cat "$log" >&2
  echo "api-check: swift package diagnose-api-breaking-changes failed without naming a breaking change (exit $status; its output is above)." >&2
  exit 1
fi

grep 'API breakage:' "$log" | sed 's/^[^A]*API breakage:/api-check: breaking: /'
# Every break must be one VERSION makes on purpose: listed in api-baseline/accepted-breaks.txt
# (and described in the changelog, checked below). One unlisted break fails, however many
# others the version already announces.
unlisted="$(grep 'API breakage:' "$log" | sed 's/^[^A]*API breakage: *//' | sort -u \
  | grep -vxF -f <(grep -v '^#' api-baseline/accepted-breaks.txt | sed '/^$/d') || true)"
if [ -n "$unlisted" ]; then
  sed 's/^/api-check: not accepted: /' <<<"$unlisted" >&2
  echo "api-check: $(wc -l <<<"$unlisted") breaking change(s) of the public API since $release are not in api-baseline/accepted-breaks.txt (above): keep the API as it was, or make the break on purpose: add each line there and describe it in CHANGELOG.md under $version with '- **Breaking**'." >&2
  exit 1
fi
# A breaking change needs a new major version, or before 1.0 a new minor one.
IFS=. read -r v_major v_minor _ <<<"$version"
IFS=. read -r r_major r_minor _ <<<"$release"
if [ "$v_major" -gt "$r_major" ] || { [ "$r_major" -eq 0 ] && [ "$v_major" -eq 0 ] && [ "$v_minor" -gt "$r_minor" ]; }; then
  :
else
  echo "api-check: $breaks breaking change(s) of the public API since $release, but VERSION is $version: raise the $( [ "$v_major" -eq 0 ] && echo minor || echo major ) version and list each under its release in CHANGELOG.md with '- **Breaking**'." >&2
  exit 1
fi
# The changelog's sections for VERSION and for what is not released yet: from each heading to
# the next one's.
section="$(awk -v v="$version" '/^## \[/ { inside = index($0, "## [" v "]") == 1 || index($0, "## [Unreleased]") == 1; next } inside' CHANGELOG.md)"
if ! grep -q '^- \*\*Breaking\*\*' <<<"$section"; then
  echo "api-check: $breaks breaking change(s) of the public API since $release (above); VERSION $version raises the version, but CHANGELOG.md's sections for $version and [Unreleased] have no '- **Breaking**' line saying what breaks and what to do instead." >&2
  exit 1
fi
echo "api-check: $breaks breaking change(s) since $release, released as $version and described in CHANGELOG.md."
