#!/usr/bin/env python3
"""Independent reference values for FoNE (tests/test_fourier.cpp reads fone_golden.json).

Phases are exact rationals (fractions.Fraction): frac(x / T) for T = c * base^e; the angle's cos and sin
are evaluated with mpmath at 60 significant digits, then printed with 20. Nothing here shares code with
the C++ implementation.

    python3 tests/golden/make_fone_golden.py > tests/golden/fone_golden.json
"""
import json
import random
from fractions import Fraction

import mpmath

mpmath.mp.dps = 60


def periods(m, n, base, multipliers):
    if not multipliers:
        return [(1, base, i) for i in range(-n + 1, m + 1)]
    out = set()
    for k in range(-n, m):
        for c in multipliers:
            t = Fraction(c) * Fraction(10) ** k
            out.add(t)
    return sorted(out)


def embedding(x, m, n, base=10, multipliers=(), sign=True):
    x = Fraction(x)
    ts = [Fraction(c) * Fraction(b) ** e for (c, b, e) in periods(m, n, base, multipliers)] if not multipliers \
        else periods(m, n, base, multipliers)
    out = []
    for t in ts:
        q = x / t
        phase = q - (q.numerator // q.denominator)  # frac, in [0, 1), also for negative x
        angle = 2 * mpmath.pi * mpmath.mpf(phase.numerator) / phase.denominator
        out += [mpmath.nstr(mpmath.cos(angle), 20), mpmath.nstr(mpmath.sin(angle), 20)]
    if sign:
        out.append("1" if x < 0 else "0")
    return out


def chunked(x, m, n):
    """The paper's appendix F: digit k of N = |x|*10^n lives in chunk k//5, embedded alone."""
    x = Fraction(x)
    big_n = abs(x) * 10 ** n
    assert big_n.denominator == 1
    big_n = big_n.numerator
    out = []
    for k in range(m + n):
        low = (k // 5) * 5
        chunk = (big_n // 10 ** low) % 10 ** (k - low + 1)
        if x < 0:
            chunk = -chunk
        q = Fraction(chunk, 10 ** (k - low + 1))
        phase = q - (q.numerator // q.denominator)
        angle = 2 * mpmath.pi * mpmath.mpf(phase.numerator) / phase.denominator
        out += [mpmath.nstr(mpmath.cos(angle), 20), mpmath.nstr(mpmath.sin(angle), 20)]
    out.append("1" if x < 0 else "0")
    return out


def digits_number(rng, int_digits, frac_digits, negative=False):
    s = str(rng.randint(1, 9)) + "".join(str(rng.randint(0, 9)) for _ in range(int_digits - 1))
    if frac_digits:
        s += "." + "".join(str(rng.randint(0, 9)) for _ in range(frac_digits - 1)) + str(rng.randint(1, 9))
    return ("-" if negative else "") + s


def main():
    rng = random.Random(20260522)
    cases = []

    def add(text, m, n, base=10, multipliers=(), method="exact"):
        x = Fraction(text)
        emb = chunked(x, m, n) if method == "chunked" else embedding(x, m, n, base, multipliers)
        cases.append({"value": text, "m": m, "n": n, "base": base, "multipliers": list(multipliers),
                      "method": method, "embedding": emb})

    add("4.17", 1, 2)                       # the paper's example: periods 0.1, 1, 10
    add("18", 2, 0)                         # the paper's figure: periods 10, 100
    add("0", 3, 2)                          # FoNE(0) = [1, 0, 1, 0, ...]
    add(digits_number(rng, 20, 0), 20, 0)   # 20 digits: past float64's ~15
    add(digits_number(rng, 12, 8), 12, 8)   # 20 digits with decimals
    add(digits_number(rng, 60, 0), 60, 0)   # the paper's long addition size
    add(digits_number(rng, 60, 0, negative=True), 60, 0)
    add(digits_number(rng, 150, 50), 150, 50)   # 200 digits
    add(digits_number(rng, 200, 0), 205, 0)     # 200 digits in wider slots
    add("-123.456", 4, 3)
    add(str(rng.randint(0, 7 ** 10 - 1)), 10, 0, base=7)
    add("1234.25", 5, 2, base=12)          # 1234.25 * 12^2 is an integer
    add("1234.56", 4, 2, multipliers=(2, 5, 10))
    add("987654.321", 6, 3, multipliers=(5,))
    add(digits_number(rng, 17, 3), 17, 3, method="chunked")
    add("-12345.678", 5, 3, method="chunked")
    json.dump({"generator": "tests/golden/make_fone_golden.py", "cases": cases}, fp=__import__("sys").stdout,
              indent=1)


if __name__ == "__main__":
    main()
