#!/usr/bin/env bash
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
#
# Checks that every command scripts/setup-tools.txt lists for SET (demo, or all: demo and test)
# is on PATH, after scripts/setup.sh SET. Prints each missing one and fails if any is.
#
#   scripts/check-tools.sh [demo|all]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
set_wanted="${1:-all}"
missing=0 checked=0
while read -r command set _; do
  case "$command" in ''|'#'*) continue ;; esac
  if [ "$set_wanted" = demo ] && [ "$set" != demo ]; then continue; fi
  checked=$((checked + 1))
  if ! command -v "$command" >/dev/null; then
    echo "check-tools: $command (set $set) is not installed; scripts/setup.sh must install it (scripts/setup-tools.txt says what uses it)." >&2
    missing=$((missing + 1))
  fi
done < scripts/setup-tools.txt
[ "$missing" -eq 0 ] || exit 1
echo "check-tools: all $checked commands of set '$set_wanted' are installed."
