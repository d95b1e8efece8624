#!/usr/bin/env bash
# Sets kladder up and runs the main job on the default device: the device it
# chose, then the GEMM ladder at a size that finishes in well under a minute.
# Extra arguments go to kladder (e.g. --device cpu, or a command).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec build/kladder "$@"
