#!/usr/bin/env bash
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
# The main job end to end, offline, on the embedded default: the local mock gateway.
# Keychain's part (key + CSR), the portal's part (the mock CA issues aps_development.cer),
# Keychain's legacy .p12 export, apnskit prepare -> combined PEM, inspect/check, the app's
# provisioning profile cross-checked with the certificate, then verify
# and push against the mock gateway. Everything is written under demo-out/.
set -eEuo pipefail
cd "$(dirname "$0")/.."
# Any command that fails stops the demo with one sentence naming it (the steps say which step).
trap 'echo "demo: stopped: the command on line $LINENO of scripts/demo.sh failed (exit $?); the lines above say why." >&2' ERR
# Only the minimal set: the toolchain's needs, OpenSSL, nghttp2, curl and python3 (no JDK,
# browser or valgrind: those are for the tests).
bash scripts/setup.sh demo >/dev/null
. scripts/lib.sh

echo "== building apnskit"
# Not inside $(...): a failure there does not stop the script under set -e.
if ! swift build -c release --product apnskit 2> >(tail -1 >&2) >/dev/null; then
  echo "demo: the release build of apnskit failed; run swift build -c release --product apnskit to see every error." >&2
  exit 1
fi
APNSKIT="$(swift build -c release --show-bin-path)/apnskit"

OUT=demo-out
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT"
GATEWAY_PID=""
cleanup() { if [ -n "$GATEWAY_PID" ]; then kill "$GATEWAY_PID" 2>/dev/null || true; fi; }
trap cleanup EXIT
step() {
  printf '\n== %s\n$ apnskit %s\n' "$1" "${*:3}"
  local status=0
  "${@:2}" || status=$?
  if [ "$status" -ne 0 ]; then echo "demo: step ${1%%.*} failed (exit $status); the lines above say why." >&2; exit 1; fi
}
# step_failing NAME COMMAND...: a step that shows a refusal: it must fail, with exit 1.
step_failing() {
  printf '\n== %s\n$ apnskit %s\n' "$1" "${*:3}"
  local status=0
  "${@:2}" || status=$?
  if [ "$status" -ne 1 ]; then echo "demo: step ${1%%.*} should have failed with exit 1 (got $status)." >&2; exit 1; fi
  printf '   (exit %s, as expected)\n' "$status"
}

step "0. a local stand-in for Apple: the mock CA (root, WWDR-like intermediate, gateway certificate)" \
  "$APNSKIT" mock ca -o mock-ca

step "1. key pair and CSR, as Keychain Access's 'Request a Certificate From a CA' makes them" \
  "$APNSKIT" csr --email dev@example.com --common-name "Demo Push Key" --key-out push.key --csr-out push.csr

step "2. the 'portal' signs the CSR: an Apple-like development push certificate (.cer, DER)" \
  "$APNSKIT" mock issue push.csr --ca mock-ca --bundle-id com.example.demo --type development -o aps_development.cer

step "3. the .cer as PEM" "$APNSKIT" import-cer aps_development.cer -o aps_development.pem

export DEMO_P12_PASS="demo-passphrase"
step "4. what Keychain exports: a legacy RC2-40/3DES .p12 (OpenSSL 3's CLI refuses it without -legacy)" \
  "$APNSKIT" p12 create aps_development.cer push.key --legacy --passout env:DEMO_P12_PASS -o Certificates.p12
printf '   openssl pkcs12 without -legacy says: '
# openssl's refusal is the point: its exit status must not trip pipefail into "(no error)".
{ openssl pkcs12 -in Certificates.p12 -passin env:DEMO_P12_PASS -noout 2>&1 || true; } | grep -o 'unsupported.*RC2[^ ]*' | head -1 | grep . || echo "(no error)"

step "5. prepare: .p12 -> checked combined PEM (replaces four openssl/cat commands)" \
  "$APNSKIT" prepare Certificates.p12 --passin env:DEMO_P12_PASS -o apns-dev.pem

step "6. what it is" "$APNSKIT" inspect apns-dev.pem

step "7. the CI gate: expiry, environment, topic, key" \
  "$APNSKIT" check apns-dev.pem --environment sandbox --topic com.example.demo --require-key --ca-file mock-ca/ca-bundle.pem

step "7a. the app's half: a development provisioning profile from the mock 'portal' (aps-environment development)" \
  "$APNSKIT" mock issue --profile --ca mock-ca --bundle-id com.example.demo --distribution development -o Demo_Development.mobileprovision

step "7b. what the profile says, its signer checked against the CA" \
  "$APNSKIT" inspect Demo_Development.mobileprovision --ca-file mock-ca/ca-bundle.pem

step "7c. certificate and profile agree: app id, environment, team" \
  "$APNSKIT" check apns-dev.pem Demo_Development.mobileprovision --ca-file mock-ca/ca-bundle.pem

step "7d. an App Store profile for the same app (aps-environment production)" \
  "$APNSKIT" mock issue --profile --ca mock-ca --bundle-id com.example.demo --distribution appstore -o Demo_AppStore.mobileprovision

step_failing "7e. the App Store build's tokens are production ones; the development certificate cannot reach them: the gate fails" \
  "$APNSKIT" check apns-dev.pem Demo_AppStore.mobileprovision --ca-file mock-ca/ca-bundle.pem

step "7f. a token-auth key (.p8), registered with the mock gateway, for the Live Activity steps" \
  "$APNSKIT" mock issue --auth-key --ca mock-ca --team-id DEMOTEAM01 --key-id DEMOKEY001 -o keys

printf '\n== 8. the embedded default gateway: apnskit mock serve (HTTP/2 provider API, legacy, feedback, the inbox web UI)\n'
"$APNSKIT" mock serve --ca mock-ca --port 0 --legacy-port 0 --feedback-port 0 --channels-port 0 --ui-port 0 --ports-file ports.json --record accepted.jsonl \
  >gateway.out 2>gateway.log &
GATEWAY_PID=$!
wait_for_file ports.json 10 "$GATEWAY_PID"
cat gateway.out
PORT=$(json_field ports.json provider)
UI=$(json_field ports.json ui)
echo "   the inbox: open http://127.0.0.1:$UI/ to see every notification below as a device would show it"

step "9. verify: TLS handshake, chain, client certificate, probe request" \
  "$APNSKIT" verify apns-dev.pem --gateway "127.0.0.1:$PORT" --ca-file mock-ca/ca-bundle.pem

if "$APNSKIT" push --help >/dev/null 2>&1; then
  TOKEN=$(printf 'c9d4c07c%.0s' 1 2 3 4 5 6 7 8)
  step "10. push one notification with the verified identity" \
    "$APNSKIT" push apns-dev.pem --token "$TOKEN" --alert "Hello from apnskit" --topic com.example.demo \
    --gateway "127.0.0.1:$PORT" --ca-file mock-ca/ca-bundle.pem
  token_lines 1000 > tokens.txt
  step "11. push a batch of 1,000 with per-notification results" \
    "$APNSKIT" push apns-dev.pem --tokens tokens.txt --alert "Batch" --topic com.example.demo \
    --gateway "127.0.0.1:$PORT" --ca-file mock-ca/ca-bundle.pem --results results.jsonl
fi

# Live Activities over a broadcast channel (apns-protocol.md §8), with a token-auth key.
CHANNELS=$(json_field ports.json channels)
KEY=(--auth-key keys/AuthKey_DEMOKEY001.p8 --team-id DEMOTEAM01 --bundle-id com.example.demo --ca-file mock-ca/ca-bundle.pem)
step "12. a provider JWT from the .p8, and what the Console's JWT validator would say about it" \
  "$APNSKIT" token inspect "$("$APNSKIT" token --auth-key keys/AuthKey_DEMOKEY001.p8 --team-id DEMOTEAM01)" --auth-key keys/AuthKey_DEMOKEY001.p8
step "13. create a broadcast channel" "$APNSKIT" channels create "${KEY[@]}" --gateway "127.0.0.1:$CHANNELS"
CHANNEL=$("$APNSKIT" channels list "${KEY[@]}" --gateway "127.0.0.1:$CHANNELS" | tail -1)
# Priority 5: an update without an alert at priority 10 spends the activity's budget of
# high-priority updates (the la-priority-budget lint); 10 is for updates that alert.
step "14. broadcast a Live Activity update to every device subscribed to it (priority 5: no alert, no budget spent)" \
  "$APNSKIT" push --channel "$CHANNEL" --live-activity update --content-state '{"score": "2-1", "minute": 67}' --stale-date +900 --priority 5 \
  "${KEY[@]}" --gateway "127.0.0.1:$PORT"
step "15. read the channel, then delete it" "$APNSKIT" channels read "$CHANNEL" "${KEY[@]}" --gateway "127.0.0.1:$CHANNELS"
"$APNSKIT" channels delete "$CHANNEL" "${KEY[@]}" --gateway "127.0.0.1:$CHANNELS"

printf '\n== 16. the same with --print-curl: apnskit prints each request, curl sends it\n'
curl_run() { printf '$ %s\n' "$1" | cut -c1-160; sh -c "$1 --silent --show-error --dump-header curl-headers.txt --write-out '   -> HTTP %{http_code}\\n'"; }
curl_run "$("$APNSKIT" channels create "${KEY[@]}" --gateway "127.0.0.1:$CHANNELS" --print-curl)"
CHANNEL=$(tr -d '\r' < curl-headers.txt | awk -F': ' 'tolower($1) == "apns-channel-id" {print $2}')
echo "   channel $CHANNEL"
curl_run "$("$APNSKIT" push --channel "$CHANNEL" --live-activity update --content-state '{"score": "3-1", "minute": 81}' --priority 5 \
  "${KEY[@]}" --gateway "127.0.0.1:$PORT" --print-curl)"
curl_run "$("$APNSKIT" channels read "$CHANNEL" "${KEY[@]}" --gateway "127.0.0.1:$CHANNELS" --print-curl)"; echo
curl_run "$("$APNSKIT" channels delete "$CHANNEL" "${KEY[@]}" --gateway "127.0.0.1:$CHANNELS" --print-curl)"

printf '\n== 17. a batch as curl commands: one per token line (one JWT for all), each run by curl\n'
head -3 tokens.txt > three-tokens.txt
"$APNSKIT" push --tokens three-tokens.txt --topic com.example.demo --alert "Batch by curl" --auth-key keys/AuthKey_DEMOKEY001.p8 \
  --team-id DEMOTEAM01 --ca-file mock-ca/ca-bundle.pem --gateway "127.0.0.1:$PORT" --print-curl > batch-curl.txt
while IFS= read -r command; do curl_run "$command"; done < batch-curl.txt

printf '\n== 18. the inbox saw all of it: its JSON API (the page at http://127.0.0.1:%s/ shows the same)\n' "$UI"
curl --silent --show-error "http://127.0.0.1:$UI/api/notifications?limit=1" > inbox.json
printf '   %s request(s) answered, %s kept; the newest: %s %s\n' "$(json_field inbox.json seen)" "$(json_field inbox.json kept)" \
  "$(json_field inbox.json notifications.0.protocol)" "$(json_field inbox.json notifications.0.status)"
# At a terminal, leave the inbox up to look at; CI and piped runs go straight on.
if [ -t 0 ] && [ -z "${CI:-}" ]; then read -r -p "   Press Enter to stop the mock gateway and its inbox... " _; fi

kill "$GATEWAY_PID"; wait "$GATEWAY_PID" 2>/dev/null || true; GATEWAY_PID=""
printf '\n== the gateway recorded %s accepted notification(s), %s broadcast(s) and %s channel call(s) in %s/accepted.jsonl\n' \
  "$(( $(jsonl_count accepted.jsonl protocol h2) + $(jsonl_count accepted.jsonl protocol legacy) ))" \
  "$(jsonl_count accepted.jsonl protocol broadcast)" "$(jsonl_count accepted.jsonl protocol channels)" "$OUT"
ls -l apns-dev.pem push.key Certificates.p12 | awk '{print "   " $1, $NF}'
printf '\nDemo finished: files are in %s/\n' "$OUT"
