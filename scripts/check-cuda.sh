#!/usr/bin/env bash
# The CUDA path run for real, on a machine with an NVIDIA GPU (issue 15; docs/gpu.md):
#   1. builds against PyPI's CUDA torch with scripts/check-torch2.sh (its virtual environment and build tree)
#      and runs the tests that need a GPU (ctest -L gpu: tests/test_cuda.cpp — a training step on CUDA equal
#      to the CPU's, fp32 and within bf16 tolerance under autocast; a run resumed on the GPU from a CPU
#      checkpoint and back on the CPU; `fone train --device cuda` to 99%; eval, predict and an analysis on
#      the GPU against the CPU's). Without a visible GPU they exit 77 and CTest reports them skipped;
#   2. measures the paper's level-4 recipe (--preset paper) on 720,000 examples: seconds per epoch (the
#      paper's own: 3'18" on its GPU) over FONE_CUDA_EPOCHS epochs (default 2);
#   3. runs `fone reproduce efficiency --preset full` on the GPU;
#   (1b. with 2 GPUs or more: one run on 2 GPUs, `fone train --device cuda --nproc 2` over NCCL, beside the
#      same run on 1 GPU; with fewer, the report says it was not run;)
#   4. writes every figure with the GPU's name to $OUT/report.md (default build-torch2/check-cuda), for
#      docs/gpu.md.
# Exit status: 77 when no GPU is visible (after the build and the skipped tests); else 0 when every step
# passed, 1 otherwise.
#
#   FONE_CUDA_OUT       the report's folder          (default: $FONE_TORCH2_BUILD/check-cuda)
#   FONE_CUDA_EPOCHS    epochs of the level-4 run    (default: 2)
#   FONE_CUDA_MEASURE   0: tests only, no measurements
# and check-torch2.sh's settings (FONE_TORCH2_VENV, FONE_TORCH2_BUILD, FONE_TORCH2_SPEC, CUDA_HOME, FONE_JOBS).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${FONE_TORCH2_BUILD:-$ROOT/build-torch2}"
OUT="${FONE_CUDA_OUT:-$BUILD/check-cuda}"
EPOCHS="${FONE_CUDA_EPOCHS:-2}"
MEASURE="${FONE_CUDA_MEASURE:-1}"
mkdir -p "$OUT"
REPORT="$OUT/report.md"
log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

GPU="none visible"
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  GPU="$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -n 1)"
fi
log "GPU: $GPU"

# ---- 1. build and the GPU tests ----------------------------------------------------------------------------
FONE_TORCH2_LABELS=gpu "$ROOT/scripts/check-torch2.sh" 2>&1 | tee "$OUT/build-and-tests.log"
TESTS_RC=${PIPESTATUS[0]}
TESTS="$(grep -E 'tests passed|No tests were found' "$BUILD/check-torch2-ctest.log" 2>/dev/null | tail -n 1)"
SKIPPED=0
grep -q 'test_cuda .*Skipped\|Not Run.*test_cuda\|\*\*\*Skipped' "$BUILD/check-torch2-ctest.log" 2>/dev/null && SKIPPED=1
FONE="$BUILD/bin/fone"
VERSION="$("$FONE" --version 2>&1 | tail -n 1)"

{
  echo "# scripts/check-cuda.sh, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  echo "- GPU: $GPU"
  echo "- CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) cores"
  echo "- fone --version: $VERSION"
  echo "- GPU tests (ctest -L gpu): ${TESTS:-no summary} (exit $TESTS_RC$([ "$SKIPPED" = 1 ] && echo ', skipped: no GPU'))"
} >"$REPORT"

if [[ "$GPU" == "none visible" || "$VERSION" != *"CUDA available"* ]]; then
  echo "- No GPU was visible: nothing measured." >>"$REPORT"
  cat "$REPORT"
  exit 77
fi
RC=$(( TESTS_RC != 0 ))

# ---- 1b. one run on 2 GPUs (issue 32: --nproc 2, NCCL) --------------------------------------------------------
# The same 8-epoch run on 1 GPU and on 2 (1 rank per GPU, half the batch each): both finish; the 2-GPU run's
# exact match is reported beside the 1-GPU one (NCCL sums in another order: equal within float rounding).
NGPU="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')"
if [ "${NGPU:-0}" -ge 2 ]; then
  log "one run on 2 GPUs (--nproc 2, NCCL)"
  RUNS2="$OUT/runs-2gpu"
  rm -rf "$RUNS2"
  small=(--task dec-add --train-size 51200 --test-size 2000 --epochs 8 --device cuda --seed 1 --runs-dir "$RUNS2")
  CUDA_VISIBLE_DEVICES=0 "$FONE" train "${small[@]}" --name one-gpu >"$OUT/one-gpu.jsonl" || RC=1
  "$FONE" train "${small[@]}" --nproc 2 --name two-gpus >"$OUT/two-gpus.jsonl" 2>"$OUT/two-gpus.err" || RC=1
  python3 - "$OUT/one-gpu.jsonl" "$OUT/two-gpus.jsonl" >>"$REPORT" <<'PY'
import json, sys
def last(path, kind):
    ev = [json.loads(l) for l in open(path) if l.strip().startswith("{")]
    found = [e for e in ev if e.get("event") == kind]
    return found[-1] if found else {}
print("\n## One run on 2 GPUs (`fone train --device cuda --nproc 2`, NCCL)\n")
print("| GPUs | status | test exact match | examples/s (last epoch) | weights digest |")
print("|---|---|---|---|---|")
for n, path in (("1", sys.argv[1]), ("2", sys.argv[2])):
    end, ev = last(path, "end"), last(path, "eval")
    print(f"| {n} | {end.get('status', 'no end event')} | {100 * ev.get('exact_match', 0):.2f}% | "
          f"{ev.get('examples_per_second', 0):,.0f} | {end.get('weights_digest', '')} |")
PY
else
  echo "- 2-GPU case (--nproc 2, NCCL): not run, ${NGPU:-0} GPU(s) visible" >>"$REPORT"
  log "2-GPU case skipped: ${NGPU:-0} GPU(s) visible"
fi

# ---- 2. the paper's level-4 recipe on 720,000 examples -------------------------------------------------------
if [ "$MEASURE" = 1 ]; then
  RUNS="$OUT/runs"
  rm -rf "$RUNS/paper-l4-720k"
  log "the paper's level-4 recipe on 720,000 examples, $EPOCHS epochs"
  "$FONE" train --preset paper --size-level 4 --train-size 720000 --test-size 2000 --epochs "$EPOCHS" \
    --device cuda --runs-dir "$RUNS" --name paper-l4-720k >"$OUT/paper-l4-720k.jsonl" || RC=1
  python3 - "$OUT/paper-l4-720k.jsonl" >>"$REPORT" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip().startswith("{")]
evals = [e for e in ev if e.get("event") == "eval" and e.get("split", "test") == "test"]
print("\n## The paper's level-4 recipe, 720,000 examples (`fone train --preset paper --size-level 4`)\n")
print("| epoch | seconds (train) | test exact match | examples/s |")
print("|---|---|---|---|")
for e in evals:
    print(f"| {e.get('epoch')} | {e.get('epoch_seconds', 0):.1f} | {100 * e.get('exact_match', 0):.2f}% | "
          f"{e.get('examples_per_second', 0):,.0f} |")
print("\nThe paper's own: 3'18\" (198 s) per epoch on its GPU.")
PY

  # ---- 3. fone reproduce efficiency --preset full ----------------------------------------------------------
  log "fone reproduce efficiency --preset full"
  if "$FONE" reproduce efficiency --preset full --runs-dir "$RUNS" --out "$OUT/efficiency-full" \
      >"$OUT/efficiency-full.log" 2>&1; then
    { echo; echo "## fone reproduce efficiency --preset full"; echo; cat "$OUT/efficiency-full/results.md"; } >>"$REPORT"
  else
    RC=1
    { echo; echo "## fone reproduce efficiency --preset full: failed"; echo; tail -n 5 "$OUT/efficiency-full.log"; } >>"$REPORT"
  fi
fi

cat "$REPORT"
log "report: $REPORT (copy its figures into docs/gpu.md)"
exit "$RC"
