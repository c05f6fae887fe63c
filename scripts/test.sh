#!/usr/bin/env bash
# Builds apnskit and runs every test. This is what CI runs (.ci/run) and what the README gives.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="/opt/swift/usr/bin:$PATH"
swift build --build-tests
swift test --skip-build --parallel --num-workers 2 2>&1 | tee .build/test-output.txt
