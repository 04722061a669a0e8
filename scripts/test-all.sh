#!/usr/bin/env bash
# `npm test`: every suite, in order of speed: lint (scripts/lint.js: clang-format, ESLint,
# flake8), C++ (ctest), exporter (pytest), Node (node:test), browser (headless Chromium). Assumes `npm run build` has run
# (scripts/setup.sh does both). Ends with one line adding up every runner's counts.
set -uo pipefail
cd "$(dirname "$0")/.."
export VITREL_SHARED_DIR="${VITREL_SHARED_DIR:-$(realpath -m ../shared)}"

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
failed_suites=()
run_suite() {
  local name="$1"; shift
  echo "=== $name"
  if "$@" 2>&1 | tee "$logs/$name.log"; then
    echo "=== $name: ok"
  else
    echo "=== $name: FAILED"; failed_suites+=("$name")
  fi
}

run_suite lint node scripts/lint.js
run_suite cpp bash -c '
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release -DVITREL_SHARED_DIR="$VITREL_SHARED_DIR" >/dev/null &&
  cmake --build build/native -j2 >/dev/null &&
  ctest --test-dir build/native --output-on-failure -j2'
run_suite exporter /usr/bin/python3 -m pytest -q tests/models
run_suite node node --test --test-concurrency=1 tests/node/
run_suite browser node --test --test-concurrency=1 tests/browser/

[ ${#failed_suites[@]} -eq 0 ] || echo "failed suites: ${failed_suites[*]}"
node scripts/count-tests.js "$logs"   # last line: "tests: N passed, N failed, N skipped"
[ ${#failed_suites[@]} -eq 0 ]
