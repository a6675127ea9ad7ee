"""The offline GPU node's check (issue 39; docs/gpu.md): scripts/device-check.sh runs this with the node's
python3 (the one that holds torch). In one command, within a time budget:

  0. what the node has (GPU, driver, torch, nvcc, compilers, CPUs, memory);
  1. `fone` ready: the kit's (.device-kit/kit.tar.xz, scripts/device-kit.sh) against the node's torch, or,
     when it cannot start (or FONE_DEVICE_FORCE_BUILD=1), built from source there (scripts/device-build.sh);
  2. with a GPU: the GPU tests (test_cuda), the bf16 and fp32 matrix peaks through the node's torch, the
     paper's level-4 recipe on 720,000 examples (seconds per epoch, fp32 and bf16) and a GPT-2-small-shaped
     text model on the Factbook (training tokens/s, fp32 and bf16), each with the GPU's utilisation and the
     CPU time of the feeding process; without one: every stage's command rehearsed on the CPU at toy sizes
     (nothing measured), and exit 77;
  3. $OUT/report.md and $OUT/report.json: every figure, what failed with its log's end.

Settings (environment): OUT (the report's folder, default ./device-check-out), FONE_DEVICE_BUDGET_S (whole
seconds for everything, default 530), FONE_DEVICE_FORCE_BUILD=1, FONE_DEVICE_KIT (the kit archive),
FONE_DEVICE_WORK (scratch folder, default a new one in /tmp). Exit status: 0 every stage passed, 1 a stage
failed, 2 no fone could be made ready, 77 no GPU visible.
"""

import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
START = time.monotonic()
BUDGET = float(os.environ.get("FONE_DEVICE_BUDGET_S", "530"))
OUT = os.path.abspath(os.environ.get("OUT") or os.path.join(ROOT, "device-check-out"))
PAPER_EPOCH_SECONDS = 198  # the FoNE paper: 3'18" per epoch of the level-4 recipe on its GPU
LLMC_TOKENS_PER_SECOND = 460_000  # llm.c, GPT-2 124M on one H100 (shared/notes/field-2026.md)


def left():
    return BUDGET - (time.monotonic() - START)


def log(msg):
    print(f"==> [{time.monotonic() - START:5.0f}s] {msg}", file=sys.stderr, flush=True)


class Report:
    """Stages and figures, written to $OUT after every stage (a killed check still leaves its report)."""

    def __init__(self):
        self.data = {"started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "node": {},
                     "fone": {}, "stages": [], "figures": {}, "rehearsal": False, "exit": None}
        os.makedirs(OUT, exist_ok=True)

    def stage(self, name, status, seconds, note="", log_tail="", **figures):
        entry = {"stage": name, "status": status, "seconds": round(seconds, 1), "note": note}
        if log_tail:
            entry["log_tail"] = log_tail[-2500:]
        if figures:
            entry["figures"] = figures
            self.data["figures"][name] = figures
        self.data["stages"].append(entry)
        log(f"{name}: {status} ({seconds:.0f} s) {note}")
        self.write()

    def write(self):
        self.data["seconds"] = round(time.monotonic() - START, 1)
        with open(os.path.join(OUT, "report.json"), "w") as f:
            json.dump(self.data, f, indent=1)
        with open(os.path.join(OUT, "report.md"), "w") as f:
            f.write(markdown(self.data))


def markdown(d):
    n = d["node"]
    lines = [f"# scripts/device-check.sh, {d['started']}" + (" — rehearsal on the CPU (no GPU visible)" if d["rehearsal"] else ""),
             "", "## The node", ""]
    for k in ("gpu", "driver", "torch", "python", "nvcc", "cmake", "ninja", "cxx", "cpu", "cpus", "memory", "os", "glibc"):
        if k in n:
            lines.append(f"- {k}: {n[k]}")
    f = d.get("fone", {})
    if f:
        lines += ["", f"`fone`: {f.get('source', '?')} — {f.get('version', '')}"]
    lines += ["", "## Stages", "", "| stage | status | seconds | note |", "|---|---|---|---|"]
    for s in d["stages"]:
        lines.append(f"| {s['stage']} | {s['status']} | {s['seconds']} | {s['note']} |")
    fig = d["figures"]
    peak = fig.get("matmul peak", {})
    if peak:
        lines += ["", "## Matrix peak through the node's torch", "",
                  f"- bf16 {peak.get('n')}³: {peak.get('bf16_tflops', 0):.3g} TFLOP/s; "
                  f"fp32 (no TF32): {peak.get('fp32_tflops', 0):.3g} TFLOP/s"]
    for title, key, unit in (("The paper's level-4 recipe, 720,000 examples", "level-4", "epoch"),
                             ("GPT-2-small-shaped text model on the Factbook", "text-124m", "tokens")):
        rows = [(p, fig.get(f"{key} {p}")) for p in ("fp32", "bf16") if fig.get(f"{key} {p}")]
        if not rows:
            continue
        lines += ["", f"## {title}", ""]
        if unit == "epoch":
            lines += ["| precision | examples/s | seconds per epoch | paper (its GPU) | achieved TFLOP/s | of the measured peak | GPU busy | CPU s per s |",
                      "|---|---|---|---|---|---|---|---|"]
            for p, r in rows:
                lines.append(f"| {p} | {r['examples_per_second']:,.0f} | {r['seconds_per_epoch']:.1f} | {PAPER_EPOCH_SECONDS} | "
                             f"{r['tflops']:.2f} | {100 * r['fraction_of_peak']:.1f}% | {r['gpu_busy']} | {r['cpu_per_second']:.2f} |")
        else:
            lines += ["| precision | parameters | tokens/s | llm.c, one H100 | achieved TFLOP/s | of the measured peak | GPU busy | CPU s per s |",
                      "|---|---|---|---|---|---|---|---|"]
            for p, r in rows:
                lines.append(f"| {p} | {r['params']:,} | {r['tokens_per_second']:,.0f} | {LLMC_TOKENS_PER_SECOND:,} | "
                             f"{r['tflops']:.2f} | {100 * r['fraction_of_peak']:.1f}% | {r['gpu_busy']} | {r['cpu_per_second']:.2f} |")
    failed = [s for s in d["stages"] if s["status"] == "failed"]
    for s in failed:
        lines += ["", f"### {s['stage']}: the log's end", "", "```", s.get("log_tail", "").strip(), "```"]
    lines += ["", f"Exit status {d['exit']}; {d.get('seconds', 0)} s in all."]
    return "\n".join(lines) + "\n"


def run(cmd, timeout, env=None, cwd=None):
    """(exit code or None for a timeout, stdout + stderr)."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=cwd,
                           timeout=max(timeout, 1), text=True, errors="replace")
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return None, out
    except OSError as e:
        return 127, str(e)


def first_line(cmd):
    code, out = run(cmd, 20)
    return out.strip().splitlines()[0] if code == 0 and out.strip() else "not found"


# ---- 0. the node -------------------------------------------------------------------------------------------------
TORCH_PROBE = r"""
import json, os, torch, torch.utils
d = {"version": torch.__version__, "cuda": torch.version.cuda, "cmake_prefix": torch.utils.cmake_prefix_path,
     "lib": os.path.join(os.path.dirname(torch.__file__), "lib"), "gpus": 0}
try:
    d["gpus"] = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if d["gpus"]:
        p = torch.cuda.get_device_properties(0)
        d["gpu"] = f"{p.name}, {p.total_memory / 2**30:.0f} GiB, compute capability {p.major}.{p.minor}, {p.multi_processor_count} SMs"
except Exception as e:
    d["cuda_error"] = str(e)
print(json.dumps(d))
"""


def inventory(report):
    t0 = time.monotonic()
    n = report.data["node"]
    code, out = run([sys.executable, "-W", "ignore", "-c", TORCH_PROBE], 120)
    torch_info = json.loads(out.strip().splitlines()[-1]) if code == 0 else {}
    n["torch"] = f"{torch_info.get('version', 'not importable')} (CUDA {torch_info.get('cuda')})" if torch_info else f"not importable: {out[-300:]}"
    n["gpu"] = torch_info.get("gpu", "none visible")
    n["gpus"] = torch_info.get("gpus", 0)
    n["driver"] = first_line(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"])
    n["python"] = f"{sys.executable} {platform.python_version()}"
    n["nvcc"] = next((l for l in run(["nvcc", "--version"], 20)[1].splitlines() if "release" in l), "not found")
    n["cmake"] = first_line(["cmake", "--version"])
    n["ninja"] = first_line(["ninja", "--version"])
    n["cxx"] = first_line(["c++", "--version"])
    n["cpus"] = os.cpu_count()
    n["cpu"] = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    n["memory"] = next((l.split(":", 1)[1].strip() for l in open("/proc/meminfo") if l.startswith("MemTotal")), "?")
    n["os"] = next((l.split("=", 1)[1].strip().strip('"') for l in open("/etc/os-release") if l.startswith("PRETTY_NAME")), "?") if os.path.exists("/etc/os-release") else "?"
    n["glibc"] = platform.libc_ver()[1]
    n["load"] = open("/proc/loadavg").read().split()[:3]
    report.stage("node", "ok" if torch_info else "failed", time.monotonic() - t0, n["gpu"], "" if torch_info else out)
    return torch_info


# ---- 1. fone ready ------------------------------------------------------------------------------------------------
def nvidia_lib_dirs(torch_lib):
    site = os.path.dirname(os.path.dirname(torch_lib))
    base = os.path.join(site, "nvidia")
    dirs = []
    if os.path.isdir(base):
        for d in sorted(os.listdir(base)):
            lib = os.path.join(base, d, "lib")
            if os.path.isdir(lib):
                dirs.append(lib)
    return dirs


def program_env(torch_info, kit):
    env = dict(os.environ)
    paths = [os.path.join(kit, "lib"), torch_info.get("lib", "")] + nvidia_lib_dirs(torch_info.get("lib", ""))
    env["LD_LIBRARY_PATH"] = ":".join(p for p in paths + [env.get("LD_LIBRARY_PATH", "")] if p)
    env["PATH"] = os.path.dirname(sys.executable) + ":" + env.get("PATH", "")
    return env


def unpack_kit(report, work):
    t0 = time.monotonic()
    archive = os.environ.get("FONE_DEVICE_KIT") or os.path.join(ROOT, ".device-kit", "kit.tar.xz")
    kit = os.path.join(work, "kit")
    if not os.path.exists(archive):
        report.stage("kit", "failed", time.monotonic() - t0, f"no kit at {archive}: run scripts/device-kit.sh where PyPI is, and carry .device-kit")
        return None, {}
    with tarfile.open(archive) as t:
        t.extractall(kit, filter="tar") if sys.version_info >= (3, 12) else t.extractall(kit)
    manifest = json.load(open(os.path.join(kit, "MANIFEST.json")))
    report.stage("kit", "ok", time.monotonic() - t0,
                 f"{os.path.getsize(archive) / 2**20:.1f} MiB, built against torch {manifest.get('torch')} at {manifest.get('git_revision')}")
    return kit, manifest


def fone_starts(bin_dir, env):
    code, out = run([os.path.join(bin_dir, "fone"), "--version"], 120, env)
    code_t, out_t = run([os.path.join(bin_dir, "test_cuda"), "--list"], 120, env)
    ok = code == 0 and "LibTorch" in out and code_t == 0
    return ok, out.strip().splitlines()[-1] if out.strip() else "", out + out_t


def fone_ready(report, torch_info, kit, manifest, work):
    env = program_env(torch_info, kit)
    t0 = time.monotonic()
    forced = os.environ.get("FONE_DEVICE_FORCE_BUILD") == "1"
    if not forced:
        ok, version, out = fone_starts(os.path.join(kit, "bin"), env)
        if ok:
            report.data["fone"] = {"source": "carried (the kit's, built against torch " + manifest.get("torch", "?") + ")",
                                   "version": version}
            report.stage("fone: the kit's", "ok", time.monotonic() - t0, version)
            return os.path.join(kit, "bin"), env
        report.stage("fone: the kit's", "failed", time.monotonic() - t0, "cannot start here: building from source", out)
    else:
        report.stage("fone: the kit's", "skipped", 0, "FONE_DEVICE_FORCE_BUILD=1: building from source")
    t0 = time.monotonic()
    build = os.path.join(work, "build")
    code, out = run(["bash", os.path.join(ROOT, "scripts", "device-build.sh"), sys.executable, kit, build,
                     str(os.cpu_count() or 2)], max(left() - 60, 60), env)
    with open(os.path.join(OUT, "build.log"), "w") as f:
        f.write(out)
    if code != 0:
        report.stage("fone: built here", "failed", time.monotonic() - t0,
                     "timed out" if code is None else f"exit {code}", out)
        return None, env
    bin_dir = out.strip().splitlines()[-1]
    ok, version, out2 = fone_starts(bin_dir, env)
    report.data["fone"] = {"source": f"built here from source against the node's torch ({time.monotonic() - t0:.0f} s)",
                           "version": version}
    report.stage("fone: built here", "ok" if ok else "failed", time.monotonic() - t0, version, "" if ok else out2)
    return (bin_dir if ok else None), env


# ---- 2. measurements -------------------------------------------------------------------------------------------------
class Sampler:
    """nvidia-smi's GPU utilisation every 0.2 s while a measurement runs (the share of time a kernel ran)."""

    def __init__(self, enabled):
        self.values, self.proc, self.enabled = [], None, enabled and shutil.which("nvidia-smi")

    def __enter__(self):
        if self.enabled:
            self.proc = subprocess.Popen(["nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits",
                                          "-lms", "200"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            threading.Thread(target=self._read, daemon=True).start()
        return self

    def _read(self):
        for line in self.proc.stdout:
            if line.strip().isdigit():
                self.values.append(int(line.strip()))

    def __exit__(self, *a):
        if self.proc:
            self.proc.terminate()
            self.proc.wait()

    def busy(self):
        return f"{statistics.mean(self.values):.0f}%" if self.values else "not sampled"


def cpu_seconds(pid):
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def timed_training(fone, env, args, window_s, startup_s, gpu):
    """Runs `fone train ARGS`, lets it train `window_s` seconds after its first progress event (at most
    `startup_s` to get there), stops it with SIGTERM; returns (events, CPU seconds per second of the window,
    GPU busy, output tail)."""
    p = subprocess.Popen([fone, "train"] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                         text=True, errors="replace")
    events, lines, first = [], [], threading.Event()

    def reader():
        for line in p.stdout:
            lines.append(line)
            if line.startswith("{"):
                try:
                    e = json.loads(line)
                except ValueError:
                    continue
                events.append(e)
                if e.get("event") == "progress":
                    first.set()

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    deadline = time.monotonic() + startup_s
    while not first.is_set() and p.poll() is None and time.monotonic() < deadline:
        first.wait(0.2)
    started = first.is_set()
    cpu0, t0 = cpu_seconds(p.pid), time.monotonic()
    with Sampler(gpu) as s:
        if started:
            deadline = time.monotonic() + window_s
            while time.monotonic() < deadline and p.poll() is None:
                time.sleep(0.1)
    cpu_rate = (cpu_seconds(p.pid) - cpu0) / max(time.monotonic() - t0, 1e-9)
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(60)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    t.join(5)
    return events, cpu_rate, s.busy(), "".join(lines[-40:]), started


def steady_rate(events):
    """The median examples/s of the progress events after the first quarter of them (warm-up: allocator,
    autotuning, the first epoch's order)."""
    rates = [e["examples_per_second"] for e in events if e.get("event") == "progress" and e.get("examples_per_second")]
    rates = rates[len(rates) // 4:] if len(rates) >= 4 else rates
    return statistics.median(rates) if rates else 0.0


PEAK_PROBE = r"""
import json, sys, time, torch
device, n = sys.argv[1], int(sys.argv[2])
out = {"n": n}
torch.backends.cuda.matmul.allow_tf32 = False
for name, dtype in (("bf16", torch.bfloat16), ("fp32", torch.float32)):
    a = torch.randn(n, n, device=device, dtype=dtype); b = torch.randn(n, n, device=device, dtype=dtype)
    for _ in range(3): a @ b
    if device == "cuda": torch.cuda.synchronize()
    reps = 10 if device == "cuda" else 2
    t0 = time.perf_counter()
    for _ in range(reps): a @ b
    if device == "cuda": torch.cuda.synchronize()
    out[name + "_tflops"] = 2 * n ** 3 * reps / (time.perf_counter() - t0) / 1e12
print(json.dumps(out))
"""


def matmul_peak(report, device):
    t0 = time.monotonic()
    n = 8192 if device == "cuda" else 1024
    code, out = run([sys.executable, "-W", "ignore", "-c", PEAK_PROBE, device, str(n)], 120)
    if code != 0:
        report.stage("matmul peak", "failed", time.monotonic() - t0, "", out)
        return {}
    peak = json.loads(out.strip().splitlines()[-1])
    report.stage("matmul peak", "ok", time.monotonic() - t0,
                 f"bf16 {peak['bf16_tflops']:.3g}, fp32 {peak['fp32_tflops']:.3g} TFLOP/s ({device}, {n}³)", **peak)
    return peak


def gpu_tests(report, bin_dir, env):
    t0 = time.monotonic()
    code, out = run([os.path.join(bin_dir, "test_cuda")], min(240, left() - 200), env)
    with open(os.path.join(OUT, "test_cuda.log"), "w") as f:
        f.write(out)
    passed = len(re.findall(r"^PASS ", out, re.M))
    failed = re.findall(r"^FAIL (\S+)", out, re.M)
    status = "skipped" if code == 77 else ("ok" if code == 0 else "failed")
    note = ("no GPU visible (exit 77)" if code == 77 else "timed out" if code is None
            else f"{passed} passed" + (f", failed: {', '.join(failed)}" if failed else ""))
    curves = re.findall(r"loss curves: (.*)", out)
    if curves:
        note += f"; bf16 vs fp32 {curves[0]}"
    report.stage("GPU tests (test_cuda)", status, time.monotonic() - t0, note, out if status == "failed" else "",
                 passed=passed, failed=failed)
    return status


def level4(report, fone, env, work, device, precision, peak, window, rehearsal):
    name = f"level-4 {precision}"
    train_size = 5000 if rehearsal else 720000
    args = (["--batch", "32"] if rehearsal else []) + [
            "--preset", "paper", "--size-level", "4", "--task", "dec-add", "--train-size", str(train_size),
            "--test-size", "2000", "--val-size", "0", "--device", device, "--precision", precision,
            "--snapshots", "none", "--runs-dir", os.path.join(work, "runs"), "--name", f"l4-{precision}"]
    return measured(report, name, fone, env, args, window, peak, precision, device, rehearsal, train_size, text=False)


def text124m(report, fone, env, work, kit, device, precision, peak, window, rehearsal):
    name = f"text-124m {precision}"
    shape = (["--hidden", "64", "--layers", "1", "--heads", "2", "--kv-heads", "1", "--head-dim", "32",
              "--intermediate", "128", "--context", "64", "--batch", "2", "--vocab-size", "600", "--train-size", "5",
              "--test-size", "2"]
             if rehearsal else
             ["--hidden", "768", "--layers", "12", "--heads", "12", "--kv-heads", "12", "--head-dim", "64",
              "--intermediate", "3072", "--context", "1024", "--batch", "16", "--vocab-size", "8000"])
    args = ["--task", "text", "--data", os.path.join(kit, "data", "factbook"), "--method", "fone",
            "--epochs", "50", "--val-size", "0", "--text-loss", "all", "--device", device, "--precision", precision,
            "--snapshots", "none", "--runs-dir", os.path.join(work, "runs"), "--name", f"text-{precision}"] + shape
    return measured(report, name, fone, env, args, window, peak, precision, device, rehearsal, 0, text=True)


def measured(report, name, fone, env, args, window, peak, precision, device, rehearsal, train_size, text):
    t0 = time.monotonic()
    startup = 90 if rehearsal else 150
    if left() < window + 30:
        report.stage(name, "not run", 0, f"out of time ({left():.0f} s left)")
        return
    events, cpu_rate, busy, tail, started = timed_training(fone, env, args, window, min(startup, left() - window - 20),
                                                          device == "cuda")
    start = next((e for e in events if e.get("event") == "start"), {})
    rate = steady_rate(events)
    if not started or rate <= 0:
        report.stage(name, "failed", time.monotonic() - t0, "no training progress", tail)
        return
    flops = start.get("flops_per_example", 0) * rate
    peak_tflops = peak.get(f"{precision}_tflops", 0) or 1e-9
    fig = {"examples_per_second": rate, "tflops": flops / 1e12, "fraction_of_peak": flops / 1e12 / peak_tflops,
           "gpu_busy": busy, "cpu_per_second": cpu_rate, "params": start.get("params", 0),
           "sequence_length": start.get("sequence_length", 0),
           "startup_seconds": next((e.get("elapsed_seconds", 0) for e in events if e.get("event") == "progress"), 0)}
    if text:
        fig["tokens_per_second"] = rate * start.get("sequence_length", 0)
        note = f"{fig['tokens_per_second']:,.0f} tokens/s, {fig['params']:,} parameters"
    else:
        fig["seconds_per_epoch"] = train_size / rate
        note = f"{fig['seconds_per_epoch']:.1f} s per epoch of {train_size:,} ({rate:,.0f} examples/s)"
    note += f", {100 * fig['fraction_of_peak']:.1f}% of the {precision} peak, GPU busy {busy}"
    report.stage(name, "rehearsed" if rehearsal else "ok", time.monotonic() - t0, note, **fig)


def two_gpus(report, fone, env, work, gpus):
    """One run on 2 GPUs (`--nproc 2`, NCCL) beside the same run on one: both finish, their exact matches."""
    name = "2 GPUs (--nproc 2, NCCL)"
    if gpus < 2:
        report.stage(name, "not run", 0, f"{gpus} GPU(s) visible")
        return
    if left() < 150:
        report.stage(name, "not run", 0, f"out of time ({left():.0f} s left)")
        return
    t0 = time.monotonic()
    base = ["train", "--task", "dec-add", "--train-size", "51200", "--test-size", "2000", "--epochs", "4",
            "--device", "cuda", "--seed", "1", "--snapshots", "none", "--runs-dir", os.path.join(work, "runs-2gpu")]
    one_env = dict(env, CUDA_VISIBLE_DEVICES="0")
    c1, o1 = run([fone] + base + ["--name", "one-gpu"], (left() - 20) / 2, one_env)
    c2, o2 = run([fone] + base + ["--nproc", "2", "--name", "two-gpus"], left() - 20, env)
    ends = []
    for out in (o1, o2):
        ev = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
        end = next((e for e in reversed(ev) if e.get("event") == "end"), {})
        ends.append(end)
    ok = c1 == 0 and c2 == 0 and all(e.get("status") == "finished" for e in ends)
    report.stage(name, "ok" if ok else "failed", time.monotonic() - t0,
                 "exact match: 1 GPU " + str(ends[0].get("best_exact_match")) + ", 2 GPUs " + str(ends[1].get("best_exact_match")),
                 "" if ok else (o1[-1500:] + o2[-1500:]))


def efficiency(report, fone, env, work, gpu):
    """`fone reproduce efficiency --preset full` with the time that is left (it needs several minutes)."""
    name = "fone reproduce efficiency --preset full"
    if not gpu or left() < 240:
        report.stage(name, "not run", 0, "no GPU" if not gpu else f"out of time ({left():.0f} s left; run it in a call of its own)")
        return
    t0 = time.monotonic()
    out_dir = os.path.join(work, "efficiency-full")  # $OUT brings back 8 files: only the table goes there
    code, out = run([fone, "reproduce", "efficiency", "--preset", "full", "--runs-dir", os.path.join(work, "runs-eff"),
                     "--out", out_dir], left() - 20, env)
    status = "ok" if code == 0 else "failed"
    if code == 0 and os.path.exists(os.path.join(out_dir, "results.md")):
        shutil.copy(os.path.join(out_dir, "results.md"), os.path.join(OUT, "efficiency-full.md"))
    note = "timed out" if code is None else ("the table: efficiency-full.md" if code == 0 else f"exit {code}")
    report.stage(name, status, time.monotonic() - t0, note, out if status == "failed" else "")


# ---- main --------------------------------------------------------------------------------------------------------------
def main():
    report = Report()
    work = os.environ.get("FONE_DEVICE_WORK") or tempfile.mkdtemp(prefix="fone-device-")
    os.makedirs(work, exist_ok=True)
    code = 0
    try:
        torch_info = inventory(report)
        kit, manifest = unpack_kit(report, work)
        bin_dir, env = (fone_ready(report, torch_info, kit, manifest, work) if kit and torch_info else (None, None))
        if not bin_dir:
            code = 2
            return code
        gpu = torch_info.get("gpus", 0) > 0
        device = "cuda" if gpu else "cpu"
        report.data["rehearsal"] = not gpu
        fone = os.path.join(bin_dir, "fone")
        test_status = gpu_tests(report, bin_dir, env)
        peak = matmul_peak(report, device)
        windows = (8, 8) if not gpu else (30, 40)
        for p in ("fp32", "bf16"):
            level4(report, fone, env, work, device, p, peak, windows[0], not gpu)
        for p in ("fp32", "bf16"):
            text124m(report, fone, env, work, kit, device, p, peak, windows[1], not gpu)
        two_gpus(report, fone, env, work, torch_info.get("gpus", 0))
        efficiency(report, fone, env, work, gpu)
        failed = any(s["status"] == "failed" for s in report.data["stages"])
        code = 77 if not gpu else (1 if failed or test_status != "ok" else 0)
        return code
    finally:
        report.data["exit"] = code
        report.write()
        if not os.environ.get("FONE_DEVICE_WORK"):
            shutil.rmtree(work, ignore_errors=True)
        print(open(os.path.join(OUT, "report.md")).read())


if __name__ == "__main__":
    sys.exit(main())
