#!/usr/bin/env bash
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
#
# The main job end to end with an installed apnskit, on a bare system: run by
# scripts/package-test.sh inside a clean Debian root that has apnskit from a package and
# nothing else (no Swift, no Python, no openssl CLI), so it uses only bash, coreutils, sed, grep
# and awk. Mock CA, CSR, the mock portal's certificate, a Keychain-style legacy .p12, prepare,
# check, the mock gateway on loopback, verify, and a batch push with per-notification results.
#
#   flow.sh APNSKIT WORK-DIR
set -euo pipefail
apnskit="$1"
mkdir -p "$2" && cd "$2"
gateway_pid=""
cleanup() { if [ -n "$gateway_pid" ]; then kill "$gateway_pid" 2>/dev/null || true; wait "$gateway_pid" 2>/dev/null || true; fi; }
trap cleanup EXIT
fail() { echo "flow.sh: $*" >&2; exit 1; }
step() { echo "flow.sh: apnskit ${*:2}"; "$@" >"step.out" 2>&1 || { cat step.out >&2; fail "apnskit ${*:2} failed (exit $?)"; }; }
# json_number FILE KEY: the number after "KEY": in FILE (apnskit's own one-line JSON).
json_number() { sed -n "s/.*\"$2\" *: *\([0-9][0-9]*\).*/\1/p" "$1" | head -1; }

"$apnskit" --version | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+ \(([0-9a-f]{7}|unknown)\)$' \
  || fail "apnskit --version printed '$("$apnskit" --version)', not 'VERSION (COMMIT)'."

step "$apnskit" mock ca -o mock-ca
step "$apnskit" csr --email ops@example.com --common-name "Flow Push Key" --key-out push.key --csr-out push.csr
step "$apnskit" mock issue push.csr --ca mock-ca --bundle-id com.example.flow --type development -o aps_development.cer
export FLOW_P12_PASS="flow-passphrase"
step "$apnskit" p12 create aps_development.cer push.key --legacy --passout env:FLOW_P12_PASS -o Certificates.p12
step "$apnskit" prepare Certificates.p12 --passin env:FLOW_P12_PASS -o apns-dev.pem
[ "$(stat -c %a apns-dev.pem)" = 600 ] || fail "prepare wrote apns-dev.pem with mode $(stat -c %a apns-dev.pem), not 0600."
step "$apnskit" check apns-dev.pem --environment sandbox --topic com.example.flow --require-key --ca-file mock-ca/ca-bundle.pem

echo "flow.sh: apnskit mock serve (loopback)"
"$apnskit" mock serve --ca mock-ca --port 0 --ports-file ports.json --record accepted.jsonl >gateway.out 2>gateway.log &
gateway_pid=$!
for _ in $(seq 1 100); do
  [ -s ports.json ] && break
  kill -0 "$gateway_pid" 2>/dev/null || { cat gateway.log >&2; fail "mock serve exited before writing ports.json."; }
  sleep 0.1
done
port="$(json_number ports.json provider)"
[ -n "$port" ] || fail "mock serve's ports.json names no provider port: $(cat ports.json)"

step "$apnskit" verify apns-dev.pem --gateway "127.0.0.1:$port" --ca-file mock-ca/ca-bundle.pem
seq 1 200 | awk '{ printf "%064x\n", $1 }' > tokens.txt
step "$apnskit" push apns-dev.pem --tokens tokens.txt --alert "Batch from a package" --topic com.example.flow \
  --gateway "127.0.0.1:$port" --ca-file mock-ca/ca-bundle.pem --results results.jsonl
results="$(grep -c . results.jsonl)"
accepted="$(grep -c '"status" *: *"delivered"' results.jsonl || true)"
[ "$results" = 200 ] && [ "$accepted" = 200 ] \
  || fail "push wrote $results result(s), $accepted delivered, for 200 tokens."
kill "$gateway_pid"; wait "$gateway_pid" 2>/dev/null || true; gateway_pid=""
recorded="$(grep -c . accepted.jsonl)"
[ "$recorded" = 200 ] || fail "the mock gateway recorded $recorded notification(s), not 200."
echo "flow.sh: the flow passed: 200 notifications sent, answered and recorded."
