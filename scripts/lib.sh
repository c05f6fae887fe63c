# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# What the scripts in scripts/ share: the toolchain on PATH, building apnskit and finding the
# binary, waiting for a server's ports file, and the small Python one-liners (JSON fields,
# arithmetic, a free port) as named functions. Source it: . "$(dirname "$0")/lib.sh"
export PATH="/opt/swift/usr/bin:$PATH"

# build_product PRODUCT [swift build options...]: builds PRODUCT (the build's output goes to
# stderr) and prints the absolute path of its binary.
build_product() {
  local product="$1"; shift
  swift build "$@" --product "$product" >&2
  echo "$(swift build "$@" --show-bin-path)/$product"
}

# apnskit_binary [debug|release] [swift build options...]: build_product for the apnskit CLI.
apnskit_binary() { local configuration="${1:-debug}"; shift || true; build_product apnskit -c "$configuration" "$@"; }

# wait_for_file PATH SECONDS [PID]: returns once PATH exists and is non-empty (a server's ports
# file); fails with a sentence after SECONDS, or as soon as process PID (the server) has exited.
wait_for_file() {
  local path="$1" seconds="$2" pid="${3:-}" i
  for ((i = 0; i < seconds * 10; i++)); do
    [ -s "$path" ] && return 0
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
      echo "$(basename "$0"): the server (pid $pid) exited before writing $path" >&2
      return 1
    fi
    sleep 0.1
  done
  echo "$(basename "$0"): $path did not appear within $seconds s" >&2
  return 1
}

# json_field FILE PATH: a field of the JSON in FILE ("-": stdin); PATH is keys and array
# indexes joined by dots (provider, notifications.0.status).
json_field() {
  python3 -c 'import json, sys
value = json.load(sys.stdin if sys.argv[1] == "-" else open(sys.argv[1]))
for key in sys.argv[2].split("."):
    value = value[int(key)] if isinstance(value, list) else value[key]
print(value)' "$1" "$2"
}

# jsonl_count FILE KEY VALUE: how many lines of the JSON-lines FILE have KEY equal to VALUE.
jsonl_count() {
  python3 -c 'import json, sys
print(sum(1 for line in open(sys.argv[1]) if line.strip() and str(json.loads(line).get(sys.argv[2])) == sys.argv[3]))' "$@"
}

# python_package_version NAME: the installed version of Python package NAME (empty if none).
python_package_version() {
  python3 -c 'import importlib.metadata, sys; print(importlib.metadata.version(sys.argv[1]))' "$1" 2>/dev/null || true
}

# calc EXPRESSION [FORMAT]: a Python arithmetic expression's value, formatted with FORMAT
# (a format spec such as .3f; default: as Python prints it).
calc() {
  python3 -c 'import sys; print(format(eval(sys.argv[1]), sys.argv[2]))' "$1" "${2:-}"
}

# median NUMBER...: the median, whole above 100, else with one decimal.
median() {
  python3 -c 'import statistics, sys
m = statistics.median(float(x) for x in sys.argv[1:])
print(f"{m:.0f}" if m >= 100 else f"{m:.1f}")' "$@"
}

# free_port: a loopback TCP port that was free a moment ago (for servers without a ports file).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# process_cpu PID: the process's user+sys CPU seconds so far, from /proc/PID/stat.
process_cpu() {
  python3 -c 'import os, sys
fields = open(f"/proc/{sys.argv[1]}/stat").read().rsplit(")", 1)[1].split()
print((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"))' "$1"
}

# token_lines COUNT [TOKEN]: COUNT device tokens, one a line: 1, 2, 3... as 64 hex digits, or
# TOKEN repeated. (Not `yes | head`: under pipefail, yes's SIGPIPE fails the caller.)
token_lines() {
  if [ -n "${2:-}" ]; then awk -v token="$2" -v count="$1" 'BEGIN { for (i = 0; i < count; i++) print token }'
  else seq 1 "$1" | awk '{ printf "%064x\n", $1 }'; fi
}

# bench_jwt KEY-FILE TEAM-ID KEY-ID: a provider token (ES256 JWT, issued now) signed with the
# .p8 key, for h2load to send the `authorization` header `push --auth-key` sends.
bench_jwt() {
  python3 - "$@" <<'PY'
import base64, json, subprocess, sys, time
key, team, kid = sys.argv[1:4]
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
head = b64(json.dumps({"alg": "ES256", "kid": kid}, separators=(",", ":")).encode())
claims = b64(json.dumps({"iss": team, "iat": int(time.time())}, separators=(",", ":")).encode())
der = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key], input=f"{head}.{claims}".encode(), capture_output=True, check=True).stdout
i = 2 + (der[1] & 0x7F if der[1] & 0x80 else 0)
r = der[i + 2:i + 2 + der[i + 1]]; i += 2 + der[i + 1]
s = der[i + 2:i + 2 + der[i + 1]]
zero = bytes(1)
signature = b64(r[-32:].rjust(32, zero) + s[-32:].rjust(32, zero))
print(head + "." + claims + "." + signature)
PY
}

# bench_fixtures BIN: in the current folder, what both sides of the HTTP/2 benchmarks share: a
# mock CA (ca/, made unless there), a .p8 key (AuthKey_BENCH00001.p8, team TEAM123456), one
# device token (TOKEN), payload.json, nghttpd's document root answering 200 on that token's path
# (htdocs/), and the header set `apnskit push` sends, for h2load (HEADERS, with a JWT signed by
# that key). The one difference left: push makes a new apns-id per notification, h2load repeats
# this one.
bench_fixtures() {
  local bin="$1"
  [ -d ca ] || "$bin" mock ca -o ca >/dev/null
  [ -f AuthKey_BENCH00001.p8 ] || "$bin" mock issue --auth-key --ca ca --team-id TEAM123456 --key-id BENCH00001 -o . >/dev/null
  TOKEN=$(printf 'ab%.0s' $(seq 1 32))
  printf '{"aps":{"alert":"benchmark"}}' > payload.json
  mkdir -p htdocs/3/device && : > "htdocs/3/device/$TOKEN"
  local jwt; jwt=$(bench_jwt AuthKey_BENCH00001.p8 TEAM123456 BENCH00001)
  HEADERS=(-H "apns-id: 6f1c1b1e-5c2d-4c1a-9a3e-2f7d0c8b4a10" -H "apns-push-type: alert" -H "apns-topic: com.example.app"
           -H "authorization: bearer $jwt")
}

# malloc_count_library DIR: builds the counting malloc interposer (scripts/malloc-count.c) into
# DIR and prints the absolute path of the shared library, for LD_PRELOAD.
APNSKIT_SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
malloc_count_library() {
  gcc -O2 -shared -fPIC -o "$1/malloc-count.so" "$APNSKIT_SCRIPTS/malloc-count.c" -ldl && echo "$(cd "$1" && pwd)/malloc-count.so"
}

# malloc_counts FILE: "ALLOCATIONS BYTES" so far of the process counting into FILE (its
# MALLOC_COUNT_OUT): calls to malloc, calloc, realloc and the memalign family, and the bytes
# they asked for. Frees are in the file too (word 4), not printed.
malloc_counts() {
  python3 -c 'import struct, sys
words = struct.unpack("<8Q", open(sys.argv[1], "rb").read(64))
print(sum(words[0:4]), words[5])' "$1"
}

# children_cpu_ticks VAR: sets VAR to the CPU time (user and system, in clock ticks) of every
# child this shell has waited for so far: fields 16 and 17 of /proc/PID/stat, read without a
# subshell (a subshell would read its own children, none).
children_cpu_ticks() {
  local -a fields
  read -r -a fields </proc/$BASHPID/stat
  printf -v "$1" '%d' $((fields[15] + fields[16]))
}

# stage NAME COMMAND...: runs COMMAND and prints how many seconds it took and the CPU seconds it
# and its children used, named by the script that runs it ("== test.sh: build: 714 s, CPU 995 s
# (exit 0)"; the README's numbers come from these lines). The two cores are shared by the lanes,
# so a stage's seconds depend on what ran beside it; its CPU seconds say how much of them it
# took (on a loaded machine they read high too: docs/testing.md).
stage() {
  local name="$1" start=$SECONDS cpu_before cpu_after status=0
  shift
  children_cpu_ticks cpu_before
  "$@" || status=$?
  children_cpu_ticks cpu_after
  echo "== ${0##*/}: $name: $((SECONDS - start)) s, CPU $(((cpu_after - cpu_before) / $(getconf CLK_TCK))) s (exit $status)"
  return "$status"
}
