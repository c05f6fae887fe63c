#!/usr/bin/env bash
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
# The library path's cost (issue 21): Examples/PushWorker sends N notifications through one
# APNsClient from a task group (one single send per token, as a server does), beside
# `apnskit push --tokens` sending the same N as a batch, against the same mock gateway, in one
# run. Rates and CPU per notification (user+sys of the client process, getrusage), median of
# REPS runs, then allocations per notification of the same clients under the counting
# interposer (scripts/malloc-count.c; start-up subtracted, see bench-allocs.sh). Beside them,
# the floor: scripts/task-floor.swift, the same task group and hand-over with no APNs work.
# BEFORE=path/to/an older PushWorker adds it to the same run, for before/after.
# Usage: scripts/bench-library.sh [N]   (bench.sh calls it; it builds what it needs)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
N=${1:-10000}; REPS=${REPS:-3}
export PATH="/opt/swift/usr/bin:$PATH"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  swift build -c release --product apnskit >&2
  swift build -c release --product PushWorker >&2
fi
BIN_DIR="$(swift build -c release --show-bin-path)"
ROOT=$PWD; OUT=bench-out/library; rm -rf "$OUT"; mkdir -p "$OUT"; cd "$OUT"
PIDS=(); trap 'for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done' EXIT
"$BIN_DIR/apnskit" mock ca -o ca >/dev/null
"$BIN_DIR/apnskit" csr --email bench@example.com --common-name Bench --key-out push.key --csr-out push.csr >/dev/null
"$BIN_DIR/apnskit" mock issue push.csr --ca ca --bundle-id com.example.app --type universal -o push.cer >/dev/null
"$BIN_DIR/apnskit" combine push.cer push.key -o apns.pem >/dev/null
for i in $(seq 1 "$N"); do printf '%064x\n' "$i"; done > tokens.txt
"$BIN_DIR/apnskit" mock serve --ca ca --port 0 --no-legacy --no-feedback --ports-file ports.json -q >/dev/null 2>mock.log &
PIDS+=($!)
for _ in $(seq 1 100); do [ -s ports.json ] && break; sleep 0.1; done
PORT=$(python3 -c "import json; print(json.load(open('ports.json'))['provider'])")

# run_once NAME COMMAND...: one run; appends "NAME<TAB>rate<TAB>cpu_us<TAB>delivered" to runs.tsv.
run_once() {
  local name=$1; shift
  local start; start=$(date +%s%N)
  /usr/bin/time -f "%U %S" -o time.txt "$@" < tokens.txt > out.txt 2> err.txt
  local elapsed; elapsed=$(python3 -c "print(($(date +%s%N)-$start)/1e9)")
  local delivered; delivered=$(grep -c '^delivered ' out.txt || true)
  [ "$delivered" = 0 ] && delivered=$(python3 -c "import json; print(json.loads(open('out.txt').read())['delivered'])" 2>/dev/null || echo 0)
  printf '%s\t%s\t%s\t%s\n' "$name" "$(python3 -c "print($N/$elapsed)")" \
    "$(tail -1 time.txt | awk -v n="$N" '{printf "%.2f", ($1+$2)*1e6/n}')" "$delivered" >> runs.tsv
}

VARIABLES=(APNS_IDENTITY=apns.pem APNS_GATEWAY=127.0.0.1:$PORT APNS_CA_FILE=ca/ca-bundle.pem)
ENVIRONMENT=(env "${VARIABLES[@]}")
# The variants alternate within each round, so load on a shared machine falls on all alike.
: > runs.tsv
for _ in $(seq 1 "$REPS"); do
  run_once "PushWorker (library, task group of single sends)" "${ENVIRONMENT[@]}" "$BIN_DIR/PushWorker"
  if [ -n "${BEFORE:-}" ]; then
    run_once "PushWorker before (${BEFORE_LABEL:-older build})" "${ENVIRONMENT[@]}" "$BEFORE"
  fi
  run_once "apnskit push --tokens (batch)" "$BIN_DIR/apnskit" push apns.pem --gateway "127.0.0.1:$PORT" --ca-file ca/ca-bundle.pem \
    --tokens - --alert benchmark --format json
done
python3 - > rows.tsv <<'PY'
import statistics
rows = {}
for line in open("runs.tsv"):
    name, rate, cpu, delivered = line.rstrip("\n").split("\t")
    rows.setdefault(name, []).append((float(rate), float(cpu), delivered))
for name, runs in rows.items():
    print(f"{name}\t{statistics.median(r for r, _, _ in runs):.0f}\t{statistics.median(c for _, c, _ in runs):.1f}\t{min(d for _, _, d in runs)}")
PY
echo "| library path, $N notifications, median of $REPS | rate (/s) | CPU per notification (µs) | delivered |"
echo "|---|---|---|---|"
awk -F'\t' '{printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4}' rows.tsv

# The floor (scripts/task-floor.swift): PushWorker's task group, continuations and hand-over to
# another thread with no APNs work, the same N and REPS; what no change in the library removes.
if swiftc -O -o task-floor "$ROOT/scripts/task-floor.swift" 2>floor-build.txt; then
  floors=(); floor_rates=()
  for _ in $(seq 1 "$REPS"); do
    read -r cpu rate < <(./task-floor "$N")
    floors+=("$cpu"); floor_rates+=("$rate")
  done
  echo "| the floor: the same task group, continuations and hand-over, no APNs work (scripts/task-floor.swift) | $(median "${floor_rates[@]}") | $(median "${floors[@]}") | - |"
else
  echo "bench-library: scripts/task-floor.swift did not build (bench-out/library/floor-build.txt)" >&2
  exit 1
fi

# Allocations per notification (issue 24): the same clients under the counting interposer
# (scripts/malloc-count.c), each at N and N/10 tokens, so start-up and connection set-up drop out:
# (count(N) - count(N/10)) / (N - N/10), median of REPS. LD_PRELOAD goes on the measured
# program itself (env sets it for PushWorker), not on a wrapper.
SMALL=$((N / 10)); head -n "$SMALL" tokens.txt > tokens-small.txt
MC=$(malloc_count_library .) || { echo "bench-library: gcc could not build scripts/malloc-count.c" >&2; exit 1; }
# allocs_once NAME TOKENS COMMAND...: appends "NAME<TAB>tokens<TAB>allocations<TAB>delivered" to allocs.tsv.
allocs_once() {
  local name=$1 tokens=$2; shift 2
  env LD_PRELOAD="$MC" MALLOC_COUNT_OUT="$PWD/counts" "$@" < "$tokens" > out.txt 2> err.txt || true
  local delivered; delivered=$(grep -c '^delivered ' out.txt || true)
  [ "$delivered" = 0 ] && delivered=$(json_field out.txt delivered 2>/dev/null || echo 0)
  printf '%s\t%s\t%s\t%s\n' "$name" "$(wc -l < "$tokens")" "$(malloc_counts counts | cut -d' ' -f1)" "$delivered" >> allocs.tsv
}
: > allocs.tsv
for _ in $(seq 1 "$REPS"); do
  for tokens in tokens-small.txt tokens.txt; do
    allocs_once "PushWorker (library, task group of single sends)" "$tokens" "${VARIABLES[@]}" "$BIN_DIR/PushWorker"
    if [ -n "${BEFORE:-}" ]; then allocs_once "PushWorker before (${BEFORE_LABEL:-older build})" "$tokens" "${VARIABLES[@]}" "$BEFORE"; fi
    allocs_once "apnskit push --tokens (batch)" "$tokens" "$BIN_DIR/apnskit" push apns.pem --gateway "127.0.0.1:$PORT" \
      --ca-file ca/ca-bundle.pem --tokens - --alert benchmark --format json
  done
done
echo
echo "| library path, allocations per notification: (count($N) - count($SMALL)) / $((N - SMALL)), median of $REPS | allocations per notification | every run delivered all |"
echo "|---|---|---|"
python3 - <<'PY'
import statistics
runs = {}
for line in open("allocs.tsv"):
    name, tokens, allocs, delivered = line.rstrip("\n").split("\t")
    runs.setdefault(name, []).append((int(tokens), int(allocs), delivered.strip() == tokens.strip()))
for name, seen in runs.items():
    pairs = list(zip(seen[0::2], seen[1::2]))
    per = [(large[1] - small[1]) / (large[0] - small[0]) for small, large in pairs]
    print(f"| {name} | {statistics.median(per):.1f} | {'yes' if all(ok for _, _, ok in seen) else 'FAILED: not every notification delivered'} |")
PY
