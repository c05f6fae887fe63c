#!/usr/bin/env bash
# Runs apnskit's credential commands under valgrind memcheck and fails on any "definitely lost"
# block or memory error. OpenSSL's and the Swift runtime's one-time global allocations are
# "still reachable" at exit, which is not an error here.
# Usage: scripts/leakcheck.sh [path/to/apnskit]   (default: .build/debug/apnskit, built if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
apnskit="${1:-.build/debug/apnskit}"
if [ ! -x "$apnskit" ]; then swift build --product apnskit >&2; fi
apnskit="$(cd "$(dirname "$apnskit")" && pwd)/$(basename "$apnskit")"
command -v valgrind >/dev/null || { echo "leakcheck: valgrind is not installed (scripts/setup.sh installs it)" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# valgrind 3.19 cannot read the DWARF 5 Swift emits ("Possibly corrupted debuginfo file"), so
# memcheck runs a copy without debug sections; stacks still name functions (symbol table).
objcopy --strip-debug "$apnskit" "$work/apnskit-nodebug"
apnskit_plain="$apnskit"
apnskit="$work/apnskit-nodebug"
cd "$work"
export P12_PASS="leak-check-pass"
failed=0
count=0

# Plain runs make the fixtures; only the scenarios below run under valgrind.
apnskit_fixture() { "$apnskit_plain" "$@" >/dev/null 2>&1; }
apnskit_fixture mock ca -o ca >/dev/null 2>&1
apnskit_fixture csr --email dev@example.com --common-name "Leak Check" --key-out fixture.key --csr-out fixture.csr >/dev/null 2>&1
apnskit_fixture mock issue fixture.csr --ca ca --bundle-id com.example.leak --type universal -o fixture.cer >/dev/null 2>&1
mkdir -p folder

# vg NAME EXPECTED-EXIT ARGS...: one scenario under memcheck.
vg() {
  local name="$1" expected="$2"; shift 2
  count=$((count + 1))
  local status=0
  valgrind --quiet --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
    --error-exitcode=97 --log-file="vg-$name.log" "$apnskit" "$@" >"out-$name.txt" 2>&1 || status=$?
  if [ "$status" -eq 97 ] || grep -q "definitely lost: [1-9]" "vg-$name.log"; then
    echo "leakcheck: $name: memcheck found errors or definitely lost bytes:" >&2
    cat "vg-$name.log" >&2
    failed=1
  elif [ "$status" -ne "$expected" ]; then
    echo "leakcheck: $name: exit $status, expected $expected:" >&2
    cat "out-$name.txt" >&2
    failed=1
  else
    echo "leakcheck: $name ok"
  fi
}

# Key generation uses EC P-256: an RSA-2048 keygen takes over a minute under memcheck, and the
# RSA and EC paths differ only in one OpenSSL parameter call.
vg keygen-ec 0 keygen --type ec256 -o folder/new.key
vg keygen-ec-encrypted 0 keygen --type ec256 --encrypt --passout env:P12_PASS -o enc.key
vg csr 0 csr --type ec256 --email dev@example.com --common-name "Leak Check" --key-out csr.key --csr-out csr.csr
vg csr-existing-key 0 csr --email dev@example.com --common-name "Leak Check" --key fixture.key --csr-out again.csr
vg import-cer 0 import-cer fixture.cer -o folder/cert.pem
vg p12-create-legacy 0 p12 create fixture.cer fixture.key --chain ca/wwdr.pem --legacy --passout env:P12_PASS -o legacy.p12
vg p12-create-modern 0 p12 create fixture.cer fixture.key --passout env:P12_PASS -o modern.p12
vg p12-split 0 p12 split legacy.p12 --passin env:P12_PASS --cert-out split.cer.pem --key-out split.key --chain-out split.chain.pem
vg prepare-legacy-p12 0 prepare legacy.p12 --passin env:P12_PASS -o folder/apns.pem
vg combine 0 combine fixture.cer fixture.key -o combined.pem
vg key-encrypt 0 key encrypt fixture.key --passout env:P12_PASS -o enc2.key
vg key-strip 0 key strip enc2.key --passin env:P12_PASS -o stripped.key
vg inspect 0 inspect legacy.p12 folder/apns.pem fixture.csr --passin env:P12_PASS
vg inspect-json 0 inspect fixture.cer --format json
vg check-folder 0 check folder --ca-file ca/ca-bundle.pem
vg wrong-passphrase 3 p12 split legacy.p12 --passin pass:wrong --cert-out x.pem
vg missing-passphrase 3 key strip enc2.key -o y.key
vg bad-input 3 inspect fixture.csr.missing
head -c 3000 legacy.p12 > truncated.p12
vg truncated-p12 3 prepare truncated.p12 --passin env:P12_PASS -o z.pem

if [ "$failed" -ne 0 ]; then
  echo "leakcheck: FAILED" >&2
  exit 1
fi
echo "leakcheck: $count scenarios, no definitely lost bytes, no memory errors"
