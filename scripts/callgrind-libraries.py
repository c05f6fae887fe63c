#!/usr/bin/env python3
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
"""Where a program's instructions per unit go, by library: the difference of two callgrind
profiles of the same program at two sizes (BIG and SMALL units), so start-up drops out, split
into nghttp2, OpenSSL, libc (with the dynamic loader), the Swift runtime (libswiftCore,
Concurrency, Foundation, Dispatch) and the program's own code (everything else it maps).
bench-instructions.sh prints one table per comparison; docs/benchmarks.md quotes them.

    callgrind-libraries.py NAME:BIG.out:SMALL.out[:UNITS] ... --units N

Each NAME is a column; UNITS (default --units) is BIG's units minus SMALL's."""
import argparse
import re
import subprocess
from collections import defaultdict

GROUPS = ("program", "Swift runtime", "nghttp2", "libc", "OpenSSL")
LINE = re.compile(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+.*? \[(.*)\]\s*$")


def group(path):
    name = path.rsplit("/", 1)[-1]
    if name.startswith(("libswift", "libFoundation", "libdispatch", "libBlocksRuntime")):
        return "Swift runtime"
    if name.startswith("libnghttp2"):
        return "nghttp2"
    if name.startswith(("libc.so", "libc-", "ld-linux", "libm.so", "libpthread")):
        return "libc"
    if name.startswith(("libssl", "libcrypto")):
        return "OpenSSL"
    return "program"


def by_library(profile):
    """Exclusive instruction counts of PROFILE summed by library group."""
    text = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", profile],
                          capture_output=True, text=True, check=True).stdout
    sums = defaultdict(int)
    for line in text.splitlines():
        match = LINE.match(line)
        if match:
            sums[group(match.group(2))] += int(match.group(1).replace(",", ""))
    return sums


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("columns", nargs="+", help="NAME:BIG.out:SMALL.out[:UNITS]")
    parser.add_argument("--units", type=int, required=True, help="BIG's units minus SMALL's")
    arguments = parser.parse_args()
    columns = []
    for column in arguments.columns:
        parts = column.split(":")
        if len(parts) not in (3, 4):
            parser.error(f"'{column}' is not NAME:BIG.out:SMALL.out[:UNITS]")
        units = int(parts[3]) if len(parts) == 4 else arguments.units
        if units <= 0:
            parser.error(f"'{column}': the units must be positive")
        big, small = by_library(parts[1]), by_library(parts[2])
        columns.append((parts[0], {key: (big[key] - small[key]) / units for key in GROUPS}))
    print("| instructions per unit, by library | " + " | ".join(name for name, _ in columns) + " |")
    print("|---|" + "---|" * len(columns))
    for key in GROUPS:
        print(f"| {key} | " + " | ".join(f"{values[key]:,.0f}" for _, values in columns) + " |")
    print("| total | " + " | ".join(f"{sum(values.values()):,.0f}" for _, values in columns) + " |")


if __name__ == "__main__":
    main()
