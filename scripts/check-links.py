#!/usr/bin/env python3
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
"""Checks the relative links of README.md and docs/*.md: each linked file exists, and each
#anchor names a heading of its target (GitHub's rule: lower case, punctuation dropped, spaces
to hyphens). The README was split into docs/ pages; this keeps the links between them true.
Exit 1 with one line per broken link."""
import pathlib, re, sys

root = pathlib.Path(__file__).resolve().parent.parent
pages = [root / "README.md"] + sorted((root / "docs").glob("*.md"))
link = re.compile(r"\]\(([^)\s]+)\)")

def anchors(path):
    found, fence = set(), False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fence = not fence
        elif not fence and line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"\s", "-", re.sub(r"[^\w\- ]", "", title)))
    return found

broken = []
for page in pages:
    text, fence = [], False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fence = not fence
        elif not fence:
            text.append(line)
    for target in link.findall("\n".join(text)):
        if re.match(r"[a-z]+:", target):
            continue  # http:, https:, mailto: are not checked (no network)
        file, _, anchor = target.partition("#")
        resolved = (page.parent / file).resolve() if file else page
        if not resolved.exists():
            broken.append(f"{page.relative_to(root)}: link to {target}: {file} does not exist")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{page.relative_to(root)}: link to {target}: no heading #{anchor} in {resolved.relative_to(root)}")
for line in broken:
    print(line)
sys.exit(1 if broken else 0)
