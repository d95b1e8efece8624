#!/usr/bin/env bash
# Sets kladder up and runs the whole test suite (CTest) on the default
# OpenCL device: PoCL on the CPU where there is no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir build --output-on-failure -j"$(nproc 2>/dev/null || echo 2)"
