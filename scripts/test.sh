#!/usr/bin/env bash
# Builds apnskit and runs every test. This is what CI runs (.ci/run) and what the README gives.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="/opt/swift/usr/bin:$PATH"
swift build --build-tests
# swift-argument-parser's man page generator, for the install.sh test (which must not build
# from inside `swift test`); about a minute the first time, then cached.
swift build --product generate-manual
# Serially: many suites run child processes and wait for them synchronously, which would
# starve the 2-thread cooperative pool that in-process test servers need if run in parallel.
# The hardening suites (issue 7) run after the rest: they are CPU-heavy (130,000 fuzz inputs,
# a 1 GB stream, a 10,000-bag .p12, kill loops).
: > .build/test-output.txt
# swift_test ARGS...: one `swift test` stage, its output kept in .build/test-output.txt. When it
# fails, the failing tests' lines are printed again last, so that the end of the log (all a CI
# summary may show) names them.
swift_test() {
  local status=0
  swift test --skip-build --no-parallel "$@" 2>&1 | tee -a .build/test-output.txt || status=$?
  if [ "$status" -ne 0 ]; then
    echo "== test.sh: swift test $* failed (exit $status); the failing tests:" >&2
    grep -E "✘|recorded an issue|error:|Fatal error" .build/test-output.txt | grep -v "passed after" | tail -40 >&2 || true
    exit "$status"
  fi
}
swift_test --skip HardeningTests
# The fuzz pass (FuzzPassTests) runs here only when the ASan pass below is off: that pass feeds
# the same harnesses the same inputs under AddressSanitizer, which checks strictly more.
if [ "${ASAN_PASS:-1}" != "0" ]; then
  swift_test --filter HardeningTests --skip FuzzPassTests
else
  swift_test --filter HardeningTests
fi
# The same fuzz pass under AddressSanitizer: out-of-bounds and use-after-free in Swift code or
# in our use of OpenSSL that do not crash a normal build. Only the APNsFuzzPass product (the
# libraries and the harnesses) is built sanitized, not the CLI or the test bundle.
# ASAN_PASS=0 skips it.
if [ "${ASAN_PASS:-1}" != "0" ]; then
  swift build --scratch-path .build-asan --product APNsFuzzPass -Xswiftc -sanitize=address
  ASAN_OPTIONS=detect_leaks=0 .build-asan/debug/APNsFuzzPass "${ASAN_FUZZ_INPUTS:-10000}" 2>&1 | tee -a .build/test-output.txt
fi
# The CLI under valgrind memcheck: no definitely lost bytes, no memory errors.
bash scripts/leakcheck.sh .build/debug/apnskit
