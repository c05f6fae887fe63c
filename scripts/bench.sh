#!/usr/bin/env bash
# Benchmarks apnskit side by side with the reference tools, in the same run, on loopback.
# Prints a markdown table (also written to bench-out/results.md) with ratios. Timings vary
# with the machine; the ratios are what the README quotes. Usage: scripts/bench.sh [--quick]
set -euo pipefail
cd "$(dirname "$0")/.."
QUICK=0; [ "${1:-}" = "--quick" ] && QUICK=1
bash scripts/setup.sh >/dev/null
export PATH="/opt/swift/usr/bin:$PATH"
echo "== building apnskit (release)" >&2
swift build -c release --product apnskit >&2
BIN="$(swift build -c release --show-bin-path)/apnskit"

OUT=bench-out
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT"
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

now_ns() { date +%s%N; }
seconds_since() { python3 -c "print(f'{($(now_ns)-$1)/1e9:.3f}')"; }
ratio() { python3 -c "a,b=float('$1'),float('$2'); print(f'{a/b:.2f}' if b else 'n/a')"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
ROWS=()
row() { ROWS+=("| $1 | $2 | $3 | $4 |"); }

# ---- fixtures --------------------------------------------------------------------------
echo "== fixtures" >&2
"$BIN" mock ca -o ca >/dev/null
"$BIN" csr --email bench@example.com --common-name Bench --key-out push.key --csr-out push.csr >/dev/null
"$BIN" mock issue push.csr --ca ca --bundle-id com.example.app --type universal -o push.cer >/dev/null
"$BIN" combine push.cer push.key -o apns.pem >/dev/null
"$BIN" mock issue --auth-key --ca ca --team-id TEAM123456 --key-id BENCH00001 -o . >/dev/null
CERTS=1000; [ $QUICK = 1 ] && CERTS=200
mkdir -p certs
for i in $(seq 1 $CERTS); do
  "$BIN" mock issue push.csr --ca ca --bundle-id "com.example.app$i" --days $((i % 60 + 1)) -o "certs/c$i.cer" >/dev/null
done

# ---- 1. check a folder of certificates vs a shell loop of openssl x509 -checkend ----------
echo "== check: $CERTS certificates" >&2
start=$(now_ns); "$BIN" check certs --min-days 30 >/dev/null || true; t_ours=$(seconds_since $start)
start=$(now_ns)
for f in certs/*.cer; do openssl x509 -inform DER -in "$f" -noout -checkend 2592000 >/dev/null || true; done
t_ref=$(seconds_since $start)
row "check $CERTS certificates (expiry horizon 30 days)" "apnskit check: ${t_ours}s" "openssl x509 -checkend loop: ${t_ref}s" "$(ratio "$t_ref" "$t_ours")x faster"

# Every measured process (servers, h2load, apnskit) runs under the same real-time priority when
# the system allows it, so that other load on a shared machine does not decide a ratio; each
# throughput is the median of REPS runs.
RT=(); if chrt -f 10 true 2>/dev/null; then RT=(chrt -f 10); fi
REPS=3; [ $QUICK = 1 ] && REPS=1
median() { python3 -c "import sys, statistics; print(f'{statistics.median(float(x) for x in sys.argv[1:]):.0f}')" "$@"; }

# ---- 2. the mock gateway vs nghttpd under h2load -c 1 -m 100 -------------------------------
N=200000; [ $QUICK = 1 ] && N=50000
TOKEN=$(printf 'ab%.0s' $(seq 1 32))
printf '{"aps":{"alert":"benchmark"}}' > payload.json
JWT=$(python3 - <<'PY'
import base64, json, subprocess, time
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
head = b64(json.dumps({"alg": "ES256", "kid": "BENCH00001"}, separators=(",", ":")).encode())
claims = b64(json.dumps({"iss": "TEAM123456", "iat": int(time.time())}, separators=(",", ":")).encode())
der = subprocess.run(["openssl", "dgst", "-sha256", "-sign", "AuthKey_BENCH00001.p8"], input=f"{head}.{claims}".encode(), capture_output=True, check=True).stdout
i = 2 + (der[1] & 0x7F if der[1] & 0x80 else 0)
r = der[i + 2:i + 2 + der[i + 1]]; i += 2 + der[i + 1]
s = der[i + 2:i + 2 + der[i + 1]]
zero = bytes(1)
signature = b64(r[-32:].rjust(32, zero) + s[-32:].rjust(32, zero))
print(head + "." + claims + "." + signature)
PY
)
"${RT[@]}" "$BIN" mock serve --ca ca --port 0 --no-legacy --no-feedback --ports-file ports.json -q >/dev/null 2>mock.log &
PIDS+=($!)
for _ in $(seq 1 100); do [ -s ports.json ] && break; sleep 0.1; done
MOCK_PORT=$(python3 -c "import json; print(json.load(open('ports.json'))['provider'])")
mkdir -p htdocs/3/device && : > "htdocs/3/device/$TOKEN"
NG_PORT=$(free_port)
"${RT[@]}" nghttpd -d htdocs "$NG_PORT" ca/server-key.pem ca/server.pem >/dev/null 2>&1 &
PIDS+=($!)
sleep 0.5
rate() { grep -oE 'finished in [0-9.]+m?s, [0-9.]+ req/s' | grep -oE '[0-9.]+ req/s' | cut -d' ' -f1; }
# h2load_median NAME ARGS...: median req/s over REPS runs; the last run's output in h2load-NAME.txt.
h2load_median() {
  local name="$1"; shift
  local rates=()
  for _ in $(seq 1 $REPS); do rates+=("$("${RT[@]}" h2load "$@" 2>/dev/null | tee "h2load-$name.txt" | rate)"); done
  median "${rates[@]}"
}
echo "== h2load: $N requests, 1 connection, 100 streams" >&2
r_mock=$(h2load_median mock -n "$N" -c 1 -m 100 -H "authorization: bearer $JWT" -H "apns-topic: com.example.app" -d payload.json \
  "https://127.0.0.1:$MOCK_PORT/3/device/$TOKEN")
r_ng=$(h2load_median nghttpd -n "$N" -c 1 -m 100 -d payload.json "https://127.0.0.1:$NG_PORT/3/device/$TOKEN")
grep -q "$N 2xx" h2load-mock.txt || echo "warning: not every mock answer was 2xx (see bench-out/h2load-mock.txt)" >&2
row "h2load -c 1 -m 100, $N POSTs, token auth" "apnskit mock: ${r_mock} req/s" "nghttpd: ${r_ng} req/s" "$(ratio "$r_mock" "$r_ng")x nghttpd"

# ---- 2b. the mock with its inbox web UI on, nobody watching (issue 16) ----------------------
# A second mock with --ui-port; the same h2load run against each, alternating, so load drift
# hits both. The inbox's cost per request is the event it is handed and one ring slot.
"${RT[@]}" "$BIN" mock serve --ca ca --port 0 --no-legacy --no-feedback --ui-port 0 --ports-file ports-ui.json -q >/dev/null 2>mock-ui.log &
PIDS+=($!)
for _ in $(seq 1 100); do [ -s ports-ui.json ] && break; sleep 0.1; done
UI_MOCK_PORT=$(python3 -c "import json; print(json.load(open('ports-ui.json'))['provider'])")
UI_PORT=$(python3 -c "import json; print(json.load(open('ports-ui.json'))['ui'])")
echo "== h2load: the mock without and with --ui-port, $N requests each, alternating" >&2
without_ui=(); with_ui=(); answered=0
for _ in $(seq 1 $REPS); do
  for port in "$MOCK_PORT" "$UI_MOCK_PORT"; do
    r=$("${RT[@]}" h2load -n "$N" -c 1 -m 100 -H "authorization: bearer $JWT" -H "apns-topic: com.example.app" -d payload.json \
      "https://127.0.0.1:$port/3/device/$TOKEN" 2>/dev/null | tee h2load-inbox.txt | rate)
    if [ "$port" = "$MOCK_PORT" ]; then without_ui+=("$r"); else
      with_ui+=("$r")
      # Answered = every status h2load got (streams refused before the token was accepted never reach the inbox).
      answered=$((answered + $(grep -oE '^status codes: .*' h2load-inbox.txt | grep -oE '[0-9]+ [2-5]xx' | awk '{s += $1} END {print s + 0}')))
    fi
  done
done
seen=$(curl --silent "http://127.0.0.1:$UI_PORT/api/notifications?limit=1" | python3 -c "import json, sys; print(json.load(sys.stdin)['seen'])")
[ "$seen" = "$answered" ] || echo "warning: the inbox saw $seen requests, h2load got $answered answers" >&2
r_without=$(median "${without_ui[@]}"); r_with=$(median "${with_ui[@]}")
row "mock with vs without --ui-port (nobody watching), h2load -c 1 -m 100, $N POSTs" "with --ui-port: ${r_with} req/s" \
  "without: ${r_without} req/s" "$(ratio "$r_with" "$r_without")x"

# ---- 3. push: apnskit push --tokens vs h2load sending the same requests to the same server --
if "$BIN" push --help >/dev/null 2>&1; then
  P=200000; [ $QUICK = 1 ] && P=50000
  python3 -c "
with open('tokens.txt','w') as f:
    for i in range($P): f.write('%064x\n' % (i+1))
"
  # The reference sends exactly what push sends: the same $P device paths (h2load -i), the same
  # payload, token auth on the mock. (nghttpd answers 404 for these paths, to both clients.)
  for target in "mock:$MOCK_PORT" "nghttpd:$NG_PORT"; do
    name=${target%%:*}; port=${target##*:}
    sed "s|^|https://127.0.0.1:$port/3/device/|" tokens.txt > "uris-$name.txt"
    auth=(); [ "$name" = mock ] && auth=(-H "authorization: bearer $JWT" -H "apns-topic: com.example.app")
    echo "== push: $P notifications to $name, and h2load with the same requests" >&2
    ref=$(h2load_median "push-$name" -n "$P" -c 1 -m 100 "${auth[@]}" -d payload.json -i "uris-$name.txt")
    rates=()
    for _ in $(seq 1 $REPS); do
      "${RT[@]}" "$BIN" push --auth-key AuthKey_BENCH00001.p8 --team-id TEAM123456 --tokens tokens.txt --payload payload.json \
        --topic com.example.app --gateway "127.0.0.1:$port" --ca-file ca/ca-bundle.pem --connections 1 --concurrency 100 \
        --format json >"push-$name.json" 2>"push-$name.err" || true
      rates+=("$(python3 -c "import json; print(json.load(open('push-$name.json'))['rate'])")")
    done
    ours=$(median "${rates[@]}")
    row "push $P tokens over 1 connection to $name (token auth)" "apnskit push: ${ours}/s" "h2load -c 1 -m 100, same requests: ${ref} req/s" "$(ratio "$ours" "$ref")x h2load"
  done
  M=1000000; [ $QUICK = 1 ] && M=200000
  python3 -c "
with open('tokens-big.txt','w') as f:
    for i in range($M): f.write('%064x\n' % (i+1))
"
  echo "== push: peak memory for $M tokens" >&2
  /usr/bin/time -f "%M" -o push-mem.txt "$BIN" push apns.pem --tokens tokens-big.txt --payload payload.json --topic com.example.app \
    --gateway "127.0.0.1:$MOCK_PORT" --ca-file ca/ca-bundle.pem --results results-big.jsonl >/dev/null 2>&1 || true
  kb=$(tail -1 push-mem.txt)
  row "push $M tokens with --results: peak memory" "$((kb / 1024)) MiB" "target: 64 MiB" "$([ "$kb" -lt 65536 ] && echo within || echo OVER)"
fi

{
  echo "| benchmark | apnskit | reference | ratio |"
  echo "|---|---|---|---|"
  printf '%s\n' "${ROWS[@]}"
  echo
  echo "Machine: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%d); release build; loopback; median of $REPS runs;" \
    "$([ ${#RT[@]} -gt 0 ] && echo "every measured process at real-time priority (chrt -f 10)" || echo "normal priority (chrt not permitted)")."
} | tee results.md
