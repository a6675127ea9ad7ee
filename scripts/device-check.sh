#!/usr/bin/env bash
# The offline GPU node's check (issue 39; docs/gpu.md, "An offline GPU node"), one command there:
#
#   scripts/device-check.sh          # after scripts/device-kit.sh here; the device tool: carry [".device-kit"]
#
# Reads the kit (.device-kit/kit.tar.xz), makes `fone` ready against the node's own torch (the kit's, or built
# from source there when it cannot start, or with FONE_DEVICE_FORCE_BUILD=1), runs the GPU tests and the
# measurements within FONE_DEVICE_BUDGET_S seconds (default 530), and writes $OUT/report.md and
# $OUT/report.json (OUT defaults to ./device-check-out). Nothing is fetched. Exit status: 0 all passed,
# 1 a stage failed, 2 no fone could be made ready, 77 no GPU visible (every stage then rehearsed on the CPU).
# The work is scripts/device_check.py, run by the Python that holds torch (FONE_DEVICE_PYTHON, else python3).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${FONE_DEVICE_PYTHON:-python3}"
command -v "$PYTHON" >/dev/null || { echo "device-check: no $PYTHON (set FONE_DEVICE_PYTHON)" >&2; exit 2; }
exec "$PYTHON" -u "$ROOT/scripts/device_check.py" "$@"
