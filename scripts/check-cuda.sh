#!/usr/bin/env bash
# The CUDA path run for real on a GPU machine that reaches PyPI (docs/gpu.md): the two commands of an
# offline node run on the same machine, scripts/device-kit.sh (a fone against PyPI's torch, no Qt) then
# scripts/device-check.sh (the GPU tests, bf16 against fp32, the level-4 recipe's seconds per epoch, the
# GPT-2-small-shaped text model's tokens/s, the matrix peak, with 2 GPUs one run on both) with the kit's
# torch. The report: $OUT/report.md (default device-check-out/). Exit status: device-check.sh's (77: no GPU).
#   FONE_DEVICE_TORCH   torch version (default: device-kit.sh's); the other settings of both scripts apply.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/device-kit.sh" || exit $?
FONE_DEVICE_PYTHON="${FONE_DEVICE_VENV:-$ROOT/.venv-device}/bin/python" exec "$ROOT/scripts/device-check.sh"
