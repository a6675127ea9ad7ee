#!/usr/bin/env python3
"""Issue 40's rule: a number method's name is compared in two places only, the methods table
(core/src/store/methods.cpp) and the method's own file. Lists every comparison (== or !=) of a string
literal that is a method's name in the C++ sources git tracks under core/, app/, widgets/ and plots/ (tests
are left out), outside those files, and exits 1 when there is one:

    path:line: the line

The same words name other things, which are not methods and may be compared: the pieces a token method
writes ("digit", "subword": number_pieces, ntl_tokens, numerologic_tokens), a text tokenizer
("fone", "digit", "subword") and an experiment's report ("ntl"). A comparison whose other side names one of
those (OTHER_MEANINGS) is left out. CTest runs it (test method_names).

    scripts/method-names.py
"""
import re
import subprocess
import sys
from pathlib import Path

TABLE = "core/src/store/methods.cpp"
# Each method's own file(s), where its name may be compared.
OWN_FILES = {
    "fone": ["core/src/schemes/fone_head.cpp"],
    "fone-direct": ["core/src/schemes/fone_direct_head.cpp"],
    "xval": ["core/src/schemes/xval_head.cpp"],
    "bittokens": ["core/src/schemes/bittokens_head.cpp"],
    "fone-adapter": ["core/src/schemes/adapter_scheme.cpp", "core/src/schemes/adapter_scheme.h"],
}
TOKEN_METHODS_FILE = "core/src/schemes/token_schemes.cpp"  # digit, subword, ntl, abacus, fone+abacus, numerologic
OTHER_MEANINGS = re.compile(r"pieces|_tokens\b|\breport\b|tokenizer|text_scheme|scheme\(\)")
ROOTS = ["core", "app", "widgets", "plots"]


def method_names(repo):
    """The names of the table's rows: each row starts with {"name", "description", ..."""
    text = (repo / TABLE).read_text(encoding="utf-8")
    return re.findall(r'^\s*\{"([^"]+)",', text, re.M)


def main():
    repo = Path(__file__).resolve().parent.parent
    names = method_names(repo)
    if len(names) < 10:
        print(f"{TABLE}: found {len(names)} rows; the table's layout changed", file=sys.stderr)
        return 1
    literal = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    compare = re.compile(r'(.{0,60}?)\s*[!=]=\s*"(' + literal + r')"|"(' + literal + r')"\s*[!=]=\s*(.{0,60})')
    listed = subprocess.run(["git", "-C", str(repo), "ls-files", "--", *ROOTS], capture_output=True, text=True)
    paths = listed.stdout.split() if listed.returncode == 0 else []
    found = 0
    for path in sorted(p for p in paths if p.endswith((".cpp", ".h")) and "tests" not in Path(p).parts):
        if path == TABLE:
            continue
        for number, line in enumerate((repo / path).read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if line.lstrip().startswith("//"):
                continue
            for m in compare.finditer(line):
                name = m.group(2) or m.group(3)
                other = m.group(1) if m.group(2) else m.group(4)
                own = OWN_FILES.get(name, [TOKEN_METHODS_FILE])
                if path in own or OTHER_MEANINGS.search(other or ""):
                    continue
                print(f"{path}:{number}: {line.strip()}")
                found += 1
    print(f"{found} comparisons of a method's name outside the methods table and the method's own file",
          file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
