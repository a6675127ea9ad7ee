#!/usr/bin/env python3
"""Independent reference for core/src/text/corpus.cpp's Factbook rendering (issue 30).

Renders each sample country with Python's json (key order kept) and html.unescape, by the rules of
docs/text.md ("A real corpus: the World Factbook"): tags become a space, entities are decoded, runs of ASCII
whitespace and no-break spaces become one space; one line per string, "Key: Subkey: text" with the keys trimmed and "text"/"note"
keys adding no name; the first line is the country's conventional short name (else the long one, else the
file's code). Writes tests/golden/factbook-<code>.txt. Run by hand: python3 tests/golden/make_factbook_golden.py
"""
import html, json, pathlib, re

ROOT = pathlib.Path(__file__).resolve().parent
SAMPLE = ROOT.parent / "data" / "factbook-sample"


def clean(s):
    s = re.sub(r"<[A-Za-z/!][^>]*>", " ", s)
    # Whitespace: ASCII's and the no-break space (U+00A0), nothing else (Python's split() would take more).
    return " ".join(w for w in re.split(r"[ \t\n\r\f\v\xa0]+", html.unescape(s)) if w)


def lines(value, path, out):
    if isinstance(value, dict):
        for k, v in value.items():
            k = " ".join(k.split())
            named = k not in ("text", "note", "")
            lines(v, path + [k] if named else path, out)
    elif isinstance(value, list):
        for v in value:
            lines(v, path, out)
    elif value is not None:
        t = clean(value if isinstance(value, str) else json.dumps(value))
        if t:
            out.append(": ".join(path + [t]))


def name(country, code):
    for form in ("conventional short form", "conventional long form"):
        try:
            n = clean(country["Government"]["Country name"][form]["text"])
        except (KeyError, TypeError):
            continue
        if n and n != "none":
            return n
    return code


for f in sorted(SAMPLE.glob("*/*.json")):
    country = json.loads(f.read_text(encoding="utf-8"))
    out = []
    lines(country, [], out)
    doc = name(country, f.stem) + "\n" + "\n".join(out)
    (ROOT / f"factbook-{f.stem}.txt").write_text(doc, encoding="utf-8")
    print(f.stem, len(doc))
