#!/usr/bin/env bash
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
# Benchmarks apnskit side by side with the reference tools, in the same run, on loopback.
# Prints a markdown table (also written to bench-out/results.md) with ratios. Timings vary
# with the machine; the ratios are what docs/benchmarks.md quotes.
# Usage: scripts/bench.sh [--quick] [--event-loop] [--allocs] [--outbox]
#   --quick       smaller sizes, one run per figure
#   --event-loop  only the mock-vs-nghttpd rows (what the event loop decides; a few minutes)
#   --allocs      only the allocations-per-unit rows (scripts/bench-allocs.sh, and the library
#                 path's, scripts/bench-library.sh); every full run ends with them too
#   --outbox      only the PostgreSQL outbox beside push --tokens (scripts/bench-outbox.sh: 1, 2
#                 and 4 workers, PostgreSQL's own CPU per row)
# BEFORE_APNSKIT=path/to/an/older/apnskit (BEFORE_LABEL=its name) adds that build's mock to the
# mock-vs-nghttpd rounds and its push to the push rows (time and allocations), for a
# before/after measured under the same load.
set -euo pipefail
cd "$(dirname "$0")/.."
QUICK=0; LOOP_ONLY=0; ALLOCS_ONLY=0; OUTBOX_ONLY=0
for arg in "$@"; do
  case "$arg" in
    --quick) QUICK=1 ;;
    --event-loop) LOOP_ONLY=1 ;;
    --allocs) ALLOCS_ONLY=1 ;;
    --outbox) OUTBOX_ONLY=1 ;;
    *) echo "bench: unknown option $arg (use --quick, --event-loop, --allocs or --outbox)" >&2; exit 2 ;;
  esac
done
bash scripts/setup.sh >/dev/null
. scripts/lib.sh
echo "== building apnskit (release)" >&2
BIN="$(apnskit_binary release)"
# allocation_rows: the allocations-per-unit tables (client and server side, then the library
# path), appended to bench-out/results.md; fails when a run's work failed.
allocation_rows() {
  local quick=(); [ $QUICK = 1 ] && quick=(--quick)
  APNSKIT_BIN="$BIN" bash scripts/bench-allocs.sh "${quick[@]}"
  bash scripts/bench-library.sh "$([ $QUICK = 1 ] && echo 2000 || echo 10000)"
}
if [ $OUTBOX_ONLY = 1 ]; then
  APNSKIT_BIN="$BIN" exec bash scripts/bench-outbox.sh "$([ $QUICK = 1 ] && echo 20000 || echo 100000)"
fi
if [ $ALLOCS_ONLY = 1 ]; then
  mkdir -p bench-out
  allocation_rows | tee bench-out/results.md
  exit "${PIPESTATUS[0]}"
fi

OUT=bench-out
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT"
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

now_ns() { date +%s%N; }
seconds_since() { calc "($(now_ns)-$1)/1e9" .3f; }
ratio() { if [ "$(calc "$2 == 0")" = True ]; then echo n/a; else calc "$1/$2" .2f; fi; }

# ---- fixtures --------------------------------------------------------------------------
echo "== fixtures" >&2
"$BIN" mock ca -o ca >/dev/null
"$BIN" csr --email bench@example.com --common-name Bench --key-out push.key --csr-out push.csr >/dev/null
"$BIN" mock issue push.csr --ca ca --bundle-id com.example.app --type universal -o push.cer >/dev/null
"$BIN" combine push.cer push.key -o apns.pem >/dev/null
"$BIN" mock issue --auth-key --ca ca --team-id TEAM123456 --key-id BENCH00001 -o . >/dev/null
CERTS=1000; [ $QUICK = 1 ] && CERTS=200; [ $LOOP_ONLY = 1 ] && CERTS=0
mkdir -p certs
for i in $(seq 1 $CERTS); do
  "$BIN" mock issue push.csr --ca ca --bundle-id "com.example.app$i" --days $((i % 60 + 1)) -o "certs/c$i.cer" >/dev/null
done

# ---- CPU accounting ------------------------------------------------------------------------
# CPU per unit is what docs/benchmarks.md compares (it stays put on a noisy machine where rates move):
# a client's user+sys comes from getrusage of its process (GNU time), a server's from
# /proc/PID/stat (utime+stime) read before and after each run.
# cpu_of FILE: user+sys seconds from a `/usr/bin/time -f "%U %S"` output file.
cpu_of() { tail -1 "$1" | awk '{print $1+$2}'; }
# us_per SECONDS COUNT: microseconds per unit.
us_per() { calc "$1*1e6/$2" .1f; }
# us_between BEFORE AFTER COUNT: microseconds per unit of a CPU-seconds difference.
us_between() { calc "($2-$1)*1e6/$3" .1f; }
ROWS=()
# row NAME APNSKIT REFERENCE RATIO APNSKIT-CPU REFERENCE-CPU: one table line.
row() { ROWS+=("| $1 | $2 | $3 | $4 | $5 | $6 |"); }

if [ $LOOP_ONLY = 0 ]; then  # (sections 1, 2b, 3, 4 and the library path: not with --event-loop)
# ---- 1. check a folder of certificates: one process vs a loop of openssl processes, and vs an
#         in-process Python reference doing the same expiry test -----------------------------
echo "== check: $CERTS certificates" >&2
start=$(now_ns); rc=0
/usr/bin/time -f "%U %S" -o cpu-check.txt "$BIN" check certs --min-days 30 >/dev/null || rc=$?
t_ours=$(seconds_since $start)
# check exits 1 when a certificate expires within the horizon (some of these do, by design).
[ $rc -le 1 ] || { echo "bench: apnskit check failed (exit $rc)" >&2; exit 1; }
start=$(now_ns)
/usr/bin/time -f "%U %S" -o cpu-openssl.txt bash -c \
  'for f in certs/*.cer; do openssl x509 -inform DER -in "$f" -noout -checkend 2592000 >/dev/null || true; done'
t_ref=$(seconds_since $start)
row "check $CERTS certificates (expiry horizon 30 days)" "apnskit check, one process: ${t_ours}s" \
  "openssl x509 -checkend, one process per file ($CERTS processes): ${t_ref}s" "$(ratio "$t_ref" "$t_ours")x (reference time / ours)" \
  "$(us_per "$(cpu_of cpu-check.txt)" $CERTS) µs/cert" "$(us_per "$(cpu_of cpu-openssl.txt)" $CERTS) µs/cert"
# The fair in-process reference: python cryptography (OpenSSL underneath) parses every file,
# reads the subject's UID and compares notAfter with the horizon (check also reads the APNs
# extensions and writes a report).
cat > check_ref.py <<'EOF'
import datetime, pathlib, sys
from cryptography import x509
horizon = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=30)
expiring = 0
for path in sorted(pathlib.Path(sys.argv[1]).glob("*.cer")):
    cert = x509.load_der_x509_certificate(path.read_bytes())
    cert.subject.get_attributes_for_oid(x509.NameOID.USER_ID)
    expiring += cert.not_valid_after_utc < horizon
print(expiring)
EOF
start=$(now_ns); /usr/bin/time -f "%U %S" -o cpu-pycheck.txt python3 check_ref.py certs >/dev/null; t_py=$(seconds_since $start)
row "check $CERTS certificates, in-process reference" "apnskit check, one process: ${t_ours}s" \
  "python cryptography loop, one process: ${t_py}s" "$(ratio "$t_py" "$t_ours")x (reference time / ours)" \
  "$(us_per "$(cpu_of cpu-check.txt)" $CERTS) µs/cert" "$(us_per "$(cpu_of cpu-pycheck.txt)" $CERTS) µs/cert"

fi

# Every measured process (servers, h2load, apnskit) runs under the same real-time priority when
# the system allows it, so that other load on a shared machine does not decide a ratio; each
# rate and CPU figure is the median of REPS runs.
RT=(); if chrt -f 10 true 2>/dev/null; then RT=(chrt -f 10); fi
REPS=3; [ $QUICK = 1 ] && REPS=1

# ---- 2. the mock gateway vs nghttpd under h2load: 1 connection with 100 streams, and 500
#         connections with 1 stream each (the event loop's cost per ready socket) -----------
N=200000; [ $QUICK = 1 ] && N=50000
# TOKEN, payload.json, htdocs/ and HEADERS, the header set push sends, for h2load (lib.sh).
bench_fixtures "$BIN"
# --max-connections-per-peer: h2load's 500 connections all come from 127.0.0.1.
"${RT[@]}" "$BIN" mock serve --ca ca --port 0 --no-legacy --no-feedback --max-connections-per-peer 600 --ports-file ports.json -q \
  >/dev/null 2>mock.log &
MOCK_PID=$!; PIDS+=("$MOCK_PID")
wait_for_file ports.json 10 "$MOCK_PID"
MOCK_PORT=$(json_field ports.json provider)
OLD_PID=""
if [ -n "${BEFORE_APNSKIT:-}" ]; then
  "${RT[@]}" "$BEFORE_APNSKIT" mock serve --ca ca --port 0 --no-legacy --no-feedback --max-connections-per-peer 600 \
    --ports-file ports-before.json -q >/dev/null 2>mock-before.log &
  OLD_PID=$!; PIDS+=("$OLD_PID")
  wait_for_file ports-before.json 10 "$OLD_PID"
  OLD_PORT=$(json_field ports-before.json provider)
fi
# nghttpd answers 200 (an empty body) to a path whose file exists (htdocs/), 404 otherwise.
NG_PORT=$(free_port)
"${RT[@]}" nghttpd -d htdocs "$NG_PORT" ca/server-key.pem ca/server.pem >/dev/null 2>&1 &
NG_PID=$!; PIDS+=("$NG_PID")
sleep 0.5
rate() { grep -oE 'finished in [0-9.]+m?s, [0-9.]+ req/s' | grep -oE '[0-9.]+ req/s' | cut -d' ' -f1; }
# h2load_median NAME SERVER-PID COUNT ARGS...: runs h2load REPS times; sets H2_RATE (median
# req/s), H2_CPU and H2_SERVER_CPU (median µs per request of h2load and of the server), H2_OK
# (1 when every run got COUNT 2xx answers) and H2_2XX (the fewest 2xx answers of a run). The
# last run's output is in h2load-NAME.txt.
h2load_median() {
  local name="$1" server="$2" count="$3"; shift 3
  local rates=() cpus=() server_cpus=() before got
  H2_OK=1; H2_2XX=$count
  for _ in $(seq 1 $REPS); do
    before=$(process_cpu "$server")
    "${RT[@]}" /usr/bin/time -f "%U %S" -o "cpu-h2load-$name.txt" h2load -n "$count" "$@" >"h2load-$name.txt" 2>&1 || true
    server_cpus+=("$(us_between "$before" "$(process_cpu "$server")" "$count")")
    cpus+=("$(us_per "$(cpu_of "cpu-h2load-$name.txt")" "$count")")
    rates+=("$(rate < "h2load-$name.txt" || echo 0)")
    got=$(grep -oE 'status codes: [0-9]+ 2xx' "h2load-$name.txt" | cut -d' ' -f3 || echo 0)
    [ "$got" = "$count" ] || H2_OK=0
    [ "$got" -lt "$H2_2XX" ] && H2_2XX=$got
  done
  H2_RATE=$(median "${rates[@]}"); H2_CPU=$(median "${cpus[@]}"); H2_SERVER_CPU=$(median "${server_cpus[@]}")
}
# checked OK TEXT [2XX COUNT]: TEXT, or TEXT marked with what was counted when not every
# answer was 2xx. (A token connection refuses the streams beyond 1 until its first success,
# as APNs does: push resends those, h2load counts them as errors.)
checked() {
  if [ "$1" = 1 ]; then echo "$2"
  elif [ -n "${3:-}" ]; then echo "$2 (only $3 of $4 answers 2xx)"
  else echo "$2 (FAILED: not every notification delivered)"; fi
}
URL_MOCK="https://127.0.0.1:$MOCK_PORT/3/device/$TOKEN"; URL_NG="https://127.0.0.1:$NG_PORT/3/device/$TOKEN"
# servers_rows SHAPE [COUNT]: the mock, nghttpd (and the older mock, with BEFORE_APNSKIT) under
# the same h2load SHAPE and COUNT requests (default N), one run of each in turn per round, so load that comes and goes on a
# shared machine falls on all of them; rows compare the servers' CPU per request (the ratio the
# README reads) beside their rates. Sets MOCK_RATE and MOCK_CPU (the mock's medians).
servers_rows() {
  local shape="$1" count="${2:-$N}" tag server round
  tag=$(echo "$shape" | tr -dc 'a-z0-9')
  local servers=(mock nghttpd)
  local -A url=([mock]="$URL_MOCK" [nghttpd]="$URL_NG") pid=([mock]="$MOCK_PID" [nghttpd]="$NG_PID")
  local -A rates=() cpus=() ok=() fewest=() r=() c=()
  if [ -n "$OLD_PID" ]; then servers+=(before); url[before]="https://127.0.0.1:$OLD_PORT/3/device/$TOKEN"; pid[before]="$OLD_PID"; fi
  for server in "${servers[@]}"; do ok[$server]=1; fewest[$server]=$count; done
  echo "== h2load $shape: $count requests to each of ${servers[*]}, $REPS rounds" >&2
  for round in $(seq 1 $REPS); do
    for server in "${servers[@]}"; do
      REPS=1 h2load_median "$server-$tag" "${pid[$server]}" "$count" $shape "${HEADERS[@]}" -d payload.json "${url[$server]}"
      rates[$server]+="$H2_RATE "; cpus[$server]+="$H2_SERVER_CPU "
      [ "$H2_OK" = 1 ] || ok[$server]=0
      [ "$H2_2XX" -lt "${fewest[$server]}" ] && fewest[$server]=$H2_2XX
    done
  done
  for server in "${servers[@]}"; do
    # shellcheck disable=SC2086 # the lists are space-separated numbers
    r[$server]=$(median ${rates[$server]}); c[$server]=$(median ${cpus[$server]})
  done
  row "h2load $shape, $count POSTs, token auth, same headers" "$(checked "${ok[mock]}" "apnskit mock: ${r[mock]} req/s" "${fewest[mock]}" "$count")" \
    "$(checked "${ok[nghttpd]}" "nghttpd: ${r[nghttpd]} req/s" "${fewest[nghttpd]}" "$count")" \
    "$(ratio "${c[mock]}" "${c[nghttpd]}")x nghttpd's CPU per request (rate $(ratio "${r[mock]}" "${r[nghttpd]}")x)" \
    "mock: ${c[mock]} µs/req" "nghttpd: ${c[nghttpd]} µs/req"
  if [ -n "$OLD_PID" ]; then
    row "mock after vs before ($BEFORE_LABEL), h2load $shape, $count POSTs" "$(checked "${ok[mock]}" "after: ${r[mock]} req/s" "${fewest[mock]}" "$count")" \
      "$(checked "${ok[before]}" "before: ${r[before]} req/s" "${fewest[before]}" "$count")" \
      "$(ratio "${c[mock]}" "${c[before]}")x before's CPU per request (rate $(ratio "${r[mock]}" "${r[before]}")x)" \
      "after: ${c[mock]} µs/req" "before: ${c[before]} µs/req"
  fi
  MOCK_RATE=${r[mock]}; MOCK_CPU=${c[mock]}
}
BEFORE_LABEL=${BEFORE_LABEL:-$([ -n "${BEFORE_APNSKIT:-}" ] && basename "$BEFORE_APNSKIT" || echo "")}
servers_rows "-c 1 -m 100"
r_mock=$MOCK_RATE; c_mock=$MOCK_CPU
servers_rows "-c 500 -m 1"
# The same 500 connections paced at 20 requests a second each: most sockets are idle in any one
# turn, as on a gateway holding many quiet connections, so what a turn costs per socket shows.
servers_rows "-c 500 -m 1 --rps 20" "$(( N * 3 / 10 ))"

if [ $LOOP_ONLY = 0 ]; then
# ---- 2b. the mock with its inbox web UI on, nobody watching (issue 16) ----------------------
# A second mock with --ui-port, under the same h2load run; the mock's CPU per request is the
# inbox's cost (an event handed over and one ring slot per answered request).
"${RT[@]}" "$BIN" mock serve --ca ca --port 0 --no-legacy --no-feedback --ui-port 0 --ports-file ports-ui.json -q >/dev/null 2>mock-ui.log &
UI_MOCK_PID=$!; PIDS+=("$UI_MOCK_PID")
wait_for_file ports-ui.json 10 "$UI_MOCK_PID"
UI_MOCK_PORT=$(json_field ports-ui.json provider)
UI_PORT=$(json_field ports-ui.json ui)
echo "== h2load: the mock with --ui-port, $N requests" >&2
h2load_median mock-ui "$UI_MOCK_PID" "$N" -c 1 -m 100 "${HEADERS[@]}" -d payload.json "https://127.0.0.1:$UI_MOCK_PORT/3/device/$TOKEN"
r_ui=$H2_RATE; c_ui=$H2_SERVER_CPU; ok_ui=$H2_OK; n_ui=$H2_2XX
# Every answer reaches the inbox (streams refused before the token was accepted are not answers).
seen=$(curl --silent "http://127.0.0.1:$UI_PORT/api/notifications?limit=1" | json_field - seen)
[ "$seen" -ge "$((n_ui * REPS))" ] || echo "warning: the inbox saw $seen requests, fewer than the $((n_ui * REPS)) answered 2xx" >&2
row "mock with vs without --ui-port (nobody watching), h2load -c 1 -m 100, $N POSTs" \
  "$(checked $ok_ui "with --ui-port: ${r_ui} req/s" $n_ui $N)" "without: ${r_mock} req/s" "$(ratio "$r_ui" "$r_mock")x" \
  "with: ${c_ui} µs/req" "without: ${c_mock} µs/req"

# ---- 3. push vs h2load sending the same requests (same paths, headers, payload) to the same
#         server; every notification and every h2load request must be answered 2xx -----------
P=200000; [ $QUICK = 1 ] && P=50000
token_lines "$P" > tokens.txt
token_lines "$P" "$TOKEN" > tokens-one.txt
sed "s|^|https://127.0.0.1:$MOCK_PORT/3/device/|" tokens.txt > uris-mock.txt
# push_median NAME SERVER-PID PORT TOKENS "POOL OPTIONS": runs push REPS times; sets PUSH_RATE,
# PUSH_CPU, PUSH_SERVER_CPU (medians; µs per notification) and PUSH_OK (1 when every run
# exited 0 with every notification delivered).
push_median() {
  local name="$1" server="$2" port="$3" tokens="$4" pool="$5"
  local count rates=() cpus=() server_cpus=() before
  count=$(wc -l < "$tokens")
  PUSH_OK=1
  for _ in $(seq 1 $REPS); do
    before=$(process_cpu "$server")
    "${RT[@]}" /usr/bin/time -f "%U %S" -o "cpu-push-$name.txt" "$BIN" push --auth-key AuthKey_BENCH00001.p8 --team-id TEAM123456 \
      --tokens "$tokens" --payload payload.json --push-type alert --topic com.example.app --gateway "127.0.0.1:$port" \
      --ca-file ca/ca-bundle.pem $pool --concurrency 100 --format json >"push-$name.json" 2>"push-$name.err" || PUSH_OK=0
    server_cpus+=("$(us_between "$before" "$(process_cpu "$server")" "$count")")
    cpus+=("$(us_per "$(cpu_of "cpu-push-$name.txt")" "$count")")
    rates+=("$(json_field "push-$name.json" rate 2>/dev/null || echo 0)")
    [ "$(json_field "push-$name.json" delivered 2>/dev/null)" = "$count" ] || PUSH_OK=0
  done
  PUSH_RATE=$(median "${rates[@]}"); PUSH_CPU=$(median "${cpus[@]}"); PUSH_SERVER_CPU=$(median "${server_cpus[@]}")
}
# push_row TITLE NAME SERVER-PID PORT TOKENS "POOL OPTIONS" H2LOAD-SHAPE H2LOAD-ARGS...: one row,
# and with BEFORE_APNSKIT a second one: this push against the older build's, in the same run.
push_row() {
  local title="$1" name="$2" server="$3" port="$4" tokens="$5" pool="$6" shape="$7"; shift 7
  echo "== push: $title" >&2
  h2load_median "push-$name" "$server" "$P" $shape "$@"
  push_median "$name" "$server" "$port" "$tokens" "$pool"
  row "$title" "$(checked $PUSH_OK "apnskit push: ${PUSH_RATE}/s")" "$(checked $H2_OK "h2load $shape, same requests: ${H2_RATE} req/s" $H2_2XX $P)" \
    "$(ratio "$PUSH_RATE" "$H2_RATE")x h2load" "push: ${PUSH_CPU} µs/notification (server: ${PUSH_SERVER_CPU})" \
    "h2load: ${H2_CPU} µs/req (server: ${H2_SERVER_CPU})"
  if [ -n "${BEFORE_APNSKIT:-}" ]; then
    local ok=$PUSH_OK rate=$PUSH_RATE cpu=$PUSH_CPU server_cpu=$PUSH_SERVER_CPU
    BIN="$BEFORE_APNSKIT" push_median "$name-before" "$server" "$port" "$tokens" "$pool"
    row "push after vs before ($BEFORE_LABEL): $title" "$(checked $ok "after: ${rate}/s")" "$(checked $PUSH_OK "before: ${PUSH_RATE}/s")" \
      "$(ratio "$cpu" "$PUSH_CPU")x before's CPU per notification (rate $(ratio "$rate" "$PUSH_RATE")x)" \
      "after: ${cpu} µs/notification (server: ${server_cpu})" "before: ${PUSH_CPU} µs/notification (server: ${PUSH_SERVER_CPU})"
  fi
}
push_row "push $P distinct tokens, 1 connection, to the mock (token auth)" mock "$MOCK_PID" "$MOCK_PORT" tokens.txt "--connections 1" \
  "-c 1 -m 100" "${HEADERS[@]}" -d payload.json -i uris-mock.txt
push_row "push $P notifications, 1 connection, to nghttpd on a single path" nghttpd "$NG_PID" "$NG_PORT" tokens-one.txt "--connections 1" \
  "-c 1 -m 100" "${HEADERS[@]}" -d payload.json "$URL_NG"
push_row "push $P notifications, --connections 2 (one thread), to nghttpd on a single path" nghttpd2 "$NG_PID" "$NG_PORT" tokens-one.txt \
  "--connections 2" "-c 2 -m 100" "${HEADERS[@]}" -d payload.json "$URL_NG"
push_row "push $P notifications, --connections 2 --event-loops 2, to nghttpd on a single path" nghttpd2t "$NG_PID" "$NG_PORT" tokens-one.txt \
  "--connections 2 --event-loops 2" "-c 2 -t 2 -m 100" "${HEADERS[@]}" -d payload.json "$URL_NG"

# ---- 4. the batch memory bound: a million tokens with a results line each -------------------
M=1000000; [ $QUICK = 1 ] && M=200000
token_lines "$M" > tokens-big.txt
echo "== push: peak memory for $M tokens" >&2
mem_ok=1
/usr/bin/time -f "%M" -o push-mem.txt "$BIN" push apns.pem --tokens tokens-big.txt --payload payload.json --topic com.example.app \
  --gateway "127.0.0.1:$MOCK_PORT" --ca-file ca/ca-bundle.pem --results results-big.jsonl --format json >push-mem.json 2>push-mem.err || mem_ok=0
[ "$(json_field push-mem.json delivered 2>/dev/null)" = "$M" ] || mem_ok=0
[ "$(wc -l < results-big.jsonl 2>/dev/null || echo 0)" = "$M" ] || mem_ok=0
kb=$(tail -1 push-mem.txt)
if [ $mem_ok = 1 ]; then verdict=$([ "$kb" -lt 65536 ] && echo within || echo OVER)
else verdict="FAILED: not all $M delivered (bench-out/push-mem.err)"; fi
row "push $M tokens with --results: peak memory" "$((kb / 1024)) MiB" "target: 64 MiB" "$verdict" "" ""
fi

{
  echo "| benchmark | apnskit | reference | ratio | apnskit CPU per unit | reference CPU per unit |"
  echo "|---|---|---|---|---|---|"
  printf '%s\n' "${ROWS[@]}"
  echo
  echo "Machine: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%d); release build; loopback; median of $REPS runs; CPU is user+sys per unit (getrusage for clients, /proc/PID/stat for servers);" \
    "$([ ${#RT[@]} -gt 0 ] && echo "every measured process at real-time priority (chrt -f 10)" || echo "normal priority (chrt not permitted)")."
} | tee results.md
# Allocations per unit (issue 24), then the library path (issue 21: PushWorker's task group of
# single sends beside push --tokens, time and allocations).
[ $LOOP_ONLY = 1 ] || (cd .. && allocation_rows) | tee -a results.md
# Instructions per notification, push vs h2load (a count load does not move; BEFORE_APNSKIT adds an older build).
[ $LOOP_ONLY = 1 ] || (cd .. && BIN="$BIN" bash scripts/bench-instructions.sh "$([ $QUICK = 1 ] && echo 8000 || echo 20000)") | tee -a results.md
# A row whose work failed (a push that did not deliver everything) fails the run.
if printf '%s\n' "${ROWS[@]}" | grep -q FAILED; then echo "bench: a benchmark failed; see the rows marked FAILED" >&2; exit 1; fi
