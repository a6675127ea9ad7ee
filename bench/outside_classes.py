#!/usr/bin/env python3
"""Issue 33's classes tried again from outside the test suite: NEW files of each kind, made here in a
temporary folder (not the tests' own), and the built fone run on each. One line per class: the class, what
fone did (exit status, the first line it said, wall seconds, its peak memory). Standard library only.

    nice -n 10 python3 bench/outside_classes.py [build/bin/fone]

It trains one tiny run first (about 10-30 s on a shared 2-core machine); every case runs with a time limit.
"""
import json
import os
import signal
import shutil
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import outside_files as of  # noqa: E402  (the folder helpers: safetensors read/write, the tiny Llama)

ROOT = of.ROOT
DEEP = "[" * 100000 + "]" * 100000


def run(args, stdin=None, env=None, limit=120):
    """(exit status or 'timeout', first line of stderr (else stdout), wall s, peak RSS MB of this command
    alone, from GNU time's %M). A command past its limit is killed with its whole process group."""
    with tempfile.NamedTemporaryFile(mode="r") as rss:
        t0 = time.monotonic()
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss.name] + args,
                             stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                             env=dict(os.environ, **(env or {})))
        try:
            out, err = p.communicate(stdin, timeout=limit)
            code = p.returncode
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            code = "timeout"
        wall = time.monotonic() - t0
        words = rss.read().split()
        peak = int(words[-1]) / 1024.0 if words and words[-1].isdigit() else -1.0
        if isinstance(code, int) and code > 128 and words and "signal" in " ".join(words):
            code = "signal%d" % (code - 128)
    lines = [x for x in err.decode(errors="replace").splitlines() if not x.startswith("Command ")]
    text = lines or out.decode(errors="replace").strip().splitlines()
    return code, (text[0] if text else "")[:150], wall, peak


def line(name, result, extra=""):
    code, said, wall, peak = result
    print("%-30s exit %-8s %6.2f s %6.0f MB  %s%s" % (name, code, wall, peak, said, extra), flush=True)


def tiny_run(runs, name):
    args = [FONE, "train", "--task", "dec-add", "--train-size", "128", "--test-size", "16", "--val-size", "16",
            "--epochs", "2", "--batch", "32", "--hidden", "16", "--layers", "1", "--heads", "2", "--kv-heads",
            "1", "--intermediate", "32", "--head-dim", "8", "--threads", "1", "--seed", "5", "--name", name,
            "--runs-dir", runs]
    r = run(args, limit=600)
    if r[0] != 0:
        sys.exit("could not train the tiny run: %s" % (r,))
    return os.path.join(runs, name)


def copy_run(good, runs, name, status='{"status": "interrupted", "pid": 0}'):
    d = os.path.join(runs, name)
    shutil.copytree(good, d)
    for f in ("summary.json", "train.lock"):
        if os.path.exists(os.path.join(d, f)):
            os.remove(os.path.join(d, f))
    with open(os.path.join(d, "status.json"), "w") as f:
        f.write(status)
    return d


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def links(tmp, runs, good):
    for name in ("train.lock", "metrics.jsonl"):
        victim = os.path.join(tmp, "victim-" + name)
        write(victim, "precious\nlast line")
        d = copy_run(good, runs, "linked-" + name.split(".")[0])
        os.remove(os.path.join(d, name)) if os.path.exists(os.path.join(d, name)) else None
        os.symlink(victim, os.path.join(d, name))
        r = run([FONE, "train", "--resume", d, "--threads", "1"])
        kept = open(victim).read() == "precious\nlast line"
        line("symlinked " + name, r, "  [target %s]" % ("untouched" if kept else "CHANGED"))


def deep_json(runs, good):
    d = copy_run(good, runs, "deep-config", '{"status": "finished"}')
    write(os.path.join(d, "config.json"), '{"task": "dec-add", "x": ' + DEEP + "}")
    line("deep JSON (run config.json)", run([FONE, "runs", "show", d]))
    d = copy_run(good, runs, "deep-metrics")
    write(os.path.join(d, "metrics.jsonl"), '{"step": 1}\n{"x": ' + DEEP + "}\n")
    line("deep JSON (metrics line)", run([FONE, "runs", "export", d]))


def model_folders(tmp):
    d = of.folder(tmp, "fifo-config")
    os.remove(os.path.join(d, "config.json"))
    os.mkfifo(os.path.join(d, "config.json"))
    line("FIFO config.json", run([FONE, "model", "inspect", d], limit=20))
    d = of.folder(tmp, "deep-tokenizer")
    write(os.path.join(d, "tokenizer.json"), '{"normalizer": ' + DEEP + "}")
    line("deep JSON (tokenizer.json)", run([FONE, "model", "inspect", d]))
    line("duplicate shard tensors", run([FONE, "model", "inspect", duplicate_shards(tmp)]))
    line("NaN pretrained weight", run([FONE, "model", "forward", nan_folder(tmp), "--token-ids", "1,2,3"]))
    d = of.folder(tmp, "long-context")
    config = json.load(open(os.path.join(d, "config.json")))
    config["max_position_embeddings"] = 1000000
    json.dump(config, open(os.path.join(d, "config.json"), "w"))
    r = run([FONE, "model", "forward", d, "--token-ids", ",".join(["1"] * 50000)], limit=300)
    line("model forward, 50,000 tokens", r)


def duplicate_shards(tmp):
    """Two shards of the tiny Llama's tensors with one tensor in both (different values) and an index."""
    d = of.folder(tmp, "duplicate-shards")
    header, data = of.read_safetensors(os.path.join(d, "model.safetensors"))
    header.pop("__metadata__", None)
    names = sorted(header)
    os.remove(os.path.join(d, "model.safetensors"))
    weight_map = {}
    for k, part in enumerate((names[: len(names) // 2 + 1], names[len(names) // 2:])):
        h, blob = {}, b""
        for n in part:
            a, b = header[n]["data_offsets"]
            piece = data[a:b] if k == 0 else bytes(b - a)
            h[n] = {"dtype": header[n]["dtype"], "shape": header[n]["shape"],
                    "data_offsets": [len(blob), len(blob) + len(piece)]}
            blob += piece
        f = "model-%05d-of-00002.safetensors" % (k + 1)
        of.write_safetensors(os.path.join(d, f), h, blob)
        for n in part:
            weight_map[n] = f
    json.dump({"metadata": {}, "weight_map": weight_map}, open(os.path.join(d, "model.safetensors.index.json"), "w"))
    return d


def nan_folder(tmp):
    d = of.folder(tmp, "nan-weight")
    path = os.path.join(d, "model.safetensors")
    header, data = of.read_safetensors(path)
    a, _ = header["model.layers.1.mlp.up_proj.weight"]["data_offsets"]
    data = data[: a + 8] + struct.pack("<f", float("nan")) + data[a + 12:]
    of.write_safetensors(path, header, data)
    return d


def nan_checkpoint(runs, good):
    d = copy_run(good, runs, "nan-checkpoint", '{"status": "finished"}')
    path = os.path.join(d, "checkpoint-best.safetensors")
    header, data = of.read_safetensors(path)
    name = next(n for n, t in sorted(header.items()) if n != "__metadata__" and t["dtype"] == "F32"
                and not n.startswith("optim"))
    a, _ = header[name]["data_offsets"]
    data = data[:a] + struct.pack("<f", float("inf")) + data[a + 4:]
    of.write_safetensors(path, header, data)
    line("NaN/Inf checkpoint weight", run([FONE, "eval", "--run", d, "--threads", "1"]))


def serve(good):
    long_line = b'{"prompt": "' + b"1" * (10 * 1024 * 1024) + b'+1=", "digit": 3}\n'
    ok = b'{"prompt": "1.5+2.25=", "digit": 3, "id": 9}\n'
    r = run([FONE, "analyse", "patch", "--run", good, "--serve", "--threads", "1"], stdin=long_line + ok)
    line("10 MB --serve line", r)
    deep = ("[" * 30000 + "]" * 30000 + "\n").encode()
    p = subprocess.run([FONE, "analyse", "patch", "--run", good, "--serve", "--threads", "1"],
                       input=deep + ok, capture_output=True, timeout=120)
    answers = [json.loads(x) for x in p.stdout.decode().splitlines() if x.strip()]
    said = answers[1].get("error", "")[:90] if len(answers) > 1 else p.stderr.decode()[:90]
    print("%-30s exit %-8s answers %d, then id %s: %s" % ("deep --serve line", p.returncode, len(answers),
                                                             answers[-1].get("id") if answers else None, said))


def husks(tmp, good):
    runs = os.path.join(tmp, "husk-store")
    os.makedirs(os.path.join(runs, "husk"))
    shutil.copy(os.path.join(good, "config.json"), os.path.join(runs, "husk", "config.json.tmp-999999998"))
    r = run([FONE, "train", "--resume", "husk", "--runs-dir", runs, "--threads", "1"])
    kept = os.path.exists(os.path.join(runs, "husk", "config.json.tmp-999999998"))
    line("husk of an older build", r, "  [settings %s]" % ("kept" if kept else "DELETED"))
    for step in ("folder", "config", "lock", "published"):
        store = os.path.join(tmp, "kill-" + step)
        r = run([FONE, "train", "--task", "dec-add", "--train-size", "64", "--test-size", "8", "--name", "k",
                 "--runs-dir", store, "--threads", "1"], env={"FONE_INJECT_CREATE_KILL": step})
        seen = [json.loads(x)["status"] for x in subprocess.run(
            [FONE, "runs", "list", "--format", "json", "--runs-dir", store], capture_output=True).stdout.decode()
            .splitlines() if x.strip()]
        visible = sorted(os.listdir(store)) if os.path.isdir(store) else []
        print("%-30s exit %-8s runs listed %s, entries %s" % ("kill at creation: " + step, r[0], seen, visible))


def running_without_lock(runs, good):
    me = os.getpid()
    host = os.uname().nodename
    for name, status in (("live-pid-no-lock", {"status": "running", "pid": me, "host": host}),
                         ("other-host-no-lock", {"status": "running", "pid": 1, "host": "node-elsewhere"})):
        d = copy_run(good, runs, name, json.dumps(status))
        p = subprocess.run([FONE, "runs", "show", d], capture_output=True)
        first = p.stdout.decode().splitlines()[0] if p.stdout else "{}"
        print("%-30s exit %-8s status %s" % ("running, no lock: " + name.split("-no")[0], p.returncode,
                                             json.loads(first).get("status")))


def wide_snapshot(tmp, runs, good):
    d = copy_run(good, runs, "wide-snapshot", '{"status": "finished"}')
    snaps = os.path.join(d, "snapshots")
    files = sorted(os.listdir(snaps))
    header, _ = of.read_safetensors(os.path.join(snaps, files[-1]))
    meta = header["__metadata__"]
    n = len(meta["numbers"].split(","))
    dims = 5000
    for f in files:
        os.remove(os.path.join(snaps, f))
    layer = bytearray(os.urandom(n * dims * 2))
    layer[1::2] = bytes(b & 0xBF for b in layer[1::2])  # exponents below 16: finite halves in (-2, 2)
    h = {"layer.%d" % k: {"dtype": "F16", "shape": [n, dims], "data_offsets": [k * len(layer), (k + 1) * len(layer)]}
         for k in range(2)}
    h["__metadata__"] = meta
    of.write_safetensors(os.path.join(snaps, files[-1]), h, bytes(layer) * 2)
    size = os.path.getsize(os.path.join(snaps, files[-1])) / 1e6
    r = run([FONE, "analyse", "replay", "--run", d, "--out", os.path.join(tmp, "replay-out")], limit=600)
    line("replay, snapshot %dx%d (%.1f MB)" % (n, dims, size), r)


FONE = None


def main():
    global FONE
    FONE = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin", "fone"))
    with tempfile.TemporaryDirectory() as tmp:
        runs = os.path.join(tmp, "runs")
        good = tiny_run(runs, "good")
        links(tmp, runs, good)
        deep_json(runs, good)
        model_folders(tmp)
        nan_checkpoint(runs, good)
        serve(good)
        husks(tmp, good)
        running_without_lock(runs, good)
        wide_snapshot(tmp, runs, good)


if __name__ == "__main__":
    main()
