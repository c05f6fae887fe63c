#!/usr/bin/env bash
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
# Runs apnskit's commands under valgrind memcheck and fails on any "definitely lost" block or
# memory error: the credential commands, provisioning profiles, verify and push (single and a small batch, HTTP/2 and
# legacy) against a mock gateway running outside valgrind, and `mock serve` itself under
# valgrind, fed a few requests by the plain binary and stopped with SIGTERM. OpenSSL's and the
# Swift runtime's one-time global allocations are "still reachable" at exit, which is not an
# error here. Request counts stay small: memcheck runs apnskit about 30 times slower.
# Usage: scripts/leakcheck.sh [path/to/apnskit]   (default: the debug build, built first)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
apnskit="${1:-$(apnskit_binary debug)}"
apnskit="$(cd "$(dirname "$apnskit")" && pwd)/$(basename "$apnskit")"
command -v valgrind >/dev/null || { echo "leakcheck: valgrind is not installed (scripts/setup.sh installs it)" >&2; exit 1; }

work="$(mktemp -d)"
mock_pid=""
vg_mock_pid=""
cleanup() {
  for pid in $mock_pid $vg_mock_pid; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
# valgrind 3.19 cannot read the DWARF 5 Swift emits ("Possibly corrupted debuginfo file"), so
# memcheck runs a copy without debug sections; stacks still name functions (symbol table).
objcopy --strip-debug "$apnskit" "$work/apnskit-nodebug"
apnskit_plain="$apnskit"
apnskit="$work/apnskit-nodebug"
# valgrind 3.19 crashes in Swift's async main (sigsuspend on a read-only mask): see the file.
cc_bin="$(command -v cc || command -v clang || echo /opt/swift/usr/bin/clang)"
"$cc_bin" -shared -fPIC -O2 -o "$work/sigsuspend.so" scripts/valgrind-sigsuspend.c
suppressions="$PWD/scripts/valgrind-swift.supp"
cd "$work"
export P12_PASS="leak-check-pass"
failed=0
count=0

# Plain runs make the fixtures; only the scenarios below run under valgrind.
apnskit_fixture() { "$apnskit_plain" "$@" >/dev/null 2>&1; }
apnskit_fixture mock ca -o ca >/dev/null 2>&1
apnskit_fixture csr --email dev@example.com --common-name "Leak Check" --key-out fixture.key --csr-out fixture.csr >/dev/null 2>&1
apnskit_fixture mock issue fixture.csr --ca ca --bundle-id com.example.leak --type universal -o fixture.cer >/dev/null 2>&1
apnskit_fixture combine fixture.cer fixture.key -o apns.pem
# The inputs the scenarios read, made here rather than by an earlier scenario (they run in
# parallel): a legacy and a modern .p12, an encrypted key, a folder of credentials for check.
apnskit_fixture p12 create fixture.cer fixture.key --chain ca/wwdr.pem --legacy --passout env:P12_PASS -o legacy.p12
apnskit_fixture p12 create fixture.cer fixture.key --passout env:P12_PASS -o modern.p12
apnskit_fixture key encrypt fixture.key --passout env:P12_PASS -o enc.key
mkdir -p folder made
apnskit_fixture import-cer fixture.cer -o folder/cert.pem
apnskit_fixture prepare legacy.p12 --passin env:P12_PASS -o folder/apns.pem
token=c9d4c07cfbbc26d6ef87a44d53e1983fba6e3a1b0b5fc2d5c3c7c2a8e12a3d45
printf '%s\n' "$token" 0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f \
  1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef > tokens.txt

memcheck=(env LD_PRELOAD="$work/sigsuspend.so" valgrind --quiet --suppressions="$suppressions" --leak-check=full
          --show-leak-kinds=definite --errors-for-leak-kinds=definite --error-exitcode=97)


# Scenarios run as background jobs, up to one per core (memcheck itself is single-threaded;
# LEAKCHECK_JOBS=N sets how many at once; scripts/test.sh runs one, beside the test suites):
# vg starts one when a slot is free, reap_one judges whichever finishes first, reap_all drains.
# Each scenario reads only fixtures the plain binary made, never another scenario's output, so
# the order they finish in does not matter.
slots="${LEAKCHECK_JOBS:-$(nproc 2>/dev/null || echo 1)}"
declare -A job_name=() job_expected=() job_started=()

# vg NAME EXPECTED-EXIT ARGS...: one scenario under memcheck, in the background.
vg() {
  local name="$1" expected="$2"; shift 2
  while [ "${#job_name[@]}" -ge "$slots" ]; do reap_one; done
  "${memcheck[@]}" --log-file="vg-$name.log" "$apnskit" "$@" >"out-$name.txt" 2>&1 &
  job_name[$!]="$name"; job_expected[$!]="$expected"; job_started[$!]=$SECONDS
}

# reap_one: waits for the first running scenario to end and judges it.
reap_one() {
  local pid="" status=0
  wait -n -p pid "${!job_name[@]}" || status=$?
  judge "${job_name[$pid]}" "${job_expected[$pid]}" "$status" "${job_started[$pid]}"
  unset "job_name[$pid]" "job_expected[$pid]" "job_started[$pid]"
}

reap_all() { while [ "${#job_name[@]}" -gt 0 ]; do reap_one; done; }

# judge NAME EXPECTED-EXIT STATUS STARTED: memcheck's verdict on one scenario.
judge() {
  local name="$1" expected="$2" status="$3" seconds=$((SECONDS - $4))
  count=$((count + 1))
  if [ "$status" -eq 97 ] || grep -q "definitely lost: [1-9]" "vg-$name.log"; then
    echo "leakcheck: $name: memcheck found errors or definitely lost bytes:" >&2
    cat "vg-$name.log" >&2
    failed=1
  elif [ "$status" -ne "$expected" ]; then
    echo "leakcheck: $name: exit $status, expected $expected:" >&2
    cat "out-$name.txt" >&2
    failed=1
  else
    echo "leakcheck: $name ok ($seconds s)"
  fi
}

# Key generation uses EC P-256: an RSA-2048 keygen takes over a minute under memcheck, and the
# RSA and EC paths differ only in one OpenSSL parameter call.
vg keygen-ec 0 keygen --type ec256 -o made/new.key
vg keygen-ec-encrypted 0 keygen --type ec256 --encrypt --passout env:P12_PASS -o made/new-enc.key
vg csr 0 csr --type ec256 --email dev@example.com --common-name "Leak Check" --key-out csr.key --csr-out csr.csr
vg csr-existing-key 0 csr --email dev@example.com --common-name "Leak Check" --key fixture.key --csr-out again.csr
vg import-cer 0 import-cer fixture.cer -o made/cert.pem
vg p12-create-legacy 0 p12 create fixture.cer fixture.key --chain ca/wwdr.pem --legacy --passout env:P12_PASS -o made/legacy.p12
vg p12-create-modern 0 p12 create fixture.cer fixture.key --passout env:P12_PASS -o made/modern.p12
vg p12-split 0 p12 split legacy.p12 --passin env:P12_PASS --cert-out split.cer.pem --key-out split.key --chain-out split.chain.pem
vg prepare-legacy-p12 0 prepare legacy.p12 --passin env:P12_PASS -o made/apns.pem
vg combine 0 combine fixture.cer fixture.key -o combined.pem
vg key-encrypt 0 key encrypt fixture.key --passout env:P12_PASS -o made/enc.key
vg key-strip 0 key strip enc.key --passin env:P12_PASS -o stripped.key
vg inspect 0 inspect legacy.p12 folder/apns.pem fixture.csr --passin env:P12_PASS
vg inspect-json 0 inspect fixture.cer --format json
vg check-folder 0 check folder --ca-file ca/ca-bundle.pem
# A .p12 as CI secret variables hold it (base64 in a variable), reported for Prometheus.
P12_BASE64="$(base64 -w0 modern.p12)"
export P12_BASE64
vg check-env-base64 0 check env:P12_BASE64 --base64 --passin env:P12_PASS \
  --ca-file ca/ca-bundle.pem --format prometheus -o check.prom
vg wrong-passphrase 3 p12 split legacy.p12 --passin pass:wrong --cert-out x.pem
vg missing-passphrase 3 key strip enc.key -o y.key
vg bad-input 3 inspect fixture.csr.missing
head -c 3000 legacy.p12 > truncated.p12
vg truncated-p12 3 prepare truncated.p12 --passin env:P12_PASS -o z.pem
# Provisioning profiles (issue 18): the signer's RSA key is made by a plain run first (RSA
# keygen is slow under memcheck); then issuing (CMS_sign), and one check that reads a good
# profile (CMS decode, signature, chain, property list), cross-checks it and rejects a
# truncated one and a malformed one (exit 3).
apnskit_fixture mock issue --profile --ca ca --bundle-id com.example.leak -o fixture.mobileprovision
vg mock-issue-profile 0 mock issue --profile --ca ca --bundle-id com.example.leak --distribution appstore -o store.mobileprovision
head -c 1000 fixture.mobileprovision > truncated.mobileprovision
# A signed but malformed property list: Foundation's PropertyListSerialization leaked its error
# object for each one on Linux (the reason ProvisioningProfile uses PropertyListDecoder).
printf '<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0">\n<dict><key>Name</key><string>x</dict></plist>\n' > broken.xml
openssl cms -sign -nodetach -binary -outform DER -in broken.xml -signer ca/profile-signing.pem -inkey ca/profile-signing-key.pem \
  -out broken.mobileprovision
vg check-profiles 3 check fixture.cer fixture.mobileprovision truncated.mobileprovision broken.mobileprovision \
  --push-credential apns.pem --ca-file ca/ca-bundle.pem --format json

# The network clients, against a mock gateway outside valgrind.
"$apnskit_plain" mock serve --ca ca --port 0 --legacy-port 0 --feedback-port 0 --ports-file mock.json -q >mock.log 2>&1 &
mock_pid=$!
wait_for_file mock.json 30 "$mock_pid"
gateway="127.0.0.1:$(json_field mock.json provider)"
vg verify 0 verify apns.pem --gateway "$gateway" --ca-file ca/ca-bundle.pem
vg push-single 0 push apns.pem --gateway "$gateway" --ca-file ca/ca-bundle.pem --token "$token" --alert "leak check"
vg push-batch 0 push apns.pem --gateway "$gateway" --ca-file ca/ca-bundle.pem --tokens tokens.txt --alert "leak check" --results results.jsonl
vg push-legacy 0 push apns.pem --legacy --gateway "127.0.0.1:$(json_field mock.json legacy)" --ca-file ca/ca-bundle.pem --token "$token" --alert "leak check"
reap_all
kill "$mock_pid"; wait "$mock_pid" 2>/dev/null || true; mock_pid=""

# The mock gateway itself under valgrind, fed by the plain binary, stopped with SIGTERM.
started=$SECONDS
"${memcheck[@]}" --log-file=vg-mock-serve.log "$apnskit" mock serve --ca ca --port 0 --legacy-port 0 --feedback-port 0 \
  --ports-file vg-mock.json >out-mock-serve.txt 2>&1 &
vg_mock_pid=$!
wait_for_file vg-mock.json 120 "$vg_mock_pid"
gateway="127.0.0.1:$(json_field vg-mock.json provider)"
fed=0
"$apnskit_plain" push apns.pem --gateway "$gateway" --ca-file ca/ca-bundle.pem --tokens tokens.txt --alert "leak check" >fed.txt 2>&1 || fed=$?
"$apnskit_plain" push apns.pem --legacy --gateway "127.0.0.1:$(json_field vg-mock.json legacy)" --ca-file ca/ca-bundle.pem \
  --token "$token" --alert "leak check" >>fed.txt 2>&1 || fed=$?
"$apnskit_plain" feedback apns.pem --gateway "127.0.0.1:$(json_field vg-mock.json feedback)" --ca-file ca/ca-bundle.pem >>fed.txt 2>&1 || fed=$?
if [ "$fed" -ne 0 ]; then
  echo "leakcheck: mock-serve: the requests to the gateway under memcheck failed (exit $fed):" >&2
  cat fed.txt >&2
  failed=1
fi
kill -TERM "$vg_mock_pid"
status=0
wait "$vg_mock_pid" || status=$?
vg_mock_pid=""
judge mock-serve 143 "$status" "$started"  # SIGTERM: exit 143, as every command a signal stops

if [ "$failed" -ne 0 ]; then
  echo "leakcheck: FAILED" >&2
  exit 1
fi
echo "leakcheck: $count scenarios, no definitely lost bytes, no memory errors ($SECONDS s)"
