#!/usr/bin/env bash
# Builds apnskit and runs every test. This is what CI runs (.ci/run) and what the README gives.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="/opt/swift/usr/bin:$PATH"
swift build --build-tests
# Serially: many suites run child processes and wait for them synchronously, which would
# starve the 2-thread cooperative pool that in-process test servers need if run in parallel.
swift test --skip-build --no-parallel 2>&1 | tee .build/test-output.txt
