#!/usr/bin/env bash
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
# Instructions per notification (issue 24): `apnskit push` and h2load sending the same requests
# (same header set, payload and path) to the same nghttpd, each counted by valgrind's callgrind
# at two sizes, so start-up cancels out: (instructions(N) - instructions(N/4)) / (3N/4). Unlike
# CPU time this figure does not move with other load on a shared machine (it counts work, not
# time), which makes it the one to compare builds by. BEFORE_APNSKIT=path/to/an/older/apnskit
# adds that build to the same table. The same again with a distinct device token per
# notification, as real batches have (h2load -i over the same paths). Then the library path the same way (Examples/PushWorker's
# task group of single sends beside push --tokens), and where each side's instructions go by
# library (scripts/callgrind-libraries.py).
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
# Distinct tokens, as a real batch has them (a device path each): nghttpd serves an empty file
# for each, so every request of both clients is answered 200.
token_lines "$N" > tokens-distinct-big.txt
head -n "$SMALL" tokens-distinct-big.txt > tokens-distinct-small.txt
(cd htdocs/3/device && xargs touch < ../../../tokens-distinct-big.txt)
PORT=$(free_port)
nghttpd -d htdocs "$PORT" ca/server-key.pem ca/server.pem >/dev/null 2>&1 &
PIDS+=($!)
sleep 0.5

# Swift seeds its hash tables at random per process, and where keys land decides how much
# probing a lookup or a removal costs: with a random seed one build's count moved by about
# 1,500 per notification from run to run (2026-12-02). A fixed seed takes that out; what is
# left is timing's share (how many answers one read brings): 300 to 1,400 in two pairs of runs.
export SWIFT_DETERMINISTIC_HASHING=1
# instructions NAME COUNT COMMAND...: runs COMMAND under callgrind; prints its instruction total.
instructions() {
  local name=$1 count=$2; shift 2
  LD_PRELOAD="$PWD/sigsuspend.so" valgrind --tool=callgrind --callgrind-out-file="cg-$name-$count.out" "$@" \
    > "out-$name-$count.txt" 2> "err-$name-$count.txt" || { echo "bench-instructions: $name failed (bench-out/instructions/err-$name-$count.txt)" >&2; exit 1; }
  awk '/^(summary|totals):/ { print $2; exit }' "cg-$name-$count.out"
}
# per_unit TOTAL ARGUMENTS...: instructions per unit, (TOTAL N - TOTAL SMALL) / (N - SMALL), where
# `TOTAL COUNT ARGUMENTS...` prints the instructions of a run over COUNT units (and fails the
# script when that run's work failed).
per_unit() {
  local total=$1 big small; shift
  big=$("$total" "$N" "$@") || exit 1
  small=$("$total" "$SMALL" "$@") || exit 1
  echo $(( (big - small) / (N - SMALL) ))
}
# tokens_file COUNT: the token file of COUNT lines (N or SMALL) of the kind TOKENS names
# (distinct: a different token each; default, the one path).
tokens_file() { echo "tokens-${TOKENS:+$TOKENS-}$([ "$1" = "$N" ] && echo big || echo small).txt"; }
# client_total COUNT NAME BINARY ARGUMENTS...: BINARY (stripped of debug information) run with
# ARGUMENTS on COUNT tokens as stdin (TOKENS=distinct: a different token each; default, the one
# path); every notification must be delivered (a "delivered" line each, or push's JSON report).
# The APNS_* variables are PushWorker's; push ignores them.
client_total() {
  local count=$1 name=$2 binary=$3 total delivered; shift 3
  strip --strip-debug -o "$name-bin" "$binary"
  total=$(APNS_IDENTITY=worker.pem APNS_GATEWAY="127.0.0.1:$PORT" APNS_CA_FILE=ca/ca-bundle.pem \
    instructions "$name" "$count" "./$name-bin" "$@" \
    < "$(tokens_file "$count")") || exit 1
  delivered=$(grep -c '^delivered ' "out-$name-$count.txt" || true)
  [ "$delivered" = 0 ] && delivered=$(json_field "out-$name-$count.txt" delivered)
  [ "$delivered" = "$count" ] || { echo "bench-instructions: $name delivered $delivered of $count" >&2; exit 1; }
  echo "$total"
}
# push_per BINARY NAME: push's instructions per notification, token auth, 1 connection.
push_per() {
  per_unit client_total "$2" "$1" push --auth-key AuthKey_BENCH00001.p8 --team-id TEAM123456 --tokens - --payload payload.json \
    --push-type alert --topic com.example.app --gateway "127.0.0.1:$PORT" --ca-file ca/ca-bundle.pem --connections 1 \
    --concurrency 100 --format json
}
# h2load_total COUNT: h2load's instructions over COUNT requests, on the one path or (TOKENS=distinct)
# on the same distinct device paths push is given (-i: a URI per line, in order).
h2load_total() {
  local count=$1 name=h2load${TOKENS:+-$TOKENS} target
  if [ -n "${TOKENS:-}" ]; then
    sed "s|^|https://127.0.0.1:$PORT/3/device/|" "$(tokens_file "$count")" > "uris-$count.txt"
    target=(-i "uris-$count.txt")
  else
    target=("https://127.0.0.1:$PORT/3/device/$TOKEN")
  fi
  local total; total=$(instructions "$name" "$count" h2load -n "$count" -c 1 -m 100 "${HEADERS[@]}" -d payload.json \
    "${target[@]}") || exit 1
  grep -q "status codes: $count 2xx" "out-$name-$count.txt" || { echo "bench-instructions: $name did not get $count 2xx" >&2; exit 1; }
  echo "$total"
}
# push_table TITLE: the push rows (this build, BEFORE_APNSKIT's, h2load) for the tokens TOKENS names.
push_table() {
  local ref ours before suffix=${TOKENS:+-$TOKENS}
  ref=$(per_unit h2load_total)
  ours=$(push_per "$BIN" "push$suffix")
  echo "| instructions per notification (callgrind, $N minus $SMALL), 1 connection, 100 in flight, $1 | count | ratio to h2load |"
  echo "|---|---|---|"
  echo "| apnskit push | $ours | $(calc "$ours/$ref" .2f)x |"
  if [ -n "${BEFORE_APNSKIT:-}" ]; then
    before=$(push_per "$BEFORE_APNSKIT" "before$suffix")
    echo "| apnskit push, before (${BEFORE_LABEL:-$(basename "$BEFORE_APNSKIT")}) | $before | $(calc "$before/$ref" .2f)x |"
  fi
  echo "| h2load, same requests | $ref | 1.00x |"
}
push_table "nghttpd on one path"
# The shape APNs traffic has: a device token per notification. h2load indexes each new path
# (HPACK's dynamic table); push sends device paths never indexed (docs/benchmarks.md says why).
echo
TOKENS=distinct push_table "$N distinct device paths, nghttpd"

# The library path (issue 33): Examples/PushWorker (one APNsClient, a task group of single
# sends, two connections, certificate auth) beside `push --tokens` with the same certificate,
# two connections and a payload of the same bytes, to the same nghttpd path, counted the same
# way. Both encode the payload once; PushWorker prints a line per result, as push writes its
# report. PUSHWORKER=path/to/PushWorker (default: beside BIN, built when missing).
PUSHWORKER=${PUSHWORKER:-$(dirname "$BIN")/PushWorker}
[ -x "$PUSHWORKER" ] || (cd "$ROOT" && swift build -c release --product PushWorker >&2)
"$BIN" csr --email bench@example.com --common-name Bench --key-out worker.key --csr-out worker.csr >/dev/null
"$BIN" mock issue worker.csr --ca ca --bundle-id com.example.app --type universal -o worker.cer >/dev/null
"$BIN" combine worker.cer worker.key -o worker.pem >/dev/null
printf '{"aps":{"alert":{"title":"Hello","body":"From a long-running worker"},"sound":"default","thread-id":"worker"}}' > worker-payload.json
worker=$(per_unit client_total worker "$PUSHWORKER")
batch=$(per_unit client_total batch "$BIN" push worker.pem --tokens - --payload worker-payload.json --push-type alert --gateway "127.0.0.1:$PORT" \
  --ca-file ca/ca-bundle.pem --connections 2 --concurrency 100 --format json)
echo
echo "| instructions per notification (callgrind, $N minus $SMALL), library path, 2 connections, certificate auth, nghttpd on one path | count | ratio to push --tokens |"
echo "|---|---|---|"
echo "| PushWorker (task group of single sends) | $worker | $(calc "$worker/$batch" .2f)x |"
echo "| apnskit push --tokens, same certificate, payload bytes and connections | $batch | 1.00x |"

# Where each side's instructions go, by library (the same profiles, big minus small).
echo
python3 "$ROOT/scripts/callgrind-libraries.py" --units $((N - SMALL)) "push:cg-push-$N.out:cg-push-$SMALL.out" \
  "h2load:cg-h2load-$N.out:cg-h2load-$SMALL.out" "PushWorker:cg-worker-$N.out:cg-worker-$SMALL.out" \
  "push --tokens, 2 connections:cg-batch-$N.out:cg-batch-$SMALL.out" \
  "push, distinct paths:cg-push-distinct-$N.out:cg-push-distinct-$SMALL.out" \
  "h2load, distinct paths:cg-h2load-distinct-$N.out:cg-h2load-distinct-$SMALL.out"

# The servers (issue 33): the mock and nghttpd answering the same h2load requests (token auth,
# the header set push sends, 1 connection, 100 streams), each under callgrind for N and for
# SMALL requests in a fresh process, stopped with SIGTERM; a row is the difference per request.
# The mock refuses h2load's first burst but one in both runs (the token connection's start,
# apns-protocol.md §1), so that work cancels out too.
# server_total COUNT NAME: the server's instructions over COUNT requests.
server_total() {
  local count=$1 name=$2 port pid
  rm -f "ports-$name.json"
  if [ "$name" = mock ]; then
    LD_PRELOAD="$PWD/sigsuspend.so" valgrind --tool=callgrind --callgrind-out-file="cg-$name-$count.out" \
      ./push-bin mock serve --ca ca --port 0 --no-legacy --no-feedback --ports-file "ports-$name.json" -q > /dev/null 2> "err-$name-$count.txt" &
    pid=$!
    wait_for_file "ports-$name.json" 60 "$pid"
    port=$(json_field "ports-$name.json" provider)
  else
    port=$(free_port)
    valgrind --tool=callgrind --callgrind-out-file="cg-$name-$count.out" nghttpd -d htdocs "$port" ca/server-key.pem ca/server.pem \
      > /dev/null 2> "err-$name-$count.txt" &
    pid=$!
    local i; for ((i = 0; i < 600; i++)); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
  fi
  h2load -n "$count" -c 1 -m 100 "${HEADERS[@]}" -d payload.json "https://127.0.0.1:$port/3/device/$TOKEN" > "h2load-$name-$count.txt" 2>&1 || true
  kill -TERM "$pid"; wait "$pid" || true
  local answered; answered=$(sed -n 's/.*status codes: \([0-9]*\) 2xx.*/\1/p' "h2load-$name-$count.txt")
  [ "${answered:-0}" -ge $((count - 100)) ] || { echo "bench-instructions: $name answered ${answered:-0} of $count with 2xx" >&2; exit 1; }
  awk '/^(summary|totals):/ { print $2; exit }' "cg-$name-$count.out"
}
mock=$(per_unit server_total mock)
nghttpd_count=$(per_unit server_total nghttpd)
echo
echo "| instructions per request (callgrind, $N minus $SMALL), server side, h2load -c 1 -m 100, token auth | count | ratio to nghttpd |"
echo "|---|---|---|"
echo "| apnskit mock serve | $mock | $(calc "$mock/$nghttpd_count" .2f)x |"
echo "| nghttpd | $nghttpd_count | 1.00x |"
echo
python3 "$ROOT/scripts/callgrind-libraries.py" --units $((N - SMALL)) "mock:cg-mock-$N.out:cg-mock-$SMALL.out" \
  "nghttpd:cg-nghttpd-$N.out:cg-nghttpd-$SMALL.out"
