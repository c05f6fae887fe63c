#!/usr/bin/env bash
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
# Allocations per unit (issue 24): heap calls (malloc, calloc, realloc, the memalign family)
# per notification or request, counted by scripts/malloc-count.c (LD_PRELOAD) in every process
# of the same work side by side: push and h2load sending the same requests (client side), and
# the mock and nghttpd answering them (server side). Allocation counts do not move with load on
# a shared machine the way time does, so they show what a change to the per-request path did.
#
# Start-up and connection set-up are subtracted, not divided in: each side runs at N and at
# N/10 units, and a row gives (count(N) - count(N/10)) / (N - N/10). Servers are read from their
# counters before and after each run (the same subtraction). Median of REPS runs.
# BEFORE_APNSKIT=path/to/an/older/apnskit adds that build's push to the push rows.
# Usage: scripts/bench-allocs.sh [--quick]   (bench.sh runs it; APNSKIT_BIN skips the build)
set -euo pipefail
cd "$(dirname "$0")/.."
QUICK=0; [ "${1:-}" = --quick ] && QUICK=1
. scripts/lib.sh
BIN=${APNSKIT_BIN:-$(apnskit_binary release)}
N=200000; [ $QUICK = 1 ] && N=20000
SMALL=$((N / 10)); REPS=${REPS:-3}; [ $QUICK = 1 ] && REPS=1
OUT=bench-out/allocs; rm -rf "$OUT"; mkdir -p "$OUT"; cd "$OUT"
PIDS=(); trap 'for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done' EXIT
MC=$(malloc_count_library .) || { echo "bench-allocs: gcc could not build scripts/malloc-count.c" >&2; exit 1; }

bench_fixtures "$BIN"
for n in $SMALL $N; do token_lines "$n" > "tokens-$n.txt"; token_lines "$n" "$TOKEN" > "tokens-one-$n.txt"; done

# Both servers count their allocations from start; rows read them before and after each run.
LD_PRELOAD=$MC MALLOC_COUNT_OUT=$PWD/counts-mock "$BIN" mock serve --ca ca --port 0 --no-legacy --no-feedback \
  --ports-file ports.json -q >/dev/null 2>mock.log &
PIDS+=($!); wait_for_file ports.json 10 "$!"
MOCK_PORT=$(json_field ports.json provider)
NG_PORT=$(free_port)
LD_PRELOAD=$MC MALLOC_COUNT_OUT=$PWD/counts-nghttpd nghttpd -d htdocs "$NG_PORT" ca/server-key.pem ca/server.pem >/dev/null 2>&1 &
PIDS+=($!)
for _ in $(seq 1 50); do [ -s counts-nghttpd ] && curl -sk -o /dev/null "https://127.0.0.1:$NG_PORT/" && break; sleep 0.1; done
for n in $SMALL $N; do sed "s|^|https://127.0.0.1:$MOCK_PORT/3/device/|" "tokens-$n.txt" > "uris-$n.txt"; done

# counted_run SERVER-COUNTS COUNT KIND ARGS...: one run of `push` (KIND push:BINARY) or h2load
# (KIND h2load) with COUNT units under the interposer; prints "client-allocs client-bytes
# server-allocs"; a run that did not get every unit through leaves a line in failed.txt.
counted_run() {
  local server="$1" count="$2" kind="$3"; shift 3
  local before after client
  before=$(malloc_counts "$server" | cut -d' ' -f1)
  if [ "$kind" = h2load ]; then
    LD_PRELOAD=$MC MALLOC_COUNT_OUT=$PWD/counts-client h2load -n "$count" "$@" > h2load.txt 2>&1 || true
    # The mock refuses the first burst's extra streams until a token succeeds (both sizes alike).
    local ok; ok=$(grep -oE 'status codes: [0-9]+ 2xx' h2load.txt | cut -d' ' -f3 || echo 0)
    [ "${ok:-0}" -ge $((count - 99)) ] || echo "h2load $count: only ${ok:-0} answers 2xx" >> failed.txt
  else
    LD_PRELOAD=$MC MALLOC_COUNT_OUT=$PWD/counts-client "${kind#push:}" push --auth-key AuthKey_BENCH00001.p8 --team-id TEAM123456 \
      --payload payload.json --push-type alert --topic com.example.app --ca-file ca/ca-bundle.pem --connections 1 \
      --concurrency 100 --format json "$@" > push.json 2> push.err || true
    [ "$(json_field push.json delivered 2>/dev/null)" = "$count" ] || echo "push $count: not every notification delivered ($(tail -1 push.err))" >> failed.txt
  fi
  after=$(malloc_counts "$server" | cut -d' ' -f1)
  client=$(malloc_counts counts-client)
  echo "$client $((after - before))"
}

# per_unit NAME SERVER-COUNTS KIND SMALL-ARGS -- LARGE-ARGS: REPS pairs of runs (N/10, then N);
# sets CLIENT, BYTES and SERVER: the medians of (count(N) - count(N/10)) / (N - N/10).
per_unit() {
  local name="$1" server="$2" kind="$3"; shift 3
  local small_args=() large_args=() clients=() bytes=() servers=() a b
  while [ "$1" != -- ]; do small_args+=("$1"); shift; done; shift; large_args=("$@")
  echo "== allocations: $name ($SMALL and $N)" >&2
  for _ in $(seq 1 "$REPS"); do
    read -r -a a <<< "$(counted_run "$server" "$SMALL" "$kind" "${small_args[@]}")"
    read -r -a b <<< "$(counted_run "$server" "$N" "$kind" "${large_args[@]}")"
    clients+=("$(calc "(${b[0]}-${a[0]})/($N-$SMALL)" .2f)")
    bytes+=("$(calc "(${b[1]}-${a[1]})/($N-$SMALL)" .0f)")
    servers+=("$(calc "(${b[2]}-${a[2]})/($N-$SMALL)" .2f)")
  done
  CLIENT=$(median "${clients[@]}"); BYTES=$(median "${bytes[@]}"); SERVER=$(median "${servers[@]}")
}

ROWS=()
# push_rows TITLE SERVER-COUNTS PORT TOKENS-PREFIX H2LOAD-TARGET...: push (and the older push)
# beside h2load sending the same requests.
push_rows() {
  local title="$1" server="$2" port="$3" tokens="$4"; shift 4
  local target=("$@") p_client p_bytes p_server
  per_unit "push, $title" "$server" "push:$BIN" --gateway "127.0.0.1:$port" --tokens "$tokens-$SMALL.txt" -- \
    --gateway "127.0.0.1:$port" --tokens "$tokens-$N.txt"
  p_client=$CLIENT; p_bytes=$BYTES; p_server=$SERVER
  per_unit "h2load, $title" "$server" h2load -c 1 -m 100 "${HEADERS[@]}" -d payload.json "${target[@]/@N@/$SMALL}" -- \
    -c 1 -m 100 "${HEADERS[@]}" -d payload.json "${target[@]/@N@/$N}"
  ROWS+=("| push vs h2load -c 1 -m 100, $title, client allocations per notification | push: $p_client ($p_bytes B) | h2load: $CLIENT ($BYTES B) | $(calc "$p_client/max($CLIENT,0.01)" .1f)x | $p_server | $SERVER |")
  if [ -n "${BEFORE_APNSKIT:-}" ]; then
    per_unit "push before, $title" "$server" "push:$BEFORE_APNSKIT" --gateway "127.0.0.1:$port" --tokens "$tokens-$SMALL.txt" -- \
      --gateway "127.0.0.1:$port" --tokens "$tokens-$N.txt"
    ROWS+=("| push after vs before (${BEFORE_LABEL:-$(basename "$BEFORE_APNSKIT")}), $title | after: $p_client ($p_bytes B) | before: $CLIENT ($BYTES B) | $(calc "$p_client/max($CLIENT,0.01)" .2f)x | $p_server | $SERVER |")
  fi
}
push_rows "1 connection, to nghttpd on a single path" counts-nghttpd "$NG_PORT" tokens-one "https://127.0.0.1:$NG_PORT/3/device/$TOKEN"
push_rows "1 connection, distinct tokens, to the mock (token auth)" counts-mock "$MOCK_PORT" tokens -i "uris-@N@.txt"

# The servers under the same h2load requests (one path): allocations per request, server side.
per_unit "mock under h2load" counts-mock h2load -c 1 -m 100 "${HEADERS[@]}" -d payload.json "https://127.0.0.1:$MOCK_PORT/3/device/$TOKEN" -- \
  -c 1 -m 100 "${HEADERS[@]}" -d payload.json "https://127.0.0.1:$MOCK_PORT/3/device/$TOKEN"
m_server=$SERVER
per_unit "nghttpd under h2load" counts-nghttpd h2load -c 1 -m 100 "${HEADERS[@]}" -d payload.json "https://127.0.0.1:$NG_PORT/3/device/$TOKEN" -- \
  -c 1 -m 100 "${HEADERS[@]}" -d payload.json "https://127.0.0.1:$NG_PORT/3/device/$TOKEN"
ROWS+=("| mock vs nghttpd under h2load -c 1 -m 100, one path, server allocations per request | mock: $m_server | nghttpd: $SERVER | $(calc "$m_server/max($SERVER,0.01)" .1f)x | | |")

echo "| allocations per unit: (count(N) - count(N/10)) / (N - N/10), N = $N, median of $REPS | apnskit (bytes asked for) | reference (bytes) | ratio | server per unit, apnskit's run | server per unit, reference's run |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
echo
echo "Allocations: calls to malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign (scripts/malloc-count.c, LD_PRELOAD); $(date -u +%Y-%m-%d)."
if [ -s failed.txt ]; then echo "bench-allocs: FAILED: a run did not get every unit through:" >&2; cat failed.txt >&2; exit 1; fi
