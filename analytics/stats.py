"""Small statistics for the report, the dashboard and ``paipu tune``: 95% intervals for rates,
means and differences, and the chi-square tail. Pure Python (no SciPy in the stack).

Every function takes counters or moments that SQL computed (``count``, ``avg``,
``stddev_samp``) and returns floats; ``None`` where a figure is not defined (nothing to divide
by, or a spread of one observation).

>>> lo, hi = wilson(50, 100)
>>> round(lo, 3), round(hi, 3)
(0.404, 0.596)
>>> round(chi2_sf(3.84, 1), 3)
0.05
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054
"""Two-sided 95% normal quantile."""


@dataclass(frozen=True)
class Interval:
    """An estimate with its 95% interval; ``lo``/``hi`` None when the sample cannot give one."""

    est: float | None
    lo: float | None
    hi: float | None

    @property
    def excludes_zero(self) -> bool:
        """True when the whole interval lies on one side of 0 (a difference that shows)."""
        return self.lo is not None and self.hi is not None and (self.lo > 0 or self.hi < 0)

    @property
    def width(self) -> float | None:
        return None if self.lo is None or self.hi is None else self.hi - self.lo


NONE = Interval(None, None, None)


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float] | tuple[None, None]:
    """Wilson score interval of a proportion ``k / n`` (good also near 0 and 1 and for small n).

    :returns: (lo, hi), or (None, None) when ``n`` is 0.
    """
    if n <= 0:
        return None, None
    p = k / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(k: int | None, n: int | None) -> Interval:
    """A proportion with its Wilson interval."""
    if not n:
        return NONE
    k = k or 0
    lo, hi = wilson(k, n)
    return Interval(k / n, lo, hi)


def mean(m: float | None, sd: float | None, n: int | None) -> Interval:
    """A mean with the normal interval ``m ± 1.96·sd/√n`` (None bounds for n < 2)."""
    if m is None or not n:
        return NONE
    if n < 2 or sd is None:
        return Interval(m, None, None)
    half = Z95 * sd / math.sqrt(n)
    return Interval(m, m - half, m + half)


def paired(mean_diff: float | None, sd_diff: float | None, n: int | None) -> Interval:
    """Mean of per-pair differences with ``± 1.96·sd/√n`` (duplicate play: the same deal under A and
    under B). A difference that is 0 in every pair has sd 0 and the interval [0, 0]."""
    return mean(mean_diff, sd_diff, n)


def diff_rates(k1: int, n1: int, k2: int, n2: int) -> Interval:
    """``k1/n1 − k2/n2`` of two independent samples with Newcombe's hybrid score interval
    (method 10: built from the two Wilson intervals)."""
    if not n1 or not n2:
        return NONE
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1)
    l2, u2 = wilson(k2, n2)
    d = p1 - p2
    lo = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    hi = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return Interval(d, lo, hi)


def diff_means(m1: float | None, s1: float | None, n1: int | None,
               m2: float | None, s2: float | None, n2: int | None) -> Interval:
    """``m1 − m2`` of two independent samples, Welch's normal interval."""
    if m1 is None or m2 is None or not n1 or not n2:
        return NONE
    d = m1 - m2
    if n1 < 2 or n2 < 2 or s1 is None or s2 is None:
        return Interval(d, None, None)
    half = Z95 * math.sqrt(s1 * s1 / n1 + s2 * s2 / n2)
    return Interval(d, d - half, d + half)


def _gamma_p_series(a: float, x: float) -> float:
    term = total = 1.0 / a
    ap = a
    for _ in range(10_000):
        ap += 1
        term *= x / ap
        total += term
        if abs(term) < abs(total) * 1e-15:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _gamma_q_fraction(a: float, x: float) -> float:
    # Lentz's continued fraction for the upper regularized incomplete gamma
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return h * math.exp(-x + a * math.log(x) - math.lgamma(a))


def chi2_sf(x: float, df: int) -> float:
    """P(χ²(df) ≥ x): the p-value of a chi-square statistic ``x`` with ``df`` degrees of freedom.

    :raises ValueError: ``df`` < 1.
    """
    if df < 1:
        raise ValueError("df must be at least 1")
    if x <= 0:
        return 1.0
    a, y = df / 2, x / 2
    if y < a + 1:
        return max(0.0, 1.0 - _gamma_p_series(a, y))
    return min(1.0, _gamma_q_fraction(a, y))


def chi_square(observed: list[float], expected: list[float]) -> tuple[float, int, float]:
    """Pearson's goodness of fit over cells with a positive expectation.

    :returns: (statistic, degrees of freedom = cells − 1, p-value); p is 1.0 with fewer than 2 cells.
    """
    cells = [(o, e) for o, e in zip(observed, expected) if e > 0]
    stat = sum((o - e) ** 2 / e for o, e in cells)
    df = len(cells) - 1
    return stat, df, chi2_sf(stat, df) if df >= 1 else 1.0


def poisson_sf(k: int, mu: float) -> float:
    """P(X ≥ k) for X ~ Poisson(mu): how surprising ``k`` co-occurrences are when ``mu`` were
    expected."""
    if k <= 0:
        return 1.0
    if mu <= 0:
        return 0.0
    # the upper tail summed directly (1 − cdf would round tiny tails to 0)
    log_mu = math.log(mu)
    total = 0.0
    i = k
    while True:
        term = math.exp(-mu + i * log_mu - math.lgamma(i + 1))
        total += term
        if i > mu and term < total * 1e-16:
            break
        i += 1
    return min(1.0, total)


def binom_sf(k: int, n: int, p: float) -> float:
    """P(X ≥ k) for X ~ Binomial(n, p)."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    if p <= 0:
        return 0.0
    if p >= 1:
        return 1.0
    lp, lq = math.log(p), math.log1p(-p)
    total = 0.0
    for i in range(k, n + 1):
        total += math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * lp + (n - i) * lq)
    return min(1.0, total)


def bh_flags(p_values: list[float], q: float = 0.05) -> list[bool]:
    """Benjamini–Hochberg: which of ``p_values`` stand out when at most a share ``q`` of the flagged
    ones may be false leads (for ranking many pairs at once).

    >>> bh_flags([0.001, 0.02, 0.04, 0.5], q=0.05)
    [True, True, False, False]
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    cut = 0
    for rank, i in enumerate(order, start=1):
        if p_values[i] <= rank / m * q:
            cut = rank
    flagged = [False] * m
    for i in order[:cut]:
        flagged[i] = True
    return flagged
