#!/usr/bin/env python3
"""FoNE against digit-wise and subword numbers in a language model on the built-in word problems, at
equal model size and equal training time (docs/text.md, "The comparison").

Every method trains the same transformer with the same optimiser, learning rate schedule, loss and seed on
`fone train --task word-problems --threads 1`: the text defaults (core/src/store/train_config.cpp; --common
sets others for every method), one pass over fresh generated problems (three in four of them drills,
the word-problems default). Training time is made equal in CPU seconds (the machine is shared, so wall
time would measure the neighbours): every run trains with `fone train --cpu-seconds BUDGET` (issue 41),
which ends it at the step that spends the budget and runs its learning-rate schedule over it, on a train
split of --train-size fresh problems (passed over again, up to --max-epochs, if the budget outlasts them).
With --calibrate (or --per-step) it does as before issue 41: two short calibration runs per method give its
CPU seconds per optimiser step, and each method then gets as many steps (batches of 64 problems) as fit the
budget. The test split (the same 500 unseen problems for
every method, drawn first from the seed) is scored at the end:

  number exact match   answers whose numbers are exactly the reference's, generated greedily from
                       the prompt (the answer's text is free: "She pays $417.24." and "$417.24" agree)
  answer exact match   the whole generated answer equal to the reference
  text perplexity      exp(mean cross-entropy) over the tokens that are not number tokens: the same
                       text tokens in every scheme
  tokens per example   prompt and answer tokens

The additive templates (two prices, money left, combined weight: one addition or subtraction of the
prompt's numbers, the arithmetic FoNE learns best) are reported apart from the others, with each method's
digit accuracy by digit position on them (where its numbers go wrong).

  bench/text_compare.py [--fone build/bin/fone] [--out build/text-compare] [--cpu-seconds 300]
                        [--seeds 42,43,44] [--jobs 3] [--extra "--digit-loss-weight 2"] [--common "..."]
                        [--train-size 240000] [--max-epochs 5] [--calibrate]

  bench/text_compare.py --positions RUN PROBLEMS.jsonl   # one run's answers to other problems, by digit

--jobs trains that many runs at once: a run's CPU seconds are its own process's (wait4), so the budget
stays per run. --extra adds fone train options to the fone runs only (to measure a setting).
"""
import argparse
import concurrent.futures
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

ADDITIVE = ["two prices", "money left", "combined weight"]


def run(cmd, check=True):
    """Runs a command; returns (stdout, CPU seconds of this child alone, wall seconds)."""
    t0 = time.time()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.time() - t0
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if check and p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{stderr}")
    return stdout, usage.ru_utime + usage.ru_stime, wall


def events(stdout):
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fone", default=os.path.join(root, "build", "bin", "fone"))
    ap.add_argument("--out", default=os.path.join(root, "build", "text-compare"))
    ap.add_argument("--recipe", default=os.path.join(root, "experiments", "recipes", "text-compare.json"),
                    help="the comparison's experiment file: its preset's cells give the methods, seeds, test "
                    "size and batch, its measure.cpu_seconds the budget (each option below overrides)")
    ap.add_argument("--preset", default="one-seed", help="the recipe's preset (one-seed, three-seeds)")
    ap.add_argument("--cpu-seconds", type=float, help="training budget per run (recipe: 300)")
    ap.add_argument("--methods", help="comma-separated (recipe: fone,digit,subword)")
    ap.add_argument("--seeds", help="comma-separated: one run per method and seed (recipe: 42)")
    ap.add_argument("--jobs", type=int, default=1, help="trainings at once")
    ap.add_argument("--per-step", default="", help="CPU s per step of each method from an earlier "
                    "calibration (fone=0.219,digit=0.253,...): steps from them, no calibration runs")
    ap.add_argument("--calibrate", action="store_true", help="equal CPU by calibrated step counts (the way "
                    "before fone train had --cpu-seconds)")
    ap.add_argument("--train-size", type=int, default=240000, help="problems a budgeted run's train split "
                    "holds (one pass is about the digit-wise run's 300 CPU s)")
    ap.add_argument("--max-epochs", type=int, default=5, help="passes over them at most (budgeted runs)")
    ap.add_argument("--extra", default="", help="more fone train options for the fone runs")
    ap.add_argument("--common", default="", help="fone train options for every run (the model and loss are "
                    "the text defaults otherwise), e.g. \"--hidden 128 --layers 2 --heads 4 --kv-heads 2 "
                    "--head-dim 32 --intermediate 512 --text-loss all\" for the earlier comparisons")
    ap.add_argument("--test-size", type=int, help="(recipe: 500)")
    ap.add_argument("--batch", type=int, help="(recipe: 64)")
    ap.add_argument("--show", type=int, default=3, help="right and wrong answers shown per method (first "
                    "seed), each generated again with `fone generate`")
    ap.add_argument("--report-only", action="store_true", help="no training: the report of the runs in --out")
    ap.add_argument("--positions", nargs=2, metavar=("RUN", "JSONL"), help="no training: RUN's answers to the "
                    "problems of JSONL, exact and by digit position (the diagnostics in docs/text.md)")
    a = ap.parse_args()
    fill_from_recipe(a)
    if a.positions:
        print(positions_line(a, *a.positions))
        return
    a.seed_list = [int(x) for x in a.seeds.split(",")]
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


def fill_from_recipe(a):
    """The options not given, from the recipe: its cells as `fone reproduce --dry-run` resolves them (so the
    experiment format has one reader, fone's) and its "measure" object."""
    with open(a.recipe) as f:
        measure = json.load(f).get("measure", {})
    out = subprocess.run([a.fone, "reproduce", a.recipe, "--preset", a.preset, "--dry-run"], text=True,
                         capture_output=True)
    if out.returncode != 0:
        sys.exit(f"{a.recipe}: {out.stderr.strip()}")
    cells = [line["settings"] for line in events(out.stdout)]
    def first_seen(key):
        return ",".join(dict.fromkeys(str(c[key]) for c in cells))
    if a.methods is None:
        a.methods = first_seen("method")
    if a.seeds is None:
        a.seeds = first_seen("seed")
    if a.test_size is None:
        a.test_size = int(cells[0]["test_size"])
    if a.batch is None:
        a.batch = int(cells[0]["batch"])
    if a.cpu_seconds is None:
        a.cpu_seconds = float(measure["cpu_seconds"])
    a.calibration_steps = measure.get("calibration_steps", [10, 30])


def train_all(a, runs, results_path):
    budgeted = not (a.calibrate or a.per_step)

    def train(method, name, train_size, test_size, seed, budget=0.0):
        epochs = a.max_epochs if budget > 0 else 1
        cmd = [a.fone, "train", "--task", "word-problems", "--method", method, "--train-size", str(train_size),
               "--val-size", "0", "--test-size", str(test_size), "--epochs", str(epochs), "--batch", str(a.batch),
               "--eval-every", "100000000", "--checkpoint-every", "100000000", "--threads", "1", "--seed",
               str(seed), "--runs-dir", runs, "--name", name]
        if budget > 0:
            cmd += ["--cpu-seconds", str(budget)]
        cmd += shlex.split(a.common) + (shlex.split(a.extra) if method == "fone" else [])
        return run(cmd)

    def calibrate(method):
        known = dict(kv.split("=") for kv in a.per_step.split(",") if kv)
        if method in known:
            per_step = float(known[method])
            return per_step, max(10, int(a.cpu_seconds / per_step))
        # The difference of a 10-step and a 30-step run is the cost of 20 steps (data, the tokenizer and
        # the final evaluation cost the same in both).
        lo, hi = a.calibration_steps
        _, c1, _ = train(method, f"calibrate-{method}-{lo}", lo * a.batch, 20, a.seed_list[0])
        _, c2, _ = train(method, f"calibrate-{method}-{hi}", hi * a.batch, 20, a.seed_list[0])
        per_step = max((c2 - c1) / (hi - lo), 1e-3)
        steps = max(10, int(a.cpu_seconds / per_step))
        print(f"{method}: {per_step:.3f} CPU s per step -> {steps} steps ({steps * a.batch} problems)",
              file=sys.stderr, flush=True)
        return per_step, steps

    def one(method, seed, per_step, steps):
        name = f"wp-{method}-s{seed}"
        if budgeted:
            out, cpu, wall = train(method, name, a.train_size, a.test_size, seed, a.cpu_seconds)
        else:
            out, cpu, wall = train(method, name, steps * a.batch, a.test_size, seed)
        ev = events(out)
        start = next(e for e in ev if e["event"] == "start")
        final = [e for e in ev if e["event"] == "eval"][-1]
        if budgeted:  # the steps the budget bought, and their CPU seconds as the run counted them
            end = next(e for e in ev if e["event"] == "end")
            steps = end["step"]
            with open(os.path.join(runs, name, "summary.json")) as f:
                per_step = json.load(f)["train_cpu_seconds"] / max(steps, 1)
        print(f"{name}: {cpu:.0f} CPU s, exact {final['exact_match']:.3f}", file=sys.stderr, flush=True)
        return {"method": method, "seed": seed, "run": os.path.join(runs, name), "cpu_per_step": per_step,
                "steps": steps, "train_examples": steps * a.batch, "process_cpu_seconds": cpu,
                "wall_seconds": wall, "train_seconds": ev[-1]["elapsed_seconds"], "params": start["params"],
                "params_without_embedding": start["params_without_embedding"],
                "vocab_size": start["text"]["vocab_size"], "extra": a.extra if method == "fone" else "",
                "common": a.common, "text_loss": start["text"]["text_loss"],
                "eval": final}

    methods = a.methods.split(",")
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        calibrated = {m: (0.0, 0) for m in methods} if budgeted else dict(zip(methods, pool.map(calibrate, methods)))
        jobs = [pool.submit(one, m, seed, *calibrated[m]) for seed in a.seed_list for m in methods]
        results = []
        for job in jobs:  # in order; saved after each, so an interrupted comparison keeps its runs
            results.append(job.result())
            with open(results_path, "w") as f:
                json.dump(results, f, indent=1)
    return results


def template(prompt):
    """The generator's template of a word problem (core/src/text/text_data.cpp)."""
    if "spend?" in prompt:
        return "two prices"
    if "is left?" in prompt:
        return "money left"
    if "weigh together?" in prompt:
        return "combined weight"
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


def first_number(text):
    """The first number of an answer as a string of digits around its point ("$1,017.60" -> "1017.60")."""
    num = ""
    for c in text:
        if c.isdigit() or (c == "." and num and "." not in num):
            num += c
        elif num:
            break
    return num.rstrip(".")


def digit_positions(expected, predicted):
    """Per decimal position (2 = hundreds ... -2 = hundredths): 1 when the digits agree."""
    def digits(x):
        whole, _, frac = (x or "").partition(".")
        out = {p: int(d) for p, d in enumerate(reversed(whole))}
        out.update({-1 - p: int(d) for p, d in enumerate(frac)})
        return out
    e, g = digits(first_number(expected)), digits(first_number(predicted))
    return {p: int(e.get(p, 0) == g.get(p, 0)) for p in range(-2, 3)}


def test_split(a, seed):
    # The test split is drawn first from the seed: `fone data` with the same seed and size gives it.
    data = os.path.join(a.out, f"data-s{seed}")
    if not os.path.exists(data):
        run([a.fone, "data", "--task", "word-problems", "--train-size", "1", "--val-size", "0", "--test-size",
             str(a.test_size), "--seed", str(seed), "--out", data])
    with open(os.path.join(data, "test.jsonl")) as f:
        return [json.loads(line) for line in f]


def score_run(a, r):
    """Right answers per template, digit accuracy by position on the additive ones, sample generations."""
    tests = test_split(a, r["seed"])
    out, _, _ = run([a.fone, "eval", "--run", r["run"], "--threads", "1", "--mispredictions", "1000000"])
    wrong = {m["prompt"]: m["predicted"] for m in events(out)[0]["mispredictions"]}
    r["by_template"], r["additive_positions"] = {}, {str(p): [0, 0] for p in range(-2, 3)}
    for t in tests:
        name = template(t["prompt"])
        right, n = r["by_template"].get(name, [0, 0])
        r["by_template"][name] = [right + (t["prompt"] not in wrong), n + 1]
        if name in ADDITIVE:
            for p, ok in digit_positions(t["answer"], wrong.get(t["prompt"], t["answer"])).items():
                r["additive_positions"][str(p)][0] += ok
                r["additive_positions"][str(p)][1] += 1
    r["generations"] = []
    if r["seed"] != a.seed_list[0]:
        return
    shown = [t for t in tests if t["prompt"] not in wrong][: a.show] + \
            [t for t in tests if t["prompt"] in wrong][: a.show]
    for t in shown:
        out, _, _ = run([a.fone, "generate", "--run", r["run"], "--threads", "1", "--json", t["prompt"]])
        r["generations"].append({"prompt": t["prompt"], "reference": t["answer"],
                                 "generated": events(out)[-1]["text"]})


def positions_line(a, run_dir, data):
    """One line: the run's exact answers on data's problems, and their answers' digits right by position."""
    with open(data) as f:
        tests = [json.loads(line) for line in f if line.strip()]
    out, _, _ = run([a.fone, "eval", "--run", run_dir, "--data", data, "--threads", "1", "--mispredictions",
                     "1000000"])
    wrong = {m["prompt"]: m["predicted"] for m in events(out)[0]["mispredictions"]}
    right = {p: 0 for p in range(-2, 3)}
    for t in tests:
        for p, ok in digit_positions(t["answer"], wrong.get(t["prompt"], t["answer"])).items():
            right[p] += ok
    names = {2: "hundreds", 1: "tens", 0: "units", -1: "tenths", -2: "hundredths"}
    n = len(tests)
    return f"{os.path.basename(run_dir)}: exact {n - len(wrong)} / {n}, " + \
        ", ".join(f"{names[p]} {100 * right[p] / n:.1f}%" for p in (2, 1, 0, -1, -2))


def mean_range(values, fmt):
    values = list(values)
    m = sum(values) / len(values)
    return fmt(m) if len(values) == 1 else f"{fmt(m)} ({fmt(min(values))}–{fmt(max(values))})"


def report(a, results):
    for r in results:
        if "by_template" not in r:
            score_run(a, r)
    with open(os.path.join(a.out, "report.json"), "w") as f:
        json.dump(results, f, indent=1)
    methods = list(dict.fromkeys(r["method"] for r in results))
    of = {m: [r for r in results if r["method"] == m] for m in methods}
    pct = lambda x: f"{100 * x:.1f}%"
    seeds = ", ".join(str(r["seed"]) for r in of[methods[0]])
    lines = [f"Seeds {seeds}: mean over seeds (lowest–highest).", "",
             "| method | params (w/o embedding) | steps × 64 problems | CPU s per run (process) | "
             "number exact match | answers with the right words | digit accuracy | numbers within 1% | "
             "text-token perplexity | tokens / example |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for m in methods:
        rs, r0 = of[m], of[m][0]
        ev = lambda key: (r["eval"].get(key, 0.0) for r in rs)
        lines.append(f"| {m}{' ' + r0['extra'] if r0.get('extra') else ''} | {r0['params']:,} "
                     f"({r0['params_without_embedding']:,}) | {r0['steps']:,} | "
                     f"{mean_range((r['process_cpu_seconds'] for r in rs), lambda x: f'{x:.0f}')} | "
                     f"{mean_range(ev('exact_match'), pct)} | {mean_range(ev('answer_words_match'), pct)} | "
                     f"{mean_range(ev('digit_accuracy'), pct)} | {mean_range(ev('number_within_1_percent'), pct)} | "
                     f"{mean_range(ev('text_perplexity'), lambda x: f'{x:.4f}')} | "
                     f"{r0['eval']['tokens_per_example']:.1f} |")
    templates = sorted({t for r in results for t in r["by_template"]}, key=lambda t: (t not in ADDITIVE, t))
    lines += ["", "Answers right / test problems of that template, summed over the seeds (per seed in brackets):",
              "", "| template | " + " | ".join(methods) + " |", "|---|" + "---|" * len(methods)]
    for name in templates:
        cells = []
        for m in methods:
            per = [r["by_template"].get(name, [0, 0]) for r in of[m]]
            right, n = sum(p[0] for p in per), sum(p[1] for p in per)
            cells.append(f"{right} / {n} = {pct(right / n) if n else '-'} ({', '.join(str(p[0]) for p in per)})")
        lines.append(f"| {name}{' (additive)' if name in ADDITIVE else ''} | " + " | ".join(cells) + " |")
    lines += ["", "Additive templates, the answer's digits right by position (all seeds):", "",
              "| method | hundreds | tens | units | tenths | hundredths |", "|---|---|---|---|---|---|"]
    for m in methods:
        cells = []
        for p in ("2", "1", "0", "-1", "-2"):
            right = sum(r["additive_positions"][p][0] for r in of[m])
            n = sum(r["additive_positions"][p][1] for r in of[m])
            cells.append(pct(right / n) if n else "-")
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    for m in methods:
        r = of[m][0]
        lines.append(f"\n{m} (`fone generate --run {os.path.basename(r['run'])} PROMPT`):\n")
        for g in r["generations"]:
            mark = "right" if g["generated"] == g["reference"] else f"wrong: the answer is `{g['reference']}`"
            lines.append(f"- {g['prompt']} → `{g['generated']}` ({mark})")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
