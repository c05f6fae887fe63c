#!/usr/bin/env bash
# Builds apnskit and runs every test. This is what CI runs (.ci/run) and what the README gives.
#
# After the build, two lanes run side by side, each using about one core:
#   tests:  the Swift test suites, then the hardening suites;
#   memory: the fuzz pass under AddressSanitizer, then the CLI under valgrind memcheck.
# Each lane's output goes to its own log (.build/test-output.txt, .build/memory-checks.txt);
# the memory lane's log is printed when it ends, and the failing checks of either are printed
# last, so that the end of the output (all a CI summary may show) names them.
# ASAN_PASS=0 skips the AddressSanitizer pass (the fuzz pass then runs in the hardening suites);
# LEAKCHECK=0 skips the memcheck pass.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="/opt/swift/usr/bin:$PATH"
swift build --build-tests
# swift-argument-parser's man page generator, for the install.sh test (which must not build
# from inside `swift test`); about a minute the first time, then cached.
swift build --product generate-manual

tests_log=.build/test-output.txt
memory_log=.build/memory-checks.txt
: >"$tests_log"
: >"$memory_log"
failures=()

# The memory lane. The ASan build uses its own scratch folder, so it does not wait for the
# lock `swift test` holds on .build. Only the APNsFuzzPass product (the libraries and the fuzz
# harnesses) is built sanitized, not the CLI or the test bundle.
memory_lane() {
  if [ "${ASAN_PASS:-1}" != "0" ]; then
    swift build --scratch-path .build-asan --product APNsFuzzPass -Xswiftc -sanitize=address || return 1
    ASAN_OPTIONS=detect_leaks=0 .build-asan/debug/APNsFuzzPass "${ASAN_FUZZ_INPUTS:-10000}" || return 1
  fi
  if [ "${LEAKCHECK:-1}" != "0" ]; then
    # One memcheck at a time here: the test lane has the other core.
    LEAKCHECK_JOBS=1 bash scripts/leakcheck.sh .build/debug/apnskit || return 1
  fi
}
memory_lane >"$memory_log" 2>&1 &
memory_pid=$!
# Should this script stop early, the lane (and its valgrind or fuzz child) stops with it.
stop_memory_lane() {
  if [ -n "$memory_pid" ]; then pkill -TERM -P "$memory_pid" 2>/dev/null || true; kill "$memory_pid" 2>/dev/null || true; fi
}
trap stop_memory_lane EXIT

# swift_test ARGS...: one `swift test` stage. Serially (--no-parallel): many suites run child
# processes and wait for them synchronously, which would starve the 2-thread cooperative pool
# that in-process test servers need if run in parallel.
swift_test() {
  local status=0
  swift test --skip-build --no-parallel "$@" 2>&1 | tee -a "$tests_log" || status=$?
  if [ "$status" -ne 0 ]; then failures+=("swift test $* (exit $status)"); fi
}
swift_test --skip HardeningTests
# The hardening suites (CPU-heavy: a 1 GB stream, a 10,000-bag .p12, kill loops) after the
# rest. Their fuzz pass (FuzzPassTests) runs here only when the ASan pass is off: that pass
# feeds the same harnesses the same inputs under AddressSanitizer, which checks strictly more.
if [ "${ASAN_PASS:-1}" != "0" ]; then
  swift_test --filter HardeningTests --skip FuzzPassTests
else
  swift_test --filter HardeningTests
fi

memory_status=0
wait "$memory_pid" || memory_status=$?
memory_pid=""
echo "== memory checks (AddressSanitizer fuzz pass, valgrind memcheck):"
cat "$memory_log"
if [ "$memory_status" -ne 0 ]; then failures+=("memory checks (exit $memory_status; log in $memory_log)"); fi

if [ "${#failures[@]}" -ne 0 ]; then
  echo "== test.sh: FAILED:" >&2
  printf '  %s\n' "${failures[@]}" >&2
  echo "== the failing tests and checks:" >&2
  grep -hE "✘|recorded an issue|Fatal error|ERROR: AddressSanitizer|leakcheck: .*(errors|expected|did not)" \
    "$tests_log" "$memory_log" | grep -v "passed after" | tail -40 >&2 || true
  exit 1
fi
echo "== test.sh: every test and check passed."
