#!/usr/bin/env bash
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
# Builds the `APNs` library's DocC documentation (Sources/APNs/APNs.docc) into .build/docs with
# the toolchain's own `docc` and `swift-symbolgraph-extract`: no package plugin, no new
# dependency. Fails (exit 1) on anything a reader would trip over:
#   - a symbol link (``APNsClient/Configuration``) or article link (<doc:...>) that does not
#     resolve, or any other DocC warning (--warnings-as-errors);
#   - a public symbol of APNs or APNsMock without a doc comment (compiler-synthesized ones aside);
#   - a public type the landing page (APNs.md) does not place under one of its Topics;
#   - a Swift code listing in an article that does not compile against the library: each
#     article's ```swift blocks, in order, are one program, type-checked with swiftc;
#   - a relative link in README.md or docs/*.md to a file or heading that does not exist
#     (scripts/check-links.py).
# Usage: scripts/docs.sh [OUTPUT-DIR]   (default .build/docs; preview it with any static server)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
OUTPUT="${1:-.build/docs}"
CATALOG=Sources/APNs/APNs.docc
STARTED=$(date +%s%N)

echo "== checking the links of README.md and docs/" >&2
python3 scripts/check-links.py

# The modules the documentation and its listings need: the umbrella and the in-process mock
# (TestingWithTheMock imports it). DOCS_BIN_PATH=.build/debug reads the ones a finished
# `swift build --build-tests` made instead (scripts/test.sh, beside the tests: no swift command,
# so the running `swift test` keeps the build folder to itself). Building a single target
# compiles it without the tests' testability, so it would compile APNs and every module under
# it again, and the next test build once more.
if [ -n "${DOCS_BIN_PATH:-}" ]; then
  BIN_PATH="$(cd "$DOCS_BIN_PATH" && pwd -P)"
  echo "== reading the APNs and APNsMock modules in $BIN_PATH" >&2
  for module in APNs APNsMock; do
    [ -e "$BIN_PATH/Modules/$module.swiftmodule" ] || { echo "docs.sh: $BIN_PATH/Modules/$module.swiftmodule is missing: build first (swift build --build-tests), or leave DOCS_BIN_PATH unset." >&2; exit 2; }
  done
else
  echo "== building the APNs and APNsMock modules" >&2
  swift build --target APNs >&2
  swift build --target APNsMock >&2
  BIN_PATH="$(swift build --show-bin-path)"
fi
MODULES="$BIN_PATH/Modules"
# A program importing APNs loads the C modules the libraries import (`package import` hides
# their names, not the modules): their module maps, as SwiftPM passes them to the compiler.
C_MODULES=(-Xcc "-fmodule-map-file=$BIN_PATH/CShims.build/module.modulemap" -Xcc -ISources/CShims/include
           -Xcc -fmodule-map-file=Sources/COpenSSL/module.modulemap -Xcc -fmodule-map-file=Sources/CNGHTTP2/module.modulemap)
TRIPLE="$(swiftc -print-target-info | json_field - target.triple)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# One symbol graph for the module an app imports. `APNs` only re-exports APNsCredentials,
# APNsProtocol and APNsSender (`@_exported import`); -experimental-allowed-reexported-modules
# folds their public symbols into APNs's graph, so the catalog documents one module, `APNs`,
# and links read ``APNsClient`` (three separate graphs would make three modules, and DocC's
# landing page ``APNs`` would resolve to none of them). The C module maps are passed as for
# the compiler below (OneImportTests extracts with the same flags).
echo "== extracting the symbol graph of APNs" >&2
mkdir -p "$WORK/symbol-graphs"
swift-symbolgraph-extract -module-name APNs -target "$TRIPLE" -I "$MODULES" "${C_MODULES[@]}" \
  -minimum-access-level public -experimental-allowed-reexported-modules=APNsCredentials,APNsProtocol,APNsSender \
  -output-dir "$WORK/symbol-graphs"
SYMBOLS=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["symbols"]))' "$WORK/symbol-graphs/APNs.symbols.json")
if [ "$SYMBOLS" -lt 100 ]; then
  echo "docs.sh: the APNs symbol graph has only $SYMBOLS symbols; the re-exported modules were not folded in (check the swift-symbolgraph-extract flags)." >&2
  exit 1
fi

# Every public symbol a user sees has a doc comment written in this package: DocC would show
# an empty page, and a name alone never says why. A symbol counts as documented when the
# graph's `docComment` comes from a file under Sources/: its own comment, or the one of a
# protocol requirement of ours it implements. The standard library's text a `description` or
# `encode(to:)` inherits ("A textual representation of this instance.") says nothing about our
# type, so it does not count. Left out, and only these: symbols without a source location,
# which are the ones the compiler synthesizes (`init(rawValue:)` of a raw-value enum, and the
# members the graph marks `::SYNTHESIZED::`, copied from the standard library's protocol
# extensions, such as `hashValue` and `hash(into:)`): no line of ours could carry their
# comment. A graph without locations (no .swiftsourceinfo) would make every symbol look
# synthesized, so that fails too. The same for APNsMock, the other library product a test
# target imports; APNsOutbox sits behind the Outbox trait and has no catalog.
echo "== extracting the symbol graph of APNsMock" >&2
mkdir -p "$WORK/mock-graph"
swift-symbolgraph-extract -module-name APNsMock -target "$TRIPLE" -I "$MODULES" "${C_MODULES[@]}" \
  -minimum-access-level public -output-dir "$WORK/mock-graph"
echo "== checking that every public symbol has a doc comment" >&2
DOCUMENTED=$(python3 - "$PWD/Sources/" "$WORK"/symbol-graphs/*.symbols.json "$WORK"/mock-graph/*.symbols.json <<'PY'
import json, os, sys, urllib.parse
sources = os.path.realpath(sys.argv[1]) + os.sep
def ours(comment):
    """The comment was written in a file under Sources/ (not inherited from another module)."""
    path = urllib.parse.unquote(urllib.parse.urlparse(comment.get("uri", "")).path)
    return bool(path) and os.path.realpath(path).startswith(sources)
failed, counts = False, []
for path in sys.argv[2:]:
    graph = json.load(open(path))
    module = graph["module"]["name"]
    symbols = graph["symbols"]
    located = [s for s in symbols if "location" in s]
    if len(located) < len(symbols) / 2:
        print(f"docs.sh: only {len(located)} of the {len(symbols)} symbols of {module} have a source location: "
              "the graph was extracted without .swiftsourceinfo, so synthesized symbols cannot be told apart.", file=sys.stderr)
        sys.exit(1)
    missing = sorted((s["location"]["uri"].split("/Sources/")[-1], s["location"]["position"]["line"] + 1,
                      s["kind"]["displayName"], "/".join(s["pathComponents"]))
                     for s in located if not ours(s.get("docComment", {})))
    for file, line, kind, name in missing:
        print(f"  {module}: {kind} {name} (Sources/{file}:{line})", file=sys.stderr)
    if missing:
        these = "the public symbol of {} above has" if len(missing) == 1 else f"the {len(missing)} public symbols of {{}} above have"
        print(f"docs.sh: {these.format(module)} no doc comment; give each a `///` line saying what it "
              "is for and why (protocol facts: point to docs/apns-protocol.md).", file=sys.stderr)
        failed = True
    counts.append(f"{module} {len(located)} documented ({len(symbols) - len(located)} synthesized left out)")
print(", ".join(counts))
sys.exit(1 if failed else 0)
PY
) || exit 1
echo "   $DOCUMENTED" >&2

# The landing page groups every public type in its Topics: DocC would list a forgotten one
# under a generic heading without a word, so a new public type fails here until it is placed.
UNCURATED=$(python3 - "$WORK/symbol-graphs/APNs.symbols.json" "$CATALOG/APNs.md" <<'PY'
import json, re, sys
graph = json.load(open(sys.argv[1]))
top_level = {s["pathComponents"][0] for s in graph["symbols"] if len(s["pathComponents"]) == 1}
curated = set(re.findall(r"^- ``([A-Za-z0-9_]+)``", open(sys.argv[2]).read(), re.M))
print(" ".join(sorted(top_level - curated)))
PY
)
if [ -n "$UNCURATED" ]; then
  echo "docs.sh: public types missing from the Topics of $CATALOG/APNs.md: $UNCURATED; add each under the heading it belongs to." >&2
  exit 1
fi

# Every article's listings, compiled: a renamed parameter breaks the build of the docs, not a
# reader's first try.
echo "== type-checking the articles' Swift listings" >&2
python3 - "$CATALOG" "$WORK/listings" <<'PY'
import pathlib, re, sys
catalog, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
out.mkdir()
for article in sorted(catalog.glob("*.md")):
    blocks = re.findall(r"^```swift\n(.*?)^```$", article.read_text(), re.S | re.M)
    if blocks:
        (out / (article.stem + ".swift")).write_text("\n".join(blocks))
PY
for listing in "$WORK"/listings/*.swift; do
  if ! swiftc -typecheck -swift-version 6 -module-name DocumentationListing -target "$TRIPLE" -I "$MODULES" "${C_MODULES[@]}" -module-cache-path "$WORK/module-cache" "$listing" >"$WORK/swiftc.log" 2>&1; then
    echo "docs.sh: the Swift listings of $CATALOG/$(basename "$listing" .swift).md do not compile (the article's blocks, in order, are one program):" >&2
    cat "$WORK/swiftc.log" >&2
    exit 1
  fi
done

echo "== docc convert" >&2
rm -rf "$OUTPUT"
if ! docc convert "$CATALOG" --additional-symbol-graph-dir "$WORK/symbol-graphs" --warnings-as-errors \
     --fallback-display-name APNs --fallback-bundle-identifier apnskit.APNs --output-path "$OUTPUT" >"$WORK/docc.log" 2>&1; then
  cat "$WORK/docc.log" >&2
  echo "docs.sh: DocC reported the problems above in $CATALOG (warnings count as errors)." >&2
  exit 1
fi
grep -v '^$' "$WORK/docc.log" >&2 || true
echo "docs.sh: $SYMBOLS symbols, $(ls "$CATALOG"/*.md | wc -l) pages; documentation in $OUTPUT ($(( ($(date +%s%N) - STARTED) / 1000000 )) ms)" >&2
