#!/usr/bin/env bash
# The paper's Q4 on a GPU, one command: continual pretraining of a downloaded Llama (or Qwen2) with the
# simplified FoNE adapter (`--method fone-adapter`, docs/pretrained.md "FoNE inside a pretrained model"),
# then the arithmetic benchmark before and after, and the merged model exported back to Hugging Face.
#
#   scripts/adapter-gpu.sh MODEL_DIR CORPUS [OUT_DIR]
#
# MODEL_DIR: a Hugging Face folder (config.json, safetensors, tokenizer.json), e.g. Llama-3.2-1B.
# CORPUS: plain text (one document a line), JSONL of {"prompt","answer"}, or a folder (the Factbook, or
# train/val/test.jsonl). Writes to OUT_DIR (default adapter-gpu-<time>): benchmark-before.json, train.jsonl
# (the run's events: text_perplexity and number_piece_accuracy at each evaluation), the run under runs/,
# exported/ (a plain Llama folder: the adapter merged into the embeddings), benchmark-after.json.
#
# Uses $FONE, else build-torch2/bin/fone (a CUDA build: scripts/check-torch2.sh makes one, docs/gpu.md),
# else build/bin/fone. Settings (environment):
#   ALIGN_STEPS  steps of the alignment phase, only the projection trains  (default 1000; -1: the whole run)
#   EPOCHS, BATCH, CONTEXT, LR    training                                   (default 1, 8, 1024, 1e-4)
#   TRAIN_SIZE   documents of the corpus to train on at most                (default 100000000: all)
#   TEST_SIZE    documents held out for the eval events' perplexities       (default 200)
#   PROBLEMS     benchmark problems per task (2000 is lm-eval's; the folder forward runs on the CPU, so
#                the benchmark is the slow part on a GPU machine: 1B, about 0.3 s a problem a core)
#                                                                            (default 200; 0: no benchmark)
set -euo pipefail

if [ $# -lt 2 ]; then
    sed -n '2,24p' "$0"
    exit 2
fi
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MODEL="$1"
CORPUS="$2"
OUT="${3:-adapter-gpu-$(date +%Y%m%d-%H%M%S)}"
FONE="${FONE:-}"
for candidate in "$ROOT/build-torch2/bin/fone" "$ROOT/build/bin/fone"; do
    if [ -z "$FONE" ] && [ -x "$candidate" ]; then FONE="$candidate"; fi
done
if [ -z "$FONE" ]; then
    echo "adapter-gpu.sh: no fone binary: build one (scripts/check-torch2.sh for CUDA) or set FONE" >&2
    exit 2
fi
if [ -e "$OUT" ]; then
    echo "adapter-gpu.sh: $OUT exists; choose a new folder" >&2
    exit 2
fi
DEVICE=cuda
if ! "$FONE" --version | grep -q "CUDA available"; then
    echo "adapter-gpu.sh: $FONE has no usable GPU ($("$FONE" --version | tail -n 1)); training on the CPU" >&2
    DEVICE=cpu
fi
mkdir -p "$OUT"
PROBLEMS="${PROBLEMS:-200}"
benchmark() {
    if [ "$PROBLEMS" != 0 ]; then
        "$FONE" eval --benchmark arithmetic --model "$1" --problems "$PROBLEMS" --json >"$2"
        echo "adapter-gpu.sh: $2: mean exact match $(grep -o '"mean_exact_match":[^,}]*' "$2")"
    fi
}
benchmark "$MODEL" "$OUT/benchmark-before.json"
"$FONE" train --init-from "$MODEL" --method fone-adapter --task text --data "$CORPUS" --device "$DEVICE" \
    --train-size "${TRAIN_SIZE:-100000000}" --test-size "${TEST_SIZE:-200}" --epochs "${EPOCHS:-1}" --batch "${BATCH:-8}" --context "${CONTEXT:-1024}" \
    --lr "${LR:-1e-4}" --align-steps "${ALIGN_STEPS:-1000}" --snapshots none --runs-dir "$OUT/runs" \
    --name adapter | tee "$OUT/train.jsonl"
"$FONE" export --run adapter --runs-dir "$OUT/runs" --out "$OUT/exported" --format hf
benchmark "$OUT/exported" "$OUT/benchmark-after.json"
echo "adapter-gpu.sh: done; the exported model: $OUT/exported"
