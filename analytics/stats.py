"""Statistics for the report, the dashboard and ``paipu tune``: 95% intervals for rates, means and
differences, chi-square, Poisson and binomial tails, and Benjamini–Hochberg — the intervals and
tests from kept libraries (statsmodels' Wilson and Newcombe intervals and ``multipletests``, SciPy's
distributions), the one-line normal intervals of means here.

Every function takes counters or moments that SQL computed (``count``, ``avg``, ``stddev_samp``)
and returns floats; ``None`` where a figure is not defined (nothing to divide by, or a spread of one
observation). SciPy and statsmodels are imported on first use (``import scipy.stats`` takes about a
second; ``paipu report`` and the pages that never test anything do not pay it).

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
    """Wilson score interval of a proportion ``k / n`` (good also near 0 and 1 and for small n;
    ``statsmodels.stats.proportion.proportion_confint(method="wilson")``).

    :returns: (lo, hi), or (None, None) when ``n`` is 0.
    """
    if n <= 0:
        return None, None
    from scipy.stats import norm
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(k, n, alpha=2 * float(norm.sf(z)), method="wilson")
    return max(0.0, float(lo)), min(1.0, float(hi))


def wilson_many(ks: list[int], ns: list[int]) -> list[tuple[float | None, float | None]]:
    """:func:`wilson` of many proportions in one vectorised call (a leaderboard's rows)."""
    if not ks:
        return []
    import numpy as np
    from statsmodels.stats.proportion import proportion_confint

    k, n = np.asarray(ks, dtype=float), np.asarray(ns, dtype=float)
    ok = n > 0
    lo, hi = proportion_confint(k[ok], n[ok], alpha=0.05, method="wilson")
    out: list[tuple[float | None, float | None]] = [(None, None)] * len(ks)
    for i, a, b in zip(np.flatnonzero(ok), np.atleast_1d(lo), np.atleast_1d(hi)):
        out[int(i)] = (max(0.0, float(a)), min(1.0, float(b)))
    return out


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
    """``k1/n1 − k2/n2`` of two independent samples with Newcombe's hybrid score interval (method
    10, built from the two Wilson intervals; ``statsmodels.stats.proportion.
    confint_proportions_2indep(method="newcomb")``)."""
    if not n1 or not n2:
        return NONE
    from statsmodels.stats.proportion import confint_proportions_2indep

    lo, hi = confint_proportions_2indep(k1, n1, k2, n2, method="newcomb", compare="diff", alpha=0.05)
    return Interval(k1 / n1 - k2 / n2, float(lo), float(hi))


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


def chi2_sf(x: float, df: int) -> float:
    """P(χ²(df) ≥ x): the p-value of a chi-square statistic ``x`` with ``df`` degrees of freedom
    (``scipy.stats.chi2.sf``).

    :raises ValueError: ``df`` < 1.
    """
    if df < 1:
        raise ValueError("df must be at least 1")
    if x <= 0:
        return 1.0
    from scipy.stats import chi2

    return float(chi2.sf(x, df))


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
    expected (``scipy.stats.poisson.sf(k − 1, mu)``: the upper tail itself, never 1 − cdf)."""
    if k <= 0:
        return 1.0
    if mu <= 0:
        return 0.0
    from scipy.stats import poisson

    return float(poisson.sf(k - 1, mu))


def binom_sf(k: int, n: int, p: float) -> float:
    """P(X ≥ k) for X ~ Binomial(n, p) (``scipy.stats.binom.sf(k − 1, n, p)``)."""
    if k <= 0:
        return 1.0
    if k > n or p <= 0:
        return 0.0
    if p >= 1:
        return 1.0
    from scipy.stats import binom

    return float(binom.sf(k - 1, n, p))


def bh_flags(p_values: list[float], q: float = 0.05) -> list[bool]:
    """Benjamini–Hochberg: which of ``p_values`` stand out when at most a share ``q`` of the flagged
    ones may be false leads (``statsmodels.stats.multitest.multipletests(method="fdr_bh")``).

    >>> bh_flags([0.001, 0.02, 0.04, 0.5], q=0.05)
    [True, True, False, False]
    """
    if not p_values:
        return []
    from statsmodels.stats.multitest import multipletests

    return [bool(x) for x in multipletests(p_values, alpha=q, method="fdr_bh")[0]]
