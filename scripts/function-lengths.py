#!/usr/bin/env python3
"""The size rules (docs/CONTRIBUTING.md): no function longer than N lines (default 80) and no file longer
than --file-lines (default 800) in the C++ sources git tracks under core/, app/, widgets/ and plots/ (tests
are left out). Lists the functions over N lines, longest first, then the files over the file limit, one a
line:

    LINES path:line signature
    LINES path

and exits 1 when a function is not on ALLOWED below (an option table or a checklist, which reads best in one
piece) or a file is not on FILE_EXCEPTIONS. A function's lines run from its body's opening brace to its
closing one; lambdas and local classes inside it count toward it. CTest runs it (tests size_rules and
size_rules_catches, which runs it with --tree on tests/golden/size-rules/ and small limits).

    scripts/function-lengths.py [N] [--file-lines M] [--tree DIR]

A brace-matching heuristic, not a parser: comments, string and character literals and preprocessor lines
are blanked first, and a brace at namespace or class scope opens a function when the text before it ends
in a parameter list (with qualifiers, a trailing return type or a constructor's initializer list).
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path

# Functions that may be longer than N: each is one long list, and splitting it would only scatter the
# list. Keyed by the name the listing shows (class-qualified, without namespaces).
ALLOWED = {
    # Checklists and option tables.
    "TrainConfig::validate": "the checklist of every setting's rule, one check a line",
    "add_train_options": "the option table of fone train, one entry per option",
    # Qt constructors and builders that lay out a form: one widget after another, in the order shown.
    "WorkbenchWindow::WorkbenchWindow": "builds the main window: models, docks, status bar, connections",
    "WorkbenchWindow::make_runs_view": "builds the runs view: filter bar, buttons, table and connections",
    "LaunchPanel::LaunchPanel": "builds the launch form: one row per setting",
    "CurveView::CurveView": "builds the curve view's form and layout",
    "ErrorsView::ErrorsView": "builds the errors view's form and layout",
    "KnockoutView::KnockoutView": "builds the knockout view's form and layout",
    "SourceBox::SourceBox": "builds the source picker's form and layout",
    "SweepDesigner::SweepDesigner": "builds the sweep designer's form and layout",
    "WelcomeView::WelcomeView": "builds the welcome page's layout",
}

# Files that may be longer than --file-lines for now, each with the issue that splits it.
FILE_EXCEPTIONS = {
    # None today. A file that must be longer names the issue that splits it, e.g.
    # "widgets/workbench_window.cpp": "issue N splits it",
}

ROOTS = ["core", "app", "widgets", "plots"]
SUFFIXES = {".cpp", ".cc", ".cxx", ".h", ".hpp"}


def blank(text):
    """The text with comments, string and character literals and preprocessor lines turned into spaces,
    newlines kept (so that line numbers stay right)."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":
            j = preprocessor_end(text, i)  # `#define X {` must not open anything
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif c == '"' and text[i - 1 : i] == "R":
            # A raw string: R"delim( ... )delim", which may hold quotes and backslashes.
            m = re.match(r'"([^(\s]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
        elif c == '"' or (c == "'" and not in_number(text, i)):
            j = i + 1
            while j < n and text[j] not in (c, "\n"):
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n) if text[j : j + 1] == c else j
        else:
            out.append(c)
            i += 1
            if c == "\n" or not c.isspace():
                line_start = c == "\n"
            continue
        out.append(re.sub(r"[^\n]", " ", text[i:j]))
        line_start = False
        i = j
    return "".join(out)


def preprocessor_end(text, i):
    """Where the preprocessor line at i ends, its continuation lines included."""
    while True:
        i = text.find("\n", i)
        if i < 0:
            return len(text)
        if text[i - 1] != "\\":
            return i
        i += 1


def in_number(text, i):
    """Whether the quote at i is a digit separator (1'000'000) rather than a character literal."""
    j = i
    while j > 0 and (text[j - 1].isalnum() or text[j - 1] in "'._"):
        j -= 1
    return j < i and text[j].isdigit()


def outside_parens(s):
    """s with everything inside parentheses (and the parentheses) removed, depth by depth."""
    out, depth = [], 0
    for c in s:
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif depth == 0:
            out.append(c)
    return "".join(out)


QUALIFIERS = r"(\s|const\b|volatile\b|noexcept\b|override\b|final\b|mutable\b|&|\[\[[^\]]*\]\])*"
OPERATOR = r"operator\s*(\(\s*\)|[^\s(]+)"
ACCESS = r"\b(public|private|protected|signals|slots|Q_SLOTS|Q_SIGNALS)\s*:(?!:)"
LAMBDA = r"=\s*\[[^\]]*\]\s*(\(.*\))?" + QUALIFIERS + r"(->.*)?$"


def function_header(header):
    """The signature if the text before a brace at namespace or class scope is a function's, else None."""
    head = re.sub(r"\s+", " ", re.sub(ACCESS, " ", header)).strip()
    if re.search(LAMBDA, head):
        return head  # a lambda held by a variable at namespace scope
    if "(" not in head or re.match(r"(template\s*<.*>\s*)?(namespace|class|struct|union|enum)\b", head):
        return None
    # Cut a constructor's initializer list: the first single colon after a parameter list. The body's brace
    # comes after the last member's initializer, `v(x)` or `v{x}` (whose brace was an initializer's).
    init = re.search(r"\)" + QUALIFIERS + r"(?<!:):(?!:)", head)
    if init:
        if not head.endswith((")", "}")):
            return None
        head = head[: init.end() - 1].strip()
    plain = re.sub(OPERATOR, "operator", head)
    if "=" in outside_parens(plain):
        return None  # a variable's initializer
    # A parameter list, then qualifiers or a trailing return type (which may hold parentheses).
    return head if re.search(r"\)" + QUALIFIERS + r"(->.*)?$", plain) else None


def function_name(signature):
    """The name before the parameter list: `Foo::bar`, `operator()`, or a lambda's variable."""
    lam = re.search(r"(\w+)\s*" + LAMBDA, signature)
    if lam:
        return lam.group(1)
    op = re.search(r"((?:\w+\s*::\s*)*" + OPERATOR + r")\s*\(", signature)
    if op:
        return re.sub(r"\s+", "", op.group(1))
    # The first parenthesis outside template arguments and attributes: `std::function<int(int)> f(...)`.
    head = re.sub(r"__attribute__\s*\(\(.*?\)\)|\[\[.*?\]\]", " ", signature)
    depth = 0
    for i, c in enumerate(head):
        depth += {"<": 1, ">": -1}.get(c, 0)
        if c == "(" and depth == 0:
            m = re.search(r"((?:[\w~]+\s*::\s*)*~?\w+)\s*$", head[:i])
            return re.sub(r"\s+", "", m.group(1)) if m else head[:i].strip()
    return signature


def scope_name(header):
    """The class a `class|struct|union ... {` opens, or None for a namespace or an `extern "C"` block."""
    m = re.search(r"\b(?:class|struct|union)\s+(?:\w+\s+)*?(\w+)\s*(?:final\s*)?(?::(?!:)|$)", header.strip())
    return m.group(1) if m else None


def functions(text):
    """(lines, line, name, signature) of each function whose body is at namespace or class scope."""
    code = blank(text)
    found = []
    stack = []  # a (kind, data) per open brace: kind "scope" (data: class name), "function" or "other"
    header_start = 0  # where the declaration the next brace belongs to begins
    line = 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            if any(kind != "scope" for kind, _ in stack):
                stack.append(("other", None))  # a block, a lambda, or a brace inside an initializer
                continue
            header = code[header_start:i]
            sig = function_header(header)
            if sig:
                classes = [name for kind, name in stack if name]
                name = "::".join(classes + [function_name(sig)])
                start = line - header.lstrip().count("\n")
                stack.append(("function", (line, start, name, sig)))
            elif re.search(r"\b(namespace|extern|class|struct|union)\b", header) and "enum" not in header:
                stack.append(("scope", scope_name(header)))
                header_start = i + 1
            else:
                # An initializer or an enum's list: part of a declaration that goes on to its `;`.
                stack.append(("other", None))
        elif c == "}" and stack:
            kind, data = stack.pop()
            if kind == "function":
                open_line, start, name, sig = data
                found.append((line - open_line + 1, start, name, sig))
            if kind != "other":
                header_start = i + 1
        elif c == ";" and all(kind == "scope" for kind, _ in stack):
            header_start = i + 1
    return found


def tracked_sources(repo):
    """The sources git tracks under ROOTS (every source there when repo is not a git checkout)."""
    listed = subprocess.run(["git", "-C", str(repo), "ls-files", "--", *ROOTS], capture_output=True, text=True)
    if listed.returncode == 0:
        names = listed.stdout.split()
    else:
        names = [str(p.relative_to(repo)) for root in ROOTS for p in (repo / root).rglob("*") if p.is_file()]
    return sorted(n for n in names if Path(n).suffix in SUFFIXES and "tests" not in Path(n).parts)


def tree_sources(root):
    """Every C++ source under root, as paths relative to it (the fixture of size_rules_catches)."""
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.suffix in SUFFIXES)


def long_files(repo, paths, max_lines):
    """(lines, path) of each file over max_lines lines, longest first."""
    found = []
    for path in paths:
        lines = (repo / path).read_text(encoding="utf-8", errors="replace").count("\n")
        if lines > max_lines:
            found.append((lines, path))
    return sorted(found, key=lambda f: (-f[0], f[1]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("max_lines", nargs="?", type=int, default=80, help="longest a function may be")
    parser.add_argument("--file-lines", type=int, default=800, help="longest a file may be")
    parser.add_argument("--tree", type=Path, help="check every source under this folder instead")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # the listing and the counts (stderr) in order, when piped
    repo = args.tree.resolve() if args.tree else Path(__file__).resolve().parent.parent
    paths = tree_sources(repo) if args.tree else tracked_sources(repo)
    long_ones = []
    for path in paths:
        text = (repo / path).read_text(encoding="utf-8", errors="replace")
        for lines, line, name, sig in functions(text):
            if lines > args.max_lines:
                long_ones.append((lines, path, line, name, sig))
    long_ones.sort(key=lambda f: (-f[0], f[1], f[2]))
    failing = 0
    for lines, path, line, name, sig in long_ones:
        reason = ALLOWED.get(name)
        failing += reason is None
        note = f"  (allowed: {reason})" if reason else ""
        print(f"{lines} {path}:{line} {sig[:120]}{note}")
    print(f"{len(long_ones)} functions over {args.max_lines} lines, {failing} not allowed", file=sys.stderr)
    big = long_files(repo, paths, args.file_lines)
    files_failing = 0
    for lines, path in big:
        reason = FILE_EXCEPTIONS.get(path)
        files_failing += reason is None
        note = f"  (temporary exception: {reason})" if reason else ""
        print(f"{lines} {path}{note}")
    print(f"{len(big)} files over {args.file_lines} lines, {files_failing} not excepted", file=sys.stderr)
    if not args.tree:
        for name in sorted(set(ALLOWED) - {f[3] for f in long_ones}):
            print(f"{name} is no longer over {args.max_lines} lines: its ALLOWED entry can go", file=sys.stderr)
        for path in sorted(set(FILE_EXCEPTIONS) - {f[1] for f in big}):
            print(f"{path} is no longer over {args.file_lines} lines: its FILE_EXCEPTIONS entry can go",
                  file=sys.stderr)
    return 1 if failing or files_failing else 0


if __name__ == "__main__":
    sys.exit(main())
