#!/usr/bin/env bash
# Headless demo of FoNE through the `fone` tool: what it does, step by step, with outputs in a folder.
#   scripts/demo.sh [BUILD_DIR] [OUT_DIR]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
OUT="${2:-$BUILD/demo}"
FONE="$BUILD/bin/fone"
[ -x "$FONE" ] || { echo "demo: $FONE is not built; run scripts/run.sh" >&2; exit 1; }
mkdir -p "$OUT"

step() { printf '\n\033[1m%s\033[0m\n' "$*"; }

step "FoNE Workbench demo ($("$FONE" --version))"
echo "Every number becomes ONE token; its embedding is [cos 2πx/T, sin 2πx/T] for T = 10, 100, ..."

step "1. The paper's example: FoNE(4.17) with periods 0.1, 1, 10  ->  $OUT/encode.jsonl"
"$FONE" encode --int-digits 1 --frac-digits 2 4.17 | tee "$OUT/encode.jsonl"
echo "   pairs, smallest period first: 4.17 mod 0.1 = 0.07, mod 1 = 0.17, mod 10 = 4.17; last entry: sign"

step "2. Decoding reads every digit back exactly"
"$FONE" decode --int-digits 1 --frac-digits 2 < "$OUT/encode.jsonl"

step "3. Exact for numbers of any length (the paper's float64 stops at ~15 digits)  ->  $OUT/long.jsonl"
LONG=123456789012345678901234567890.123
"$FONE" encode -m 30 -n 3 "$LONG" > "$OUT/long.jsonl"
printf '   exact:   %s -> ' "$LONG"; "$FONE" decode -m 30 -n 3 < "$OUT/long.jsonl"
printf '   float64: %s -> ' "$LONG"; "$FONE" encode -m 30 -n 3 --method float64 "$LONG" | "$FONE" decode -m 30 -n 3

step "4. Numbers in text become [NUM] placeholders with exact values  ->  $OUT/parse.json"
"$FONE" parse 'Ana buys 12 pens at $3.45 each. She pays $41.40 (a 1,234.5% markup, or 3.14e-2 of −5).' \
  | tee "$OUT/parse.json"

if "$FONE" train --help >/dev/null 2>&1; then
  step "5. Train a FoNE transformer on 6-digit decimal addition until 99% exact match  ->  $OUT/runs/demo"
  echo "   51,200 examples like 123.456+654.321=, each number ONE token; the answer is read digit by digit"
  rm -rf "$OUT/runs/demo"
  "$FONE" train --task dec-add --train-size 51200 --test-size 2000 --target-acc 0.99 --runs-dir "$OUT/runs" \
    --name demo > "$OUT/train.jsonl"
  python3 - "$OUT/train.jsonl" <<'PY' 2>/dev/null || tail -n 1 "$OUT/train.jsonl"
import json, sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["event"] == "eval":
        print(f"   epoch {e['epoch']:.1f}: exact match {100 * e['exact_match']:.2f}% on {e['n']} unseen problems")
    if e["event"] == "end":
        print(f"   {e['status']} in {e['elapsed_seconds']:.1f} s: {e['message']}")
PY
  step "6. Ask it: 123.456+654.321="
  "$FONE" predict --run demo --runs-dir "$OUT/runs" "123.456+654.321=" | tee "$OUT/predict.json" \
    | python3 -c 'import json,sys; print("   the model says:", json.load(sys.stdin)["value"], "(exact: 777.777)")' \
    2>/dev/null || true
fi

WORKBENCH="$(dirname "$FONE")/fone-workbench"
if [ -x "$WORKBENCH" ] && [ -d "$OUT/runs" ]; then
  step "7. No display here: the workbench window, rendered offscreen  ->  $OUT/workbench.png"
  QT_QPA_PLATFORM=offscreen "$WORKBENCH" --runs-dir "$OUT/runs" --screenshot "$OUT/workbench.png" 2>/dev/null \
    && echo "   open it with any image viewer; with a display, scripts/run.sh starts the window itself"
fi

step "Outputs are in $OUT"
ls -1 "$OUT"
