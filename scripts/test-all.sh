#!/usr/bin/env bash
# `npm test`: every suite, in order of speed: lint (scripts/lint.js: clang-format, ESLint,
# flake8), C++ (ctest, then again under ASan + UBSan), the fuzz targets (libFuzzer),
# exporter (pytest), Node (node:test), browser (headless Chromium). Assumes `npm run build` has run
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
# The same GoogleTests and native tools under ASan + UBSan in their own build folder: any
# report fails the suite. The reference data comes from the cpp suite's build above.
run_suite cpp-asan bash -c '
  cmake -S . -B build/native-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVITREL_SANITIZE=ON -DVITREL_SHARED_DIR="$VITREL_SHARED_DIR" >/dev/null &&
  cmake --build build/native-asan -j2 >/dev/null &&
  VITREL_REFERENCE_DIR="$PWD/build/native/tests/cpp/reference" \
  ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --test-dir build/native-asan --output-on-failure -j2 -E "^reference_data$" -FS vitrel_reference_data'
# Every libFuzzer target of tests/fuzz, all at once for 60 s (3.2 million executions in
# all measured on 2 cores, 1.0 million with the machine 7x oversubscribed); a busy
# machine gets up to two more rounds to reach one million.
run_suite fuzz node scripts/fuzz.js --seconds "${VITREL_FUZZ_SECONDS:-60}" --min-executions 1000000
run_suite exporter /usr/bin/python3 -m pytest -q tests/models
run_suite node node --test --test-concurrency=1 tests/node/
run_suite browser node --test --test-concurrency=1 tests/browser/

[ ${#failed_suites[@]} -eq 0 ] || echo "failed suites: ${failed_suites[*]}"
node scripts/count-tests.js "$logs"   # last line: "tests: N passed, N failed, N skipped"
[ ${#failed_suites[@]} -eq 0 ]
