#!/usr/bin/env bash
# The main job end to end, offline: make a key and CSR as Keychain would, get a certificate
# from a stand-in for Apple's portal, receive it as a Keychain-style legacy .p12, and turn it
# into a checked combined PEM. Everything is written under demo-out/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
export PATH="/opt/swift/usr/bin:$PATH"

echo "== building apnskit"
swift build -c release --product apnskit 2>&1 | tail -1
APNSKIT="$(swift build -c release --show-bin-path)/apnskit"

OUT=demo-out
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT"
step() { printf '\n== %s\n$ %s\n' "$1" "${*:2}"; "${@:2}"; }

step "1. key pair and CSR, as Keychain Access's 'Request a Certificate From a CA' makes them" \
  "$APNSKIT" csr --email dev@example.com --common-name "Demo Push Key" --key-out push.key --csr-out push.csr

# 2. Apple's portal stand-in: a throwaway CA signs the CSR and hands back a DER .cer.
printf '\n== 2. the "portal" (a throwaway local CA) signs the CSR and returns aps_development.cer\n'
openssl req -x509 -newkey rsa:2048 -nodes -keyout portal-ca.key -out portal-ca.pem -days 30 \
  -subj "/CN=Demo Worldwide Developer Relations CA/O=apnskit demo" 2>/dev/null
openssl x509 -req -in push.csr -CA portal-ca.pem -CAkey portal-ca.key -CAcreateserial -days 395 -sha256 \
  -outform DER -out aps_development.cer 2>/dev/null
echo "wrote aps_development.cer ($(wc -c < aps_development.cer) bytes, DER)"

step "3. the .cer as PEM" "$APNSKIT" import-cer aps_development.cer -o aps_development.pem

export DEMO_P12_PASS="demo-passphrase"
step "4. what Keychain exports: a legacy RC2-40/3DES .p12 (the kind OpenSSL 3 refuses without -legacy)" \
  "$APNSKIT" p12 create aps_development.cer push.key --legacy --passout env:DEMO_P12_PASS -o Certificates.p12

printf '\n   openssl pkcs12 without -legacy: '
openssl pkcs12 -in Certificates.p12 -passin env:DEMO_P12_PASS -noout 2>&1 | grep -o 'unsupported.*' | head -1 || true

step "5. prepare: .p12 -> checked combined PEM (replaces four openssl/cat commands)" \
  "$APNSKIT" prepare Certificates.p12 --passin env:DEMO_P12_PASS -o apns-dev.pem

printf '\n== 6. the combined PEM, as openssl sees it\n'
openssl x509 -in apns-dev.pem -noout -subject -enddate
openssl pkey -in apns-dev.pem -noout && echo "private key: readable, unencrypted"
ls -l apns-dev.pem push.key Certificates.p12 | awk '{print $1, $NF}'
printf '\nDemo finished: files are in %s/\n' "$OUT"
