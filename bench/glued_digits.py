#!/usr/bin/env python3
"""Digits glued to letters in real text: which reading is right, counted (docs/number-parsing.md, "Digits
glued to letters"; issue 41).

Every word (a run of ASCII letters, digits and '_') that holds both a digit and a letter or '_' is a glued
form: "CO2", "19th", "x86_64", "3x4". Scientific numbers ("6.022e23", "1e-9") are numbers in any reading and
are left out first; an exponent glued to a word ("5e10ab3") is a glued form like any other. Each form is
put in one of three classes by its shape:

  after a letter     a letter or '_' before the first digit ("CO2", "x86_64", "FY2016")
  letters after      digits, then letters only ("19th", "1990s", "10km", "9A")
  digits again       digits, letters, then digits again ("3x4", "1G8", "00B5")

and labelled by hand, by the first rule of LABELS (a TSV of regular expression, reading, why) that matches
the whole form: "number" when the glued digits state a value the text means (a count, an ordinal, a year,
a measurement: "19th", "1.92GW", "the1600s" with its space missing), "text" when they are part of a name or
a code (a formula, a party, a postcode, an aircraft prefix, an identifier). The readings compared:

  glued digits are numbers   the parser before issue 41: every digit run is a number
  the parser's rule now      "after a letter" and "digits again" stay text, "letters after" is a number and
                             its letters text (core/src/numbers/number_parser.cpp)

  bench/glued_digits.py [--labels bench/glued_digits_labels.tsv] [--fone build/bin/fone] NAME=PATH [...]

With --fone, "the parser's rule now" is what `fone parse` itself makes of each form (a number found inside
it: its digits are a number), and the script fails if that ever differs from rule_reading below.

PATH is a text file or a folder of *.jsonl (prompt and answer of each line are read): the Factbook as
`scripts/get-factbook.sh` writes it, units as `scripts/get-units.sh` writes it. Prints a markdown table per
corpus; exits 1 when a form has no label (they are listed).
"""
import argparse
import collections
import json
import os
import bisect
import re
import subprocess
import sys

SCIENTIFIC = re.compile(r"(?<![A-Za-z0-9_])\d*\.?\d+[eE][+-]?\d+(?![A-Za-z0-9_])")
WORD = re.compile(r"[A-Za-z0-9_]+")
CLASSES = ["after a letter", "letters after", "digits again"]


def read_corpus(path):
    if not os.path.isdir(path):
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    texts = []
    for name in sorted(os.listdir(path)):
        if name.endswith(".jsonl"):
            with open(os.path.join(path, name), encoding="utf-8") as f:
                for line in f:
                    if line.strip():
                        d = json.loads(line)
                        texts += [d.get("prompt", ""), d.get("answer", "")]
    return "\n".join(texts)


def glued_forms(text):
    forms = collections.Counter()
    for m in WORD.finditer(SCIENTIFIC.sub(" ", text)):
        w = m.group(0)
        if re.search(r"\d", w) and re.search(r"[A-Za-z_]", w):
            forms[w] += 1
    return forms


def shape(form):
    if re.match(r"[A-Za-z_]", form):
        return "after a letter"
    rest = re.match(r"\d+(.*)", form).group(1)
    return "digits again" if re.search(r"\d", rest) else "letters after"


def is_hexadecimal(form):
    if re.fullmatch(r"0[xX][0-9a-fA-F]+", form):
        return True
    return len(form) >= 7 and (re.fullmatch(r"[0-9a-f]+", form) or re.fullmatch(r"[0-9A-F]+", form)) and \
        re.search(r"\d", form) and re.search(r"[A-Za-z]", form)


def rule_reading(form):
    """What the parser now makes of the form's digits."""
    if shape(form) == "letters after" and not is_hexadecimal(form):
        return "number"
    return "text"


def parser_readings(fone, forms):
    """What `fone parse` makes of each form, one form a line: "number" when it finds a number in it."""
    forms = list(forms)
    text = "".join(f + "\n" for f in forms)
    out = subprocess.run([fone, "parse"], input=text.encode(), capture_output=True, check=True).stdout
    starts, at = [], 0
    for f in forms:
        starts.append(at)
        at += len(f.encode()) + 1
    readings = {f: "text" for f in forms}
    for n in json.loads(out)["numbers"]:
        readings[forms[bisect.bisect_right(starts, n["byte_start"]) - 1]] = "number"
    return readings


def read_labels(path):
    rules = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            pattern, reading, why = line.rstrip("\n").split("\t")
            assert reading in ("number", "text"), line
            rules.append((re.compile(pattern), reading, why))
    return rules


def label(rules, form):
    for pattern, reading, why in rules:
        if pattern.fullmatch(form):
            return reading, why
    return None, None


def report(name, forms, scientific, rules, reading_now):
    rows, missing = [], []
    for cls in CLASSES:
        of = {f: n for f, n in forms.items() if shape(f) == cls}
        total = sum(of.values())
        number_right = rule_right = 0
        for f, n in of.items():
            reading, _ = label(rules, f)
            if reading is None:
                missing.append(f)
                continue
            number_right += n * (reading == "number")
            rule_right += n * (reading == reading_now[f])
        top = ", ".join(f"`{f}` {n}" for f, n in sorted(of.items(), key=lambda kv: -kv[1])[:6])
        pct = (lambda k: f"{100 * k / total:.1f}%" if total else "–")
        rows.append(f"| {cls} | {total} | {len(of)} | {pct(number_right)} | {pct(rule_right)} | {top} |")
    all_n = sum(forms.values())
    all_number = sum(n for f, n in forms.items() if label(rules, f)[0] == "number")
    all_rule = sum(n for f, n in forms.items() if label(rules, f)[0] == reading_now[f])
    pct = (lambda k: f"{100 * k / all_n:.1f}%" if all_n else "–")
    rows.append(f"| all | {all_n} | {len(forms)} | {pct(all_number)} | {pct(all_rule)} | |")
    in_words = sum(n for f, n in forms.items() if re.search(r"\d[eE][+-]?\d", f))
    print(f"\n{name}: glued forms, and how often each reading is right (occurrences; scientific numbers: "
          f"{scientific}, of which in a word: {in_words})\n")
    print("| class | occurrences | forms | glued digits are numbers | the parser's rule now | most frequent |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    return missing


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--labels", default=os.path.join(here, "glued_digits_labels.tsv"))
    ap.add_argument("--fone", help="the fone program: the parser's readings from `fone parse` itself")
    ap.add_argument("corpora", nargs="+", metavar="NAME=PATH")
    a = ap.parse_args()
    rules = read_labels(a.labels)
    missing = []
    for spec in a.corpora:
        name, _, path = spec.partition("=")
        text = read_corpus(path)
        forms = glued_forms(text)
        reading_now = {f: rule_reading(f) for f in forms}
        if a.fone:
            parsed = parser_readings(a.fone, forms)
            differ = sorted(f for f in forms if parsed[f] != reading_now[f])
            if differ:
                print(f"{name}: fone parse and rule_reading differ on: " + " ".join(differ), file=sys.stderr)
                sys.exit(1)
            reading_now = parsed
        missing += report(name, forms, len(SCIENTIFIC.findall(text)), rules, reading_now)
    if missing:
        print("\nforms without a label: " + " ".join(sorted(set(missing))), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
