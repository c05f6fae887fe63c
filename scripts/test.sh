#!/usr/bin/env bash
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
# Builds apnskit and runs every test. This is what CI runs (.ci/run) and what the README gives.
#
# Two lanes start together, so that both cores stay busy from the first second:
#   memory: the fuzz pass built (in its own scratch folder, .build-asan, so it builds beside
#           the main build) and run under AddressSanitizer; then, once the main build has made
#           the CLI, the CLI under valgrind memcheck;
#   tests:  the main build, then every Swift test suite, hardening included, in one parallel
#           run (Swift Testing runs up to TEST_WIDTH tests at once; the default, 4, keeps two
#           cores busy while some tests wait on their peers, without so many at once that a
#           test's own bounds are outrun by the machine).
# Each lane's output goes to its own log (.build/test-output.txt, .build/memory-checks.txt);
# the memory lane's log is printed when it ends, and the failing checks of either are printed
# last, so that the end of the output (all a CI summary may show) names them.
#   packages: clean Debian 12 roots (mmdebstrap: network, little CPU, beside the build), with
#           scripts/setup.sh proven complete in one that has only Swift; then, once the main
#           build is done, the release packages made from its objects (no compiling) and each
#           installed and run in a root without Swift (scripts/package-test.sh).
#   docs:   once the main build is done, the library's DocC catalog (scripts/docs.sh), read from
#           the modules that build made (no swift command: `swift test` holds the build folder).
# After the tests, the tests lane checks the libraries' API against the last release
# (scripts/api-check.sh) and the licence headers (scripts/spdx.sh).
# ASAN_PASS=0 skips the AddressSanitizer pass (the fuzz pass then runs in the hardening suites);
# LEAKCHECK=0 skips the memcheck pass; PACKAGE_TEST=0 skips the packages lane; TEST_WIDTH=N sets
# how many tests run at once.
set -euo pipefail
cd "$(dirname "$0")/.."
# Whatever stdin the caller gave (CI: none), the run and every child read /dev/null: a closed
# descriptor 0 would be handed to the first file or socket a test opens.
exec </dev/null
bash scripts/setup.sh
. scripts/lib.sh
started=$SECONDS

mkdir -p .build
tests_log=.build/test-output.txt
memory_log=.build/memory-checks.txt
package_log=.build/package-checks.txt
docs_log=.build/docs-checks.txt
# Written by the test lane when the main build is done: the memcheck pass needs its apnskit.
built_marker=.build/main-build-done
: >"$tests_log"
: >"$memory_log"
: >"$package_log"
: >"$docs_log"
rm -f "$built_marker"
failures=()

# descendants PID: every process under PID, deepest first.
descendants() {
  local child
  for child in $(pgrep -P "$1" || true); do descendants "$child"; echo "$child"; done
}

# The memory lane. Only the APNsFuzzPass product (the libraries and the fuzz harnesses) is built
# sanitized, not the CLI or the test bundle.
memory_lane() {
  if [ "${ASAN_PASS:-1}" != "0" ]; then
    stage "AddressSanitizer build" swift build --scratch-path .build-asan --product APNsFuzzPass -Xswiftc -sanitize=address || return 1
    ASAN_OPTIONS=detect_leaks=0 stage "AddressSanitizer fuzz pass" .build-asan/debug/APNsFuzzPass "${ASAN_FUZZ_INPUTS:-10000}" || return 1
  fi
  if [ "${LEAKCHECK:-1}" != "0" ]; then
    # The main build is the test lane's; this lane waits for it (this script stops the lane
    # should the build fail).
    until [ -e "$built_marker" ]; do sleep 1; done
    # Two memchecks at a time: memcheck is single-threaded, and once the tests end this is
    # the only work left.
    LEAKCHECK_JOBS="${LEAKCHECK_JOBS:-2}" stage "valgrind memcheck" bash scripts/leakcheck.sh .build/debug/apnskit || return 1
  fi
}
# The packages lane. The roots need no build; the packages need the main build's objects and
# run no swift command (the test lane's `swift test` holds the build folder).
package_lane() {
  stage "clean roots: base, and setup.sh in one with only Swift" bash scripts/package-test.sh roots || return 1
  until [ -e "$built_marker" ]; do sleep 1; done
  stage "release packages, installed in clean roots" bash scripts/package-test.sh packages || return 1
}
# Both lanes' builds read the dependency versions; resolving them first means neither writes
# Package.resolved while the other reads it.
stage "resolve packages" swift package resolve
memory_lane >"$memory_log" 2>&1 &
memory_pid=$!
package_pid=""
docs_pid=""
if [ "${PACKAGE_TEST:-1}" != "0" ]; then
  package_lane >"$package_log" 2>&1 &
  package_pid=$!
fi
# Should this script stop early, the lanes (and their build, valgrind, fuzz or root children)
# stop with it; package-test.sh unmounts and deletes its roots on the way out.
stop_lanes() {
  local pid
  for pid in "$memory_pid" "$package_pid" "$docs_pid"; do
    if [ -n "$pid" ]; then kill -TERM $(descendants "$pid") "$pid" 2>/dev/null || true; fi
  done
}
# release_output: the run's output ends only when every process holding it has closed it, and
# a caller reading it through a pipe (CI) waits until then. A process the run started that
# outlived it (a daemon a test or an install started) would hold it for ever: each is named,
# then ended.
release_output() {
  local ours pid holders=()
  ours=$(readlink "/proc/$$/fd/1" 2>/dev/null) || return 0
  case "$ours" in pipe:*) ;; *) return 0 ;; esac
  local callers fd
  callers=$(ancestors $$)
  for pid in $(ls /proc | grep -E '^[0-9]+$'); do
    # This shell and its callers are not leftovers.
    [ "$pid" = "$$" ] && continue
    grep -qxF "$pid" <<<"$callers" && continue
    for fd in /proc/"$pid"/fd/*; do
      # A write end of the same pipe (flags with O_WRONLY or O_RDWR): the reader's end is not.
      if [ "$(readlink "$fd" 2>/dev/null)" = "$ours" ] \
         && grep -qE '^flags:\s*[0-7]*[12]$' "/proc/$pid/fdinfo/${fd##*/}" 2>/dev/null; then
        holders+=("$pid"); break
      fi
    done
  done
  if [ ${#holders[@]} -gt 0 ]; then
    echo "== test.sh: processes of this run still hold its output; ending them:"
    ps -o pid,ppid,etimes,args -p "$(IFS=,; echo "${holders[*]}")" | cut -c1-200
    kill -KILL "${holders[@]}" 2>/dev/null || true
  fi
}
# ancestors PID: PID's parent, its parent, and so on.
ancestors() {
  local pid="$1"
  while pid=$(ps -o ppid= -p "$pid" 2>/dev/null | tr -d ' ') && [ -n "$pid" ] && [ "$pid" != 0 ]; do echo "$pid"; done
}
trap 'stop_lanes; release_output' EXIT

# swift-argument-parser's man page generator is built with the rest, for the install.sh test
# (which must not build from inside `swift test`).
# The build's output is kept: a warning in our own targets fails the run (dependencies' warnings
# aside), so that a new one is seen the day it appears. A fresh clone compiles every file, so CI
# sees them all; an incremental local build shows only the files it recompiled.
build_log=.build/build-output.txt
build() { swift build --build-tests 2>&1 | tee "$build_log" && swift build --product generate-manual; }
stage "build" build
touch "$built_marker"
# The docs lane: the catalog checked beside the tests, from the modules the build just made.
DOCS_BIN_PATH=.build/debug stage "docs (DocC)" bash scripts/docs.sh >"$docs_log" 2>&1 &
docs_pid=$!
own_warnings=$(grep -E "^$PWD/(Sources|Tests)/[^:]+:[0-9]+:[0-9]+: warning:" "$build_log" | sort -u || true)
if [ -n "$own_warnings" ]; then
  echo "$own_warnings"
  failures+=("compiler warnings in Sources/ or Tests/ ($(echo "$own_warnings" | wc -l); listed above and in $build_log)")
fi

# The test lane: one `swift test`, every suite in parallel. The fuzz pass (FuzzPassTests) runs
# here only when the ASan pass is off: that pass feeds the same harnesses the same inputs under
# AddressSanitizer, which checks strictly more.
skip=()
if [ "${ASAN_PASS:-1}" != "0" ]; then skip=(--skip FuzzPassTests); fi
status=0
# deadline_watch PID SECONDS WHAT: in the background, waits SECONDS; should PID still run then,
# prints what it was doing (for the test run: the tests the log shows started and not ended, and
# the test process's threads' stacks when gdb is there; for any: the processes under it), ends it
# and every process under it. A hang then fails the run with its cause in the output instead of
# running into CI's time limit with nothing said. Prints the watchdog's PID.
deadline_watch() {
  local pid="$1" seconds="$2" what="$3"
  (
    sleep "$seconds" </dev/null >/dev/null 2>&1
    kill -0 "$pid" 2>/dev/null || exit 0
    echo "== test.sh: $what still running after $seconds s"
    if [ "$what" = "swift test" ]; then
      echo "== test.sh: the tests started and not ended:"
      python3 - "$tests_log" <<'PY'
import re, sys
running = {}
for line in open(sys.argv[1], errors="replace"):
    # A parameterized test ends "Test "NAME" with N test cases passed".
    match = re.search(r'Test "(.*)" (?:with \d+ test cases? )?(started|passed|failed)', line)
    if match:
        name, what = match.groups()
        running[name] = running.get(name, 0) + (1 if what == "started" else -1)
print("\n".join(f"  {name}" for name, count in running.items() if count > 0) or "  (none)")
PY
    fi
    local pids
    pids=$(descendants "$pid" | paste -sd, -)
    if [ -n "$pids" ]; then
      echo "== test.sh: the processes under it:"
      ps -o pid,ppid,etimes,time,args --forest -p "$pids" | cut -c1-240
      if command -v gdb >/dev/null; then
        for child in ${pids//,/ }; do
          case "$(tr '\0' ' ' <"/proc/$child/cmdline" 2>/dev/null)" in *PackageTests*) ;; *) continue ;; esac
          echo "== test.sh: the threads of test process $child:"
          timeout 120 gdb -p "$child" -batch -ex "thread apply all bt 12" 2>/dev/null | grep -E "^(Thread|#)" | cut -c1-200
        done
      fi
    fi
    kill -TERM ${pids//,/ } "$pid" 2>/dev/null || true
    sleep 10
    kill -KILL ${pids//,/ } "$pid" 2>/dev/null || true
  ) >&2 &
  echo $!
}
# end_watch WATCHDOG: stops a watchdog (and its sleep) whose process ended in time.
end_watch() { kill $(descendants "$1") "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

# with_deadline SECONDS COMMAND...: runs COMMAND under a deadline_watch; 124 when it was past
# its deadline, else COMMAND's status.
with_deadline() {
  local seconds="$1" command_pid watchdog status=0 started_at=$SECONDS
  shift
  "$@" &
  command_pid=$!
  watchdog=$(deadline_watch "$command_pid" "$seconds" "swift test")
  wait "$command_pid" || status=$?
  end_watch "$watchdog"
  if [ $((SECONDS - started_at)) -ge "$seconds" ]; then return 124; fi
  return "$status"
}
run_swift_tests() {
  SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${TEST_WIDTH:-4}" swift test --skip-build "${skip[@]}" 2>&1 | tee -a "$tests_log"
  return "${PIPESTATUS[0]}"
}
# The deadline: the suites take about 8 minutes on an idle machine; TEST_DEADLINE=N sets it.
stage "swift test (parallel)" with_deadline "${TEST_DEADLINE:-1800}" run_swift_tests || status=$?
if [ "$status" -eq 124 ]; then failures+=("swift test ${skip[*]}: still running after its deadline (the tests it was running, its processes and stacks are listed above)")
elif [ "$status" -ne 0 ]; then failures+=("swift test ${skip[*]} (exit $status)"); fi
# The libraries' public API against the last release (its dumps are in api-baseline/, so only
# the current modules are read: the build is done) and every source file's licence header.
stage "API check" bash scripts/api-check.sh 2>&1 | tee -a "$tests_log" || failures+=("scripts/api-check.sh (the API broke; log in $tests_log)")
stage "licence headers" bash scripts/spdx.sh --check 2>&1 | tee -a "$tests_log" || failures+=("scripts/spdx.sh (licence headers)")

# finish_lane PID TITLE LOG WHAT: waits for a lane, prints its log under TITLE, and counts it
# among the failures as WHAT when it failed.
finish_lane() {
  local status=0 watchdog
  # The lanes started with the build; they get until the run's deadline (LANE_DEADLINE s after
  # the start, 45 minutes by default: about twice what they take).
  watchdog=$(deadline_watch "$1" $(( ${LANE_DEADLINE:-2700} - (SECONDS - started) > 1 ? ${LANE_DEADLINE:-2700} - (SECONDS - started) : 1 )) "the $4 lane")
  wait "$1" || status=$?
  end_watch "$watchdog"
  echo "== $2:"
  cat "$3"
  if [ "$status" -ne 0 ]; then failures+=("$4 (exit $status; log in $3)"); fi
}
finish_lane "$memory_pid" "memory checks (AddressSanitizer fuzz pass, valgrind memcheck)" "$memory_log" "memory checks"
memory_pid=""
# The library's DocC catalog: every symbol link resolves, no warning, every article's code compiles.
finish_lane "$docs_pid" "docs (DocC: links, doc comments, the articles' listings)" "$docs_log" "scripts/docs.sh"
docs_pid=""
if [ -n "$package_pid" ]; then
  finish_lane "$package_pid" "packages (clean roots, setup.sh, the .deb and the tarball)" "$package_log" "release packages"
  package_pid=""
fi
echo "== test.sh: $((SECONDS - started)) s in all"

if [ "${#failures[@]}" -ne 0 ]; then
  echo "== test.sh: FAILED:" >&2
  printf '  %s\n' "${failures[@]}" >&2
  echo "== the failing tests and checks:" >&2
  grep -hE "✘|recorded an issue|Fatal error|ERROR: AddressSanitizer|leakcheck: .*(errors|expected|did not)" \
    "$tests_log" "$memory_log" | grep -v "passed after" | tail -40 >&2 || true
  grep -hE "^(package|package-test|flow|check-tools|api-check|setup|docs)[.a-z]*: " "$package_log" "$tests_log" "$docs_log" | grep -vE "passed|links:|apnskit [0-9]|installing|all .* installed" | tail -20 >&2 || true
  exit 1
fi
echo "== test.sh: every test and check passed."
