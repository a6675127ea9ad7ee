#!/usr/bin/env python3
"""FoNE against digit-wise and subword numbers in a language model on the built-in word problems, at
equal model size and equal training time (docs/text.md, "The comparison").

Every method trains the same transformer with the same optimiser, learning rate schedule and seed on
`fone train --task word-problems --threads 1`, one pass over fresh generated problems. Training time is
made equal in CPU seconds (the machine is shared, so wall time would measure the neighbours): two short
calibration runs per method give its CPU seconds per optimiser step, and each method then gets as many
steps (batches of 64 problems) as fit the budget. The test split (the same 500 unseen problems for
every method, drawn first from the seed) is scored at the end:

  number exact match   answers whose numbers are exactly the reference's, generated greedily from
                       the prompt (the answer's text is free: "She pays $417.24." and "$417.24" agree)
  answer exact match   the whole generated answer equal to the reference
  text perplexity      exp(mean cross-entropy) over the tokens that are not number tokens: the same
                       text tokens in every scheme
  tokens per example   prompt and answer tokens

  bench/text_compare.py [--fone build/bin/fone] [--out build/text-compare] [--cpu-seconds 600]
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time

MODEL = ["--hidden", "128", "--layers", "2", "--heads", "4", "--kv-heads", "2", "--head-dim", "32",
         "--intermediate", "512"]


def run(cmd, check=True):
    """Runs a command; returns (stdout, CPU seconds of the child, wall seconds)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    if check and p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
    return p.stdout, cpu, wall


def events(stdout):
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fone", default=os.path.join(root, "build", "bin", "fone"))
    ap.add_argument("--out", default=os.path.join(root, "build", "text-compare"))
    ap.add_argument("--cpu-seconds", type=float, default=600.0, help="training budget per method")
    ap.add_argument("--methods", default="fone,digit,subword")
    ap.add_argument("--test-size", type=int, default=500)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--show", type=int, default=3, help="right and wrong answers shown per method, each "
                    "generated again with `fone generate`")
    ap.add_argument("--report-only", action="store_true", help="no training: the report of the runs in --out")
    a = ap.parse_args()
    runs = os.path.join(a.out, "runs")
    results_path = os.path.join(a.out, "results.json")
    if a.report_only:
        with open(results_path) as f:
            results = json.load(f)
    else:
        if os.path.exists(a.out):
            shutil.rmtree(a.out)
        os.makedirs(runs)
        results = train_all(a, runs, results_path)
    report(a, results)


def train_all(a, runs, results_path):
    def train(method, name, train_size, test_size):
        cmd = [a.fone, "train", "--task", "word-problems", "--method", method, "--train-size", str(train_size),
               "--val-size", "0", "--test-size", str(test_size), "--epochs", "1", "--batch", str(a.batch),
               "--eval-every", "100000000", "--threads", "1", "--seed", str(a.seed), "--runs-dir", runs,
               "--name", name] + MODEL
        return run(cmd)

    results = []
    for method in a.methods.split(","):
        # Calibration: the difference of a 10-step and a 30-step run is the cost of 20 steps (data, the
        # tokenizer and the final evaluation cost the same in both).
        _, c1, _ = train(method, f"calibrate-{method}-10", 10 * a.batch, 20)
        _, c2, _ = train(method, f"calibrate-{method}-30", 30 * a.batch, 20)
        per_step = max((c2 - c1) / 20, 1e-3)
        steps = max(10, int(a.cpu_seconds / per_step))
        print(f"{method}: {per_step:.3f} CPU s per step -> {steps} steps ({steps * a.batch} problems)",
              file=sys.stderr, flush=True)
        out, cpu, wall = train(method, f"wp-{method}", steps * a.batch, a.test_size)
        ev = events(out)
        start = next(e for e in ev if e["event"] == "start")
        final = [e for e in ev if e["event"] == "eval"][-1]
        results.append({"method": method, "run": os.path.join(runs, f"wp-{method}"), "cpu_per_step": per_step,
                        "steps": steps, "train_examples": steps * a.batch, "process_cpu_seconds": cpu,
                        "wall_seconds": wall, "train_seconds": ev[-1]["elapsed_seconds"],
                        "params": start["params"], "params_without_embedding": start["params_without_embedding"],
                        "vocab_size": start["text"]["vocab_size"], "eval": final})
        with open(results_path, "w") as f:  # after every method: an interrupted comparison keeps its runs
            json.dump(results, f, indent=1)
    return results


def template(prompt):
    """The generator's template of a word problem (core/src/text/text_data.cpp)."""
    if "bags of" in prompt:
        return "bags × kg"
    if "note." in prompt:
        return "change from a note"
    if "% off" in prompt:
        return "percent off"
    if " for " in prompt and "How much does one" in prompt:
        return "unit price"
    if "in total" in prompt:
        return "two purchases"
    return "total cost"


def report(a, results):
    # The test split is drawn first from the seed: `fone data` with the same seed and size gives it.
    data = os.path.join(a.out, "data")
    if not os.path.exists(data):
        run([a.fone, "data", "--task", "word-problems", "--train-size", "1", "--val-size", "0", "--test-size",
             str(a.test_size), "--seed", str(a.seed), "--out", data])
    with open(os.path.join(data, "test.jsonl")) as f:
        tests = [json.loads(line) for line in f]
    templates = sorted({template(t["prompt"]) for t in tests})
    for r in results:
        # Every wrong answer of the run's model on the test split; the others are right.
        out, _, _ = run([a.fone, "eval", "--run", r["run"], "--threads", "1", "--mispredictions", "1000000"])
        wrong = {m["prompt"]: m["predicted"] for m in events(out)[0]["mispredictions"]}
        r["by_template"] = {}
        for name in templates:
            of = [t for t in tests if template(t["prompt"]) == name]
            r["by_template"][name] = [sum(t["prompt"] not in wrong for t in of), len(of)]
        shown = [t for t in tests if t["prompt"] not in wrong][: a.show] + \
                [t for t in tests if t["prompt"] in wrong][: a.show]
        r["generations"] = []
        for t in shown:
            out, _, _ = run([a.fone, "generate", "--run", r["run"], "--threads", "1", "--json", t["prompt"]])
            r["generations"].append({"prompt": t["prompt"], "reference": t["answer"],
                                     "generated": events(out)[-1]["text"]})
    with open(os.path.join(a.out, "report.json"), "w") as f:
        json.dump(results, f, indent=1)

    lines = ["| method | params (w/o embedding) | training problems | CPU s (process) | number exact match | "
             "answer exact match | digit accuracy | numbers within 1% | median relative error | "
             "text-token perplexity | tokens / example | tokens / number |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        e = r["eval"]
        median = e.get("number_relative_error_median")
        lines.append(f"| {r['method']} | {r['params']:,} ({r['params_without_embedding']:,}) | "
                     f"{r['train_examples']:,} | {r['process_cpu_seconds']:.0f} | "
                     f"{100 * e['exact_match']:.1f}% | {100 * e['answer_exact_match']:.1f}% | "
                     f"{100 * e['digit_accuracy']:.1f}% | {100 * e['number_within_1_percent']:.1f}% | "
                     f"{'-' if median is None else f'{100 * median:.1f}%'} | {e['text_perplexity']:.4f} | "
                     f"{e['tokens_per_example']:.1f} | {e['tokens_per_number']:.2f} |")
    lines += ["", "| template | " + " | ".join(r["method"] for r in results) + " |",
              "|---|" + "---|" * len(results)]
    for name in templates:
        cells = [f"{r['by_template'][name][0]} / {r['by_template'][name][1]}" for r in results]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    for r in results:
        lines.append(f"\n{r['method']} (`fone generate --run {os.path.basename(r['run'])} PROMPT`):\n")
        for g in r["generations"]:
            mark = "right" if g["generated"] == g["reference"] else f"wrong: the answer is `{g['reference']}`"
            lines.append(f"- {g['prompt']} → `{g['generated']}` ({mark})")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
