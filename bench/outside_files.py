#!/usr/bin/env python3
"""Hand-run figures for docs/reliability.md section 8 (issue 33): model folders and run files of hostile
shapes, timed through the built fone. Standard library only; writes into a temporary folder.

    python3 bench/outside_files.py [build/bin/fone]

Each case prints: name, seconds, exit status, the first 160 bytes of stderr. The folders start from the tiny
Llama of tests/golden/pretrained/llama (its real weights), with:
  tensors-40000   model.safetensors holding 40,000 extra 1-element tensors (a 2 MB header)
  index-300000    an index whose weight_map names 300,000 tensors (all in the one real file)
  added-100000    tokenizer.json with 100,000 added tokens
  deep-config     config.json nested 100,000 levels (`fone model inspect`)
  deep-run        a run folder whose config.json nests 100,000 levels (`fone runs show`)
  header-95MB     model.safetensors whose header is 95 MB (a metadata string): the peak memory it costs
Each line also gives the command's own peak RSS (GNU time's %M).
"""
import json
import os
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "tests", "golden", "pretrained", "llama")


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    return header, data


def write_safetensors(path, header, data):
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def folder(tmp, name):
    d = os.path.join(tmp, name)
    shutil.copytree(GOLDEN, d)
    return d


def many_tensors(tmp, count):
    d = folder(tmp, "tensors-%d" % count)
    header, data = read_safetensors(os.path.join(d, "model.safetensors"))
    meta = header.pop("__metadata__", None)
    end = len(data)
    for i in range(count):
        header["extra.%d" % i] = {"dtype": "F32", "shape": [1], "data_offsets": [end + 4 * i, end + 4 * i + 4]}
    if meta is not None:
        header["__metadata__"] = meta
    write_safetensors(os.path.join(d, "model.safetensors"), header, data + b"\0" * (4 * count))
    return d


def big_index(tmp, count):
    d = folder(tmp, "index-%d" % count)
    header, _ = read_safetensors(os.path.join(d, "model.safetensors"))
    weight_map = {name: "model.safetensors" for name in header if name != "__metadata__"}
    for i in range(count):
        weight_map["unused.%d" % i] = "model.safetensors"
    with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {}, "weight_map": weight_map}, f)
    return d


def added_tokens(tmp, count):
    d = folder(tmp, "added-%d" % count)
    path = os.path.join(d, "tokenizer.json")
    with open(path) as f:
        t = json.load(f)
    first = max(t["model"]["vocab"].values()) + 1
    t["added_tokens"] = (t.get("added_tokens") or []) + [
        {"id": first + i, "content": "<extra_%d>" % i, "special": True} for i in range(count)]
    with open(path, "w") as f:
        json.dump(t, f)
    return d


def deep_config(tmp):
    d = folder(tmp, "deep-config")
    with open(os.path.join(d, "config.json"), "w") as f:
        f.write('{"model_type": "llama", "x": ' + "[" * 100000 + "]" * 100000 + "}")
    return d


def deep_run(tmp):
    runs = os.path.join(tmp, "runs")
    d = os.path.join(runs, "deep")
    os.makedirs(d)
    with open(os.path.join(d, "config.json"), "w") as f:
        f.write('{"task": "dec-add", "x": ' + "[" * 100000 + "]" * 100000 + "}")
    with open(os.path.join(d, "status.json"), "w") as f:
        f.write('{"status": "finished"}')
    return runs


def big_header(tmp, size):
    d = folder(tmp, "header-%dMB" % (size // 1000000))
    header, data = read_safetensors(os.path.join(d, "model.safetensors"))
    header["__metadata__"] = dict(header.get("__metadata__") or {}, pad="x" * size)
    write_safetensors(os.path.join(d, "model.safetensors"), header, data)
    return d


def timed(name, args):
    """Wall and CPU seconds (user + system, what a shared machine's load does not inflate much), the peak RSS
    of all children so far (ru_maxrss), the exit status and the start of stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    with tempfile.NamedTemporaryFile(mode="r") as rss:
        try:
            p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss.name] + args, capture_output=True,
                               timeout=900)
            code, err = p.returncode, p.stderr[:160].decode(errors="replace").strip()
        except subprocess.TimeoutExpired:
            code, err = "timeout", "(killed after 900 s)"
        words = rss.read().split()
        peak = int(words[-1]) / 1024.0 if words and words[-1].isdigit() else -1.0
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print("%-14s wall %7.2f s  cpu %7.2f s  peak %6.0f MB  exit %4s  %s" % (name, wall, cpu, peak, code, err),
          flush=True)


def main():
    fone = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin", "fone")
    with tempfile.TemporaryDirectory() as tmp:
        timed("golden", [fone, "model", "inspect", folder(tmp, "golden")])
        timed("tensors-40000", [fone, "model", "inspect", many_tensors(tmp, 40000)])
        timed("index-300000", [fone, "model", "inspect", big_index(tmp, 300000)])
        timed("added-100000", [fone, "model", "inspect", added_tokens(tmp, 100000)])
        timed("deep-config", [fone, "model", "inspect", deep_config(tmp)])
        timed("deep-run", [fone, "runs", "show", "deep", "--runs-dir", deep_run(tmp)])
        timed("header-95MB", [fone, "model", "inspect", big_header(tmp, 95000000)])


if __name__ == "__main__":
    main()
