#!/usr/bin/env python3
"""Plots test exact match against wall time and against epoch for runs of the store (for docs/).

    pip install matplotlib
    scripts/plot_curves.py OUT.png RUN_DIR[=LABEL] ...
"""
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def evals(run_dir):
    rows = []
    for line in Path(run_dir, "metrics.jsonl").read_text().splitlines():
        try:
            e = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short by a crash
        if e.get("event") == "eval":
            rows.append(e)
    return rows


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out = sys.argv[1]
    fig, (ax_t, ax_e) = plt.subplots(1, 2, figsize=(11, 4.2))
    for spec in sys.argv[2:]:
        run_dir, _, label = spec.partition("=")
        rows = evals(run_dir)
        label = label or Path(run_dir).name
        acc = [100 * r["exact_match"] for r in rows]
        ax_t.plot([r["elapsed_seconds"] for r in rows], acc, marker=".", label=label)
        ax_e.plot([r["epoch"] for r in rows], acc, marker=".", label=label)
    for ax, xlabel in ((ax_t, "wall time of the run (s)"), (ax_e, "epoch")):
        ax.axhline(99, color="grey", lw=0.8, ls="--")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("test exact match (%)")
        ax.set_ylim(0, 100.5)
        ax.grid(alpha=0.3)
    ax_e.legend(fontsize=8, loc="lower right")
    fig.suptitle("FoNE on 6-digit decimal addition (2,000 test problems), `fone train` defaults")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(out)


if __name__ == "__main__":
    main()
