#!/usr/bin/env bash
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
# Instructions per notification (issue 24): `apnskit push` and h2load sending the same requests
# (same header set, payload and path) to the same nghttpd, each counted by valgrind's callgrind
# at two sizes, so start-up cancels out: (instructions(N) - instructions(N/4)) / (3N/4). Unlike
# CPU time this figure does not move with other load on a shared machine (it counts work, not
# time), which makes it the one to compare builds by. BEFORE_APNSKIT=path/to/an/older/apnskit
# adds that build to the same table.
# Usage: scripts/bench-instructions.sh [N]   (bench.sh calls it with its release binary in BIN)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-20000}; SMALL=$((N / 4))
. scripts/lib.sh
BIN=${BIN:-$(apnskit_binary release)}
command -v valgrind >/dev/null || { echo "bench-instructions: valgrind is not installed (scripts/setup.sh installs it)" >&2; exit 1; }
OUT=bench-out/instructions; rm -rf "$OUT"; mkdir -p "$OUT"
ROOT=$PWD; cd "$OUT"
PIDS=(); trap 'for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done' EXIT
# valgrind 3.19 cannot read Swift's DWARF 5 and crashes in Swift's async main without the
# sigsuspend shim: the same two work-arounds as scripts/leakcheck.sh.
cc "$ROOT/scripts/valgrind-sigsuspend.c" -shared -fPIC -O2 -o sigsuspend.so
bench_fixtures "$BIN"
token_lines "$N" "$TOKEN" > tokens-big.txt
token_lines "$SMALL" "$TOKEN" > tokens-small.txt
PORT=$(free_port)
nghttpd -d htdocs "$PORT" ca/server-key.pem ca/server.pem >/dev/null 2>&1 &
PIDS+=($!)
sleep 0.5

# instructions NAME COUNT COMMAND...: runs COMMAND under callgrind; prints its instruction total.
instructions() {
  local name=$1 count=$2; shift 2
  LD_PRELOAD="$PWD/sigsuspend.so" valgrind --tool=callgrind --callgrind-out-file="cg-$name-$count.out" "$@" \
    > "out-$name-$count.txt" 2> "err-$name-$count.txt" || { echo "bench-instructions: $name failed (bench-out/instructions/err-$name-$count.txt)" >&2; exit 1; }
  awk '/^(summary|totals):/ { print $2; exit }' "cg-$name-$count.out"
}
# push_per BINARY NAME: push's instructions per notification (every notification must be delivered).
push_per() {
  local binary=$1 name=$2 big small
  strip --strip-debug -o "$name-bin" "$binary"
  for size in big small; do
    local count; count=$([ $size = big ] && echo "$N" || echo "$SMALL")
    local total; total=$(instructions "$name" "$count" "./$name-bin" push --auth-key AuthKey_BENCH00001.p8 --team-id TEAM123456 \
      --tokens "tokens-$size.txt" --payload payload.json --push-type alert --topic com.example.app --gateway "127.0.0.1:$PORT" \
      --ca-file ca/ca-bundle.pem --connections 1 --concurrency 100 --format json)
    [ "$(json_field "out-$name-$count.txt" delivered)" = "$count" ] || { echo "bench-instructions: $name did not deliver all $count" >&2; exit 1; }
    if [ $size = big ]; then big=$total; else small=$total; fi
  done
  echo $(( (big - small) / (N - SMALL) ))
}
h2load_total() {
  local count=$1
  local total; total=$(instructions h2load "$count" h2load -n "$count" -c 1 -m 100 "${HEADERS[@]}" -d payload.json \
    "https://127.0.0.1:$PORT/3/device/$TOKEN")
  grep -q "status codes: $count 2xx" "out-h2load-$count.txt" || { echo "bench-instructions: h2load did not get $count 2xx" >&2; exit 1; }
  echo "$total"
}
ref=$(( ($(h2load_total "$N") - $(h2load_total "$SMALL")) / (N - SMALL) ))
ours=$(push_per "$BIN" push)
echo "| instructions per notification (callgrind, $N minus $SMALL), 1 connection, 100 in flight, nghttpd on one path | count | ratio to h2load |"
echo "|---|---|---|"
echo "| apnskit push | $ours | $(calc "$ours/$ref" .2f)x |"
if [ -n "${BEFORE_APNSKIT:-}" ]; then
  before=$(push_per "$BEFORE_APNSKIT" before)
  echo "| apnskit push, before (${BEFORE_LABEL:-$(basename "$BEFORE_APNSKIT")}) | $before | $(calc "$before/$ref" .2f)x |"
fi
echo "| h2load, same requests | $ref | 1.00x |"
