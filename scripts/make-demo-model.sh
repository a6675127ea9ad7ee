#!/usr/bin/env bash
# Makes the bundled demo model, resources/demo-model/, with the project's own `fone`: a small FoNE model of
# 6-digit decimal addition ("123.456+654.321=" -> 777.777), trained and exported reproducibly.
#   scripts/make-demo-model.sh [FONE]        (FONE: build/bin/fone)
# The recipe (also recorded in resources/demo-model/config.json): the measured defaults for dec-add with
# 51,200 examples (typed sums: the default mixture, uniform 7 and each of the 7 shapes people type 1, plus
# the range's ends, edges 1 (issue 28: 999.999+999.999, 0+0, 99.999+900.001; off in the default mixture);
# hidden 64, 2 layers, 2 heads of width 32, 10 epochs, batch 256, lr 3e-3, cosine), seed 1, one thread (the
# same bits on every run of the same build and BLAS). `fone export` drops the optimiser state. Then
# `fone eval`, `fone eval --suite typed` and `fone predict` check it (tests/test_demo_model.cpp checks the
# copy in resources/, with the six sums of issue 14: 500+500, 250+250, 100+23, 0.5+0.25, 999.999+0.001,
# 123.4+5, and the range's ends of issue 28, each against exact decimal arithmetic).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fone="${1:-$repo/build/bin/fone}"
[[ -x "$fone" ]] || { echo "make-demo-model: no fone at $fone (build it first)" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

weights="uniform=7,round=1,short=1,one_decimal=1,carry=1,equal=1,zeros=1,mixed=1,edges=1"
"$fone" train --task dec-add --train-size 51200 --test-size 2000 --seed 1 --threads 1 --name demo-model \
    --sampling-weights "$weights" --runs-dir "$tmp/runs" >"$tmp/train.jsonl"
tail -n 1 "$tmp/train.jsonl"
"$fone" export --run demo-model --runs-dir "$tmp/runs" --out "$tmp/demo-model"
rm -rf "$repo/resources/demo-model"
mv "$tmp/demo-model" "$repo/resources/demo-model"
du -sh "$repo/resources/demo-model"
"$fone" eval --run "$repo/resources/demo-model" --runs-dir "$tmp/runs" --threads 1
"$fone" eval --run "$repo/resources/demo-model" --runs-dir "$tmp/runs" --threads 1 --suite typed
"$fone" predict --run "$repo/resources/demo-model" --runs-dir "$tmp/runs" "123.456+654.321="
"$fone" predict --run "$repo/resources/demo-model" --runs-dir "$tmp/runs" "999.999+999.999="
