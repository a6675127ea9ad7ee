#!/usr/bin/env python3
"""Loads a model folder (e.g. `fone export --format hf` of a fone-adapter run) with transformers as a plain
model, and compares its last-position logits with our reader's, saved by `fone model forward --json`:

    build/bin/fone model forward EXPORT --text "TEXT" --json > ours.json
    /work/venvs/hf/bin/python scripts/compare-export-transformers.py EXPORT ours.json

Prints one JSON line: the token ids, the largest absolute logit difference, both argmaxes. A hand-run check
(docs/pretrained.md, "FoNE inside a pretrained model"); needs torch and transformers, never a build or test
dependency.
"""
import json
import sys

import torch
from transformers import AutoModelForCausalLM


def main():
    folder, ours_path = sys.argv[1], sys.argv[2]
    with open(ours_path) as f:
        ours = json.load(f)
    model = AutoModelForCausalLM.from_pretrained(folder, torch_dtype=torch.float32)
    model.eval()
    ids = torch.tensor([ours["token_ids"]])
    with torch.no_grad():
        logits = model(ids).logits[0, -1].double()
    mine = torch.tensor(ours["logits_last"], dtype=torch.float64)
    print(json.dumps({"folder": folder, "token_ids": ours["token_ids"],
                      "max_abs_logit_difference": float((logits - mine).abs().max()),
                      "largest_logit": float(logits.abs().max()),
                      "argmax_transformers": int(logits.argmax()), "argmax_fone": int(mine.argmax())}))


if __name__ == "__main__":
    main()
