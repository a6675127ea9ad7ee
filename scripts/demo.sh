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

step "Outputs are in $OUT"
ls -1 "$OUT"
