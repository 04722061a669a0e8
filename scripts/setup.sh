#!/usr/bin/env bash
# Installs every system and npm dependency on a fresh Debian 12 machine, then builds
# everything `npm start` and `npm test` need. Safe to run again: each step skips what
# is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential cmake libeigen3-dev libgtest-dev         # native core + tests (Eigen: the tests' reference only)
  clang libclang-rt-14-dev                                 # fuzz targets (libFuzzer, ASan, UBSan)
  emscripten binaryen node-acorn                           # WebAssembly build
  python3-torch python3-onnx python3-numpy python3-pil python3-pytest libopenblas0-pthread  # exporter
  python3-opencv python3-matplotlib                        # reference colormaps in tests
  clang-format python3-flake8 python3-autopep8            # npm run lint / npm run format
  chromium                                                 # browser tests
  parallel                                                 # scale-out test (GNU parallel shards)
)
# Node.js 20+ may come from elsewhere (nodesource bundles npm); use Debian's only if absent.
command -v node >/dev/null 2>&1 || APT_PACKAGES+=(nodejs npm)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

echo "setup: installing npm packages"
# onnxruntime-node's install script would fetch its CUDA provider (Linux x64) from a host
# outside the npm registry; the CLI runs it on the CPU, whose binaries are in the package.
# (An environment variable, not .npmrc: npm warns on every command about keys it does not know.)
ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund

echo "setup: building"
npm run build
