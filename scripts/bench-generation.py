#!/usr/bin/env python3
"""transformers' greedy generation from a model folder, timed as `fone model generate --json` times itself:
the time to the first new token (tokenizing and the prompt's pass included) and the new tokens per second
after it. For docs/pretrained.md's comparison on the same CPU, the same folder and the same thread count,
run back to back with the C++ one:

    nice -n 10 /work/venvs/hf/bin/python scripts/bench-generation.py DIR "PROMPT" --new 32 --threads 1
    nice -n 10 build/bin/fone model generate DIR "PROMPT" --max-new-tokens 32 --threads 1 --json | tail -1

The model runs in float32 (what the C++ forward computes in, whatever the stored dtype), with transformers'
KV cache (its default). Prints one JSON line. Needs torch and transformers; nothing else uses it.
"""
import argparse
import json
import os
import time

import torch
from transformers import AutoModelForCausalLM, LogitsProcessor, LogitsProcessorList, PreTrainedTokenizerFast


class StepClock(LogitsProcessor):
    """Called once per new token, when its logits are ready: the times tokens are chosen."""

    def __init__(self):
        self.times = []

    def __call__(self, input_ids, scores):
        self.times.append(time.perf_counter())
        return scores


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("prompt")
    p.add_argument("--new", type=int, default=32)
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    t_load = time.perf_counter()
    model = AutoModelForCausalLM.from_pretrained(a.dir, dtype=torch.float32).eval()
    # tokenizer.json alone, as the C++ reads it (its post-processor adds Llama-3's <|begin_of_text|>)
    tok = PreTrainedTokenizerFast(tokenizer_file=os.path.join(a.dir, "tokenizer.json"))
    load_seconds = time.perf_counter() - t_load
    clock = StepClock()
    with torch.no_grad():
        t0 = time.perf_counter()
        ids = tok(a.prompt, return_tensors="pt")
        out = model.generate(**ids, do_sample=False, max_new_tokens=a.new, min_new_tokens=a.new,
                             logits_processor=LogitsProcessorList([clock]), pad_token_id=0)
        total = time.perf_counter() - t0
    n = out.shape[1] - ids["input_ids"].shape[1]
    first = clock.times[0] - t0
    rate = (len(clock.times) - 1) / (clock.times[-1] - clock.times[0]) if len(clock.times) > 1 else None
    print(json.dumps({"tokens": int(n), "prompt_tokens": int(ids["input_ids"].shape[1]),
                      "first_token_seconds": first, "tokens_per_second": rate, "seconds": total,
                      "load_seconds": load_seconds, "threads": a.threads}))


if __name__ == "__main__":
    main()
