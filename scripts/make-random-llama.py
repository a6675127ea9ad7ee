#!/usr/bin/env python3
"""A random-weights Llama model folder the size of Llama-3.2-1B (1.24 billion parameters), bf16, in
sharded safetensors with their model.safetensors.index.json: what a downloaded Llama-3.2-1B looks like to
`fone model inspect|forward` and `fone train --init-from`, without downloading anything. For measuring
time and memory (docs/pretrained.md, "A 1B model on this machine"); its outputs mean nothing.

    python3 scripts/make-random-llama.py OUT_DIR [--layers 16] [--shards 4] [--tokenizer FILE]

Needs numpy only. About 2.5 GB on disk with the default shape: delete the folder after. --tokenizer copies
a tokenizer.json into the folder (e.g. the Llama-3 one that tests/golden/pretrained/llama3-tokenizer.tar.xz
holds), which --text and --init-from need.
"""
import argparse
import json
import os
import shutil
import struct

import numpy as np

# Llama-3.2-1B's config.json (hub spelling), vocabulary and all.
CONFIG = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 2048,
    "intermediate_size": 8192, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 64,
    "num_hidden_layers": 16, "vocab_size": 128256, "max_position_embeddings": 131072, "rms_norm_eps": 1e-5,
    "hidden_act": "silu", "rope_theta": 500000.0, "tie_word_embeddings": True, "attention_bias": False,
    "mlp_bias": False, "bos_token_id": 128000, "eos_token_id": 128001, "torch_dtype": "bfloat16",
    "rope_scaling": {"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 8192},
}


def weight_shapes(c):
    h, i, v = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
    q, kv = c["num_attention_heads"] * c["head_dim"], c["num_key_value_heads"] * c["head_dim"]
    shapes = {"model.embed_tokens.weight": (v, h), "model.norm.weight": (h,)}
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        shapes.update({p + "input_layernorm.weight": (h,), p + "post_attention_layernorm.weight": (h,),
                       p + "self_attn.q_proj.weight": (q, h), p + "self_attn.k_proj.weight": (kv, h),
                       p + "self_attn.v_proj.weight": (kv, h), p + "self_attn.o_proj.weight": (h, q),
                       p + "mlp.gate_proj.weight": (i, h), p + "mlp.up_proj.weight": (i, h),
                       p + "mlp.down_proj.weight": (h, i)})
    return shapes


def bf16_bytes(rng, name, shape):
    """Norm weights 1, the others N(0, 0.02) as Llama initialises them; bf16 by truncating float32."""
    if name.endswith("norm.weight"):
        values = np.ones(shape, dtype=np.float32)
    else:
        values = rng.standard_normal(shape, dtype=np.float32) * np.float32(0.02)
    return (values.view(np.uint32) >> 16).astype("<u2").tobytes()


def write_shard(path, names, shapes, rng):
    header, offset = {}, 0
    for n in names:
        size = 2 * int(np.prod(shapes[n]))
        header[n] = {"dtype": "BF16", "shape": list(shapes[n]), "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path + ".part", "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for n in names:
            f.write(bf16_bytes(rng, n, shapes[n]))
    os.replace(path + ".part", path)
    return offset


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    a.add_argument("out")
    a.add_argument("--layers", type=int, default=CONFIG["num_hidden_layers"])
    a.add_argument("--shards", type=int, default=4)
    a.add_argument("--tokenizer", help="a tokenizer.json to copy into the folder")
    args = a.parse_args()
    config = dict(CONFIG, num_hidden_layers=args.layers)
    os.makedirs(args.out, exist_ok=True)
    shapes = weight_shapes(config)
    names = list(shapes)
    per = -(-len(names) // args.shards)
    rng = np.random.default_rng(0)
    weight_map, total = {}, 0
    for s in range(args.shards):
        file = f"model-{s + 1:05d}-of-{args.shards:05d}.safetensors"
        part = names[s * per:(s + 1) * per]
        total += write_shard(os.path.join(args.out, file), part, shapes, rng)
        weight_map.update({n: file for n in part})
    with open(os.path.join(args.out, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=1)
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    if args.tokenizer:
        shutil.copy(args.tokenizer, os.path.join(args.out, "tokenizer.json"))
    parameters = sum(int(np.prod(s)) for s in shapes.values())
    print(json.dumps({"folder": args.out, "parameters": parameters, "bytes": total}))


if __name__ == "__main__":
    main()
