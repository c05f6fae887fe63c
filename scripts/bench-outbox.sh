#!/usr/bin/env bash
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
# The outbox beside push (docs/benchmarks.md, "The outbox"): the same N notifications to the
# same mock, sent by `push --tokens` and drained from a PostgreSQL outbox by 1, 2 and 4
# `outbox run` workers. Per run: rows per second (wall time from the workers' start to the last
# one's exit, --until-empty), the workers' CPU per row (getrusage through GNU time), the mock's
# and PostgreSQL's own CPU per row (/proc: the postmaster and every process under it, backends
# included, before and after). Prints a markdown table; also in bench-out-outbox/results.md.
# Usage: scripts/bench-outbox.sh [ROWS] (default 100000); APNSKIT_BIN=path skips the build.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS="${1:-100000}"
bash scripts/setup.sh >/dev/null
. scripts/lib.sh
BIN="${APNSKIT_BIN:-$(apnskit_binary release)}"
BIN="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
PGBIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
OUT=bench-out-outbox
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT"
HERE="$(pwd)"
PIDS=()
AS_SERVER=(); if [ "$(id -u)" = 0 ]; then AS_SERVER=(setpriv --reuid=65534 --regid=65534 --clear-groups); fi
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  [ -d "$HERE/pg/data" ] && "${AS_SERVER[@]}" "$PGBIN/pg_ctl" -D "$HERE/pg/data" -m immediate -w stop >/dev/null 2>&1 || true
}
trap cleanup EXIT

# ---- PostgreSQL: a cluster of its own, Unix socket only, as nobody when root ---------------------
echo "== PostgreSQL ($PGBIN)" >&2
mkdir -p pg/data pg/socket && chmod 755 . pg
[ "$(id -u)" = 0 ] && chown 65534:65534 pg/data pg/socket
"${AS_SERVER[@]}" "$PGBIN/initdb" -D "$HERE/pg/data" -U postgres --auth=trust -E UTF8 --no-sync --no-instructions >pg/initdb.log
# Durable commits as in production (fsync and synchronous_commit on); a larger WAL between checkpoints.
printf "listen_addresses = ''\nunix_socket_directories = '%s'\nmax_wal_size = '4GB'\nshared_buffers = '256MB'\n" "$HERE/pg/socket" \
  >> pg/data/postgresql.auto.conf
"${AS_SERVER[@]}" "$PGBIN/pg_ctl" -D "$HERE/pg/data" -l "$HERE/pg/socket/server.log" -w start >/dev/null
POSTMASTER=$(head -1 pg/data/postmaster.pid)
URL="postgres://postgres@localhost/postgres?host=$HERE/pg/socket"
psql_() { "$PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$HERE/pg/socket" -U postgres -d postgres -c "$1"; }
# pg_cpu: CPU seconds of the postmaster, its reaped children and its live ones (backends, WAL writer...).
pg_cpu() {
  python3 - "$POSTMASTER" <<'PY'
import os, sys
root = sys.argv[1]
def fields(pid):
    return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
own = fields(root)
total = sum(int(own[i]) for i in (11, 12, 13, 14))
for pid in os.listdir("/proc"):
    if not pid.isdigit() or pid == root: continue
    try:
        f = fields(pid)
    except OSError:
        continue
    if f[1] == root: total += int(f[11]) + int(f[12])
print(total / os.sysconf("SC_CLK_TCK"))
PY
}

# ---- the mock and the tokens --------------------------------------------------------------------
echo "== mock, $ROWS tokens" >&2
bench_fixtures "$BIN"
"$BIN" mock serve --ca ca --port 0 --no-legacy --no-feedback --ports-file ports.json -q >mock.log 2>&1 &
MOCK_PID=$!; PIDS+=("$MOCK_PID")
wait_for_file ports.json 20 "$MOCK_PID"
PORT=$(json_field ports.json provider)
token_lines "$ROWS" > tokens.txt
AUTH=(--auth-key AuthKey_BENCH00001.p8 --team-id TEAM123456 --gateway "127.0.0.1:$PORT" --ca-file ca/ca-bundle.pem)
"$BIN" outbox init --postgres "$URL" >/dev/null

ROWS_OUT=()
# ---- push --tokens: the reference -------------------------------------------------------------
echo "== push --tokens" >&2
mock_before=$(process_cpu "$MOCK_PID")
/usr/bin/time -f "%e %U %S" -o push.time "$BIN" push "${AUTH[@]}" --tokens tokens.txt --payload payload.json --push-type alert \
  --topic com.example.app --format json >push.json 2>push.err
mock_after=$(process_cpu "$MOCK_PID")
read -r wall user sys < <(tail -1 push.time)
[ "$(json_field push.json delivered)" = "$ROWS" ] || { echo "bench-outbox: push did not deliver every notification" >&2; exit 1; }
PUSH_RATE=$(calc "$ROWS/$wall" .0f)
ROWS_OUT+=("| push --tokens (no database) | $PUSH_RATE | 1.00 | $(calc "($user+$sys)*1e6/$ROWS" .1f) | $(calc "($mock_after-$mock_before)*1e6/$ROWS" .1f) | - |")

# ---- the outbox with 1, 2 and 4 workers ----------------------------------------------------------
for workers in 1 2 4; do
  echo "== outbox: $workers worker(s)" >&2
  psql_ "TRUNCATE apns_outbox"
  "$BIN" outbox enqueue --postgres "$URL" --tokens tokens.txt --payload payload.json --push-type alert --topic com.example.app >enqueue.out
  psql_ "VACUUM ANALYZE apns_outbox"
  pg_before=$(pg_cpu); mock_before=$(process_cpu "$MOCK_PID")
  start=$(date +%s%N)
  pids=()
  for i in $(seq 1 "$workers"); do
    /usr/bin/time -f "%U %S" -o "worker-$workers-$i.time" "$BIN" outbox run --postgres "$URL" "${AUTH[@]}" --until-empty --poll-interval 0.1 \
      --format json >"worker-$workers-$i.json" 2>"worker-$workers-$i.err" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
  wall=$(calc "($(date +%s%N)-$start)/1e9" .3f)
  sleep 0.5  # the backends of the closed connections are reaped into the postmaster's children's time
  pg_after=$(pg_cpu); mock_after=$(process_cpu "$MOCK_PID")
  delivered=$(psql_ "SELECT count(*) FROM apns_outbox WHERE state = 'delivered'")
  [ "$delivered" = "$ROWS" ] || { echo "bench-outbox: $delivered of $ROWS rows delivered with $workers workers" >&2; exit 1; }
  worker_cpu=0
  for i in $(seq 1 "$workers"); do worker_cpu=$(calc "$worker_cpu+$(tail -1 "worker-$workers-$i.time" | awk '{print $1+$2}')"); done
  rate=$(calc "$ROWS/$wall" .0f)
  pg_per_row=$(calc "($pg_after-$pg_before)*1e6/$ROWS" .1f)
  ROWS_OUT+=("| outbox run, $workers worker$([ "$workers" = 1 ] || echo s) | $rate | $(calc "$rate/$PUSH_RATE" .2f) | $(calc "$worker_cpu*1e6/$ROWS" .1f) | $(calc "($mock_after-$mock_before)*1e6/$ROWS" .1f) | $pg_per_row |")
done

{
  echo "Machine: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%d); release build; PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') (fsync on), Unix socket; $ROWS notifications per run, one run each, token auth, to the mock on loopback."
  echo
  echo "| sender | rows/s | vs push | sender CPU µs/row | mock CPU µs/row | PostgreSQL CPU µs/row |"
  echo "|---|---|---|---|---|---|"
  printf '%s\n' "${ROWS_OUT[@]}"
} | tee results.md
