#!/usr/bin/env bash
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
# Runs one libFuzzer harness for SECONDS (default 60): scripts/fuzz.sh TARGET [SECONDS] [libFuzzer flags...]
# TARGET is one of the FuzzTarget cases (scripts/fuzz.sh list prints them). Builds the APNsFuzz
# executable with -sanitize=fuzzer,address in .build-fuzz/ (separate from the normal build, which
# never sees that target; linked with lld, since gold crashes on the ASan objects), writes the seed corpus from valid fixtures to fuzz/corpus/TARGET/ on
# first use, and keeps what libFuzzer finds there. Crash inputs land in fuzz/artifacts/TARGET/.
# Both folders are ignored by git.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
targets="certificate privateKey csr pkcs12 credentialFile topics providerToken deviceToken json batchLine request legacyFrames legacyReplies provisioningProfile http2"
target="${1:-}"
if [ -z "$target" ] || [ "$target" = "list" ]; then
  echo "usage: scripts/fuzz.sh TARGET [SECONDS] [libFuzzer flags]; targets: $targets"
  [ "$target" = "list" ] && exit 0 || exit 2
fi
case " $targets " in *" $target "*) ;; *) echo "fuzz.sh: unknown target '$target'; one of: $targets" >&2; exit 2;; esac
seconds="${2:-60}"
shift $(( $# >= 2 ? 2 : 1 ))

# APNSKIT_FUZZ=1 makes Package.swift declare the APNsFuzz executable (it links only with libFuzzer).
export APNSKIT_FUZZ=1
binary="$(build_product APNsFuzz --scratch-path .build-fuzz -c debug \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -use-ld=lld)"

corpus="fuzz/corpus/$target"
artifacts="fuzz/artifacts/$target"
mkdir -p "$corpus" "$artifacts"
if [ -z "$(ls -A "$corpus")" ]; then
  ASAN_OPTIONS=detect_leaks=0 APNS_FUZZ_TARGET="$target" APNS_FUZZ_SEED_DIR="$corpus" "$binary"
fi
# One-time global allocations of OpenSSL and the Swift runtime are not leaks of an input.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
APNS_FUZZ_TARGET="$target" exec "$binary" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$artifacts/" "$@" "$corpus"
