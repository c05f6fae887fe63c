#!/usr/bin/env bash
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
#
# The licence header every source file starts with, as the Swift server projects (SwiftNIO,
# Hummingbird, swift-log) put theirs: at the top of each Swift, C and script file, after a
# `swift-tools-version` line or a shebang. scripts/test.sh checks it; --fix adds it where it is
# missing (a new file, or a merge that brought files without it). Examples/ has none: its code
# is for users to copy into their own (the DocC article ExamplePrograms.md shows
# Examples/PushWorker verbatim).
#
#   scripts/spdx.sh [--check|--fix]     (default: --check)
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:---check}"
case "$mode" in --check|--fix) ;; *) echo "spdx.sh: say --check or --fix (got '$mode')." >&2; exit 2 ;; esac

holder="Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE)."
missing=()
while IFS= read -r file; do
  grep -q 'SPDX-License-Identifier: Apache-2.0' <(head -5 "$file") && continue
  missing+=("$file")
  [ "$mode" = --fix ] || continue
  case "$file" in *.sh|*.py|.ci/run) comment="#" ;; *) comment="//" ;; esac
  header="$comment $holder"$'\n'"$comment SPDX-License-Identifier: Apache-2.0"
  python3 - "$file" "$header" <<'PY'
import sys
path, header = sys.argv[1], sys.argv[2]
text = open(path, encoding="utf-8").read()
first, _, rest = text.partition("\n")
if first.startswith("#!") or first.startswith("// swift-tools-version"):
    text = first + "\n" + header + "\n" + rest
else:
    text = header + "\n" + text
open(path, "w", encoding="utf-8").write(text)
PY
done < <(git ls-files --cached --others --exclude-standard -- '*.swift' '*.c' '*.h' '*.sh' '*.py' .ci/run ':!Examples/')

if [ ${#missing[@]} -eq 0 ]; then echo "spdx.sh: every source file has the licence header."; exit 0; fi
if [ "$mode" = --fix ]; then echo "spdx.sh: added the licence header to ${#missing[@]} file(s)."; exit 0; fi
printf 'spdx.sh: no licence header: %s\n' "${missing[@]}" >&2
echo "spdx.sh: ${#missing[@]} source file(s) lack the SPDX licence header; run scripts/spdx.sh --fix." >&2
exit 1
