#!/usr/bin/env bash
# `npm test`: every suite, in order of speed: C++ (ctest), exporter (pytest), Node
# (node:test), browser (headless Chromium). Assumes `npm run build` has run
# (scripts/setup.sh does both). Prints one summary line at the end.
set -uo pipefail
cd "$(dirname "$0")/.."
export VITREL_SHARED_DIR="${VITREL_SHARED_DIR:-$(realpath -m ../shared)}"

failed_suites=()
run_suite() {
  local name="$1"; shift
  echo "=== $name"
  if "$@"; then echo "=== $name: ok"; else echo "=== $name: FAILED"; failed_suites+=("$name"); fi
}

run_suite "C++ core (ctest)" bash -c '
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release -DVITREL_SHARED_DIR="$VITREL_SHARED_DIR" >/dev/null &&
  cmake --build build/native -j2 >/dev/null &&
  ctest --test-dir build/native --output-on-failure -j2'
run_suite "exporter (pytest)" /usr/bin/python3 -m pytest -q tests/models
run_suite "Node (node:test)" node --test --test-concurrency=1 tests/node/
run_suite "browser (headless Chromium)" node --test --test-concurrency=1 tests/browser/

echo
if [ ${#failed_suites[@]} -eq 0 ]; then
  echo "all test suites passed"
  exit 0
fi
echo "failed suites: ${failed_suites[*]}"
exit 1
