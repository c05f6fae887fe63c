#!/usr/bin/env bash
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
# Makes the picture of the mock inbox in docs/mock-gateway.md (docs/inbox.png, or the PNG path given): a mock
# gateway with --ui-port, a few notifications a developer would send (an alert, a localized
# alert, a Live Activity update, a silent push, an oversize payload, a wrong topic), and
# headless Chromium's screenshot of the page. Everything else happens in a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
OUT_PNG="$(realpath -m "${1:-docs/inbox.png}")"
bash scripts/setup.sh >/dev/null
. scripts/lib.sh
BIN="$(apnskit_binary debug 2> >(tail -1 >&2))"

WORK=$(mktemp -d)
SERVER_PID=""
cleanup() { if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; fi; rm -rf "$WORK"; }
trap cleanup EXIT
cd "$WORK"
"$BIN" mock ca -o ca >/dev/null
"$BIN" csr --email dev@example.com --common-name "Acme Push" --key-out push.key --csr-out push.csr >/dev/null
"$BIN" mock issue push.csr --ca ca --bundle-id com.acme.coffee --type universal -o push.cer >/dev/null
"$BIN" combine push.cer push.key -o apns.pem >/dev/null
"$BIN" mock issue --auth-key --ca ca --team-id ACME123456 --key-id ACMEKEY001 -o . >/dev/null
"$BIN" mock serve --ca ca --port 0 --no-legacy --no-feedback --ui-port 0 --ports-file ports.json -q >server.out 2>server.log &
SERVER_PID=$!
wait_for_file ports.json 10 "$SERVER_PID"
PORT=$(json_field ports.json provider)
UI=$(json_field ports.json ui)
TOKEN=7c9a1f3e5b2d4c6a8e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d
push() { "$BIN" push apns.pem --token "$TOKEN" --gateway "127.0.0.1:$PORT" --ca-file ca/ca-bundle.pem "$@" >/dev/null 2>&1 || true; }

printf '{"aps":{"alert":"Your receipt: %s"}}\n' "$(yes 'flat white 3.40, ' | head -n 260 | tr -d '\n')" > big.json
printf '%s' '{"aps":{"alert":{"title-loc-key":"ORDER_READY_TITLE","loc-key":"ORDER_READY_BODY","loc-args":["Sam","flat white"]},"sound":"chime.caf"}}' > loc.json
push --content-available
push --payload loc.json
"$BIN" push --auth-key AuthKey_ACMEKEY001.p8 --team-id ACME123456 --topic com.acme.coffee --token "$TOKEN" \
  --gateway "127.0.0.1:$PORT" --ca-file ca/ca-bundle.pem \
  --live-activity update --content-state '{"status":"Brewing","eta":"3 min","position":2}' >/dev/null
# push refuses an oversize payload before sending; curl sends it as another client would.
curl --http2 --silent --cacert ca/ca-bundle.pem --cert apns.pem -H "apns-topic: com.acme.coffee" -H "apns-push-type: alert" \
  --data-binary @big.json "https://127.0.0.1:$PORT/3/device/$TOKEN" >/dev/null
push --topic com.acme.tea --alert "Your tea is steeping"
push --title "Acme Coffee" --subtitle "Order #1042" --alert "Your flat white is ready at the counter." --badge 2 --sound default \
  --collapse-id order-1042

# Over the DevTools pipe: chromium's --screenshot with --virtual-time-budget never returns
# while the page's live feed (server-sent events) is open.
python3 "$ROOT/scripts/inbox-browser.py" "http://127.0.0.1:$UI/" --cards 6 --dom page.html --screenshot "$OUT_PNG" --width 1200 --height 900
echo "wrote $OUT_PNG"
