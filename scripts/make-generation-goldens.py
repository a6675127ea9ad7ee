#!/usr/bin/env python3
"""Greedy continuations of the tiny random models of tests/golden/pretrained/ by transformers, the references
of `fone model generate` (tests/test_model_generate.cpp): the C++ continuation must be the same tokens.

For every folder and prompt: the prompt's ids (tokenizer.json with its special tokens, as transformers'
tokenizer(prompt)), transformers' `generate(do_sample=False, max_new_tokens=N, eos_token_id=config's)` in
float32 (what the C++ forward computes in), and as a check the same in float64: the two must agree, and the
smallest gap between the chosen token's logit and the next best along the way ("min_margin", float64) is
saved, so that a tie that float rounding could break is visible (prompts with a margin under 1e-3 are not
used).

    /work/venvs/hf/bin/python scripts/make-generation-goldens.py   # rewrites tests/golden/pretrained/generations.json

Needs torch, transformers (5.x) and tokenizers; nothing at build or test time runs Python.
"""
import json
import os

import torch
import transformers
from tokenizers import Tokenizer
from transformers import AutoModelForCausalLM

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden", "pretrained")
FOLDERS = ["llama", "llama-bf16-sharded", "qwen2", "gpt2-fp16", "pythia", "neox-sequential"]
PROMPTS = ["527.38+94.605=", "The number of apples is", "Q: What is 98 plus 45?\n\nA:"]
NEW_TOKENS = 24


def greedy(model, ids, eos):
    out = model.generate(torch.tensor([ids]), do_sample=False, max_new_tokens=NEW_TOKENS, eos_token_id=eos,
                         pad_token_id=eos if eos is not None else 0, attention_mask=torch.ones(1, len(ids),
                                                                                           dtype=torch.long))
    return out[0, len(ids):].tolist()


def min_margin(model, ids, new):
    """The smallest top-1 minus top-2 logit over the steps that chose `new` (float64, no cache)."""
    margin = float("inf")
    seq = list(ids)
    with torch.no_grad():
        for t in new:
            logits = model(torch.tensor([seq])).logits[0, -1]
            top = torch.topk(logits, 2).values
            assert int(logits.argmax()) == t
            margin = min(margin, float(top[0] - top[1]))
            seq.append(t)
    return margin


def main():
    rows = {}
    for name in FOLDERS:
        folder = os.path.join(ROOT, name)
        tok = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
        config = json.load(open(os.path.join(folder, "config.json")))
        eos = config.get("eos_token_id")
        m32 = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
        m64 = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float64).eval()
        rows[name] = []
        for prompt in PROMPTS:
            ids = tok.encode(prompt).ids
            new32, new64 = greedy(m32, ids, eos), greedy(m64, ids, eos)
            assert new32 == new64, (name, prompt, new32, new64)
            margin = min_margin(m64, ids, new64)
            if margin < 1e-3:
                print(f"{name} {prompt!r}: a near tie ({margin:.2e}), not used")
                continue
            rows[name].append({"prompt": prompt, "prompt_ids": ids, "new_ids": new32, "eos_token_id": eos,
                               "min_margin": margin, "text": tok.decode(new32, skip_special_tokens=False)})
            print(f"{name} {prompt!r}: {len(new32)} tokens, min margin {margin:.3f}")
    out = {"transformers": transformers.__version__, "torch": torch.__version__, "max_new_tokens": NEW_TOKENS,
           "models": rows}
    with open(os.path.join(ROOT, "generations.json"), "w") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
