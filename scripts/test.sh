#!/usr/bin/env bash
# Sets kladder up with the test tools (scripts/setup.sh --tests) and runs the
# whole test suite (CTest) on the default OpenCL device: PoCL on the CPU where
# there is no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --tests
ctest --test-dir build --output-on-failure -j"$(nproc 2>/dev/null || echo 2)"
