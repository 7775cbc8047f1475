#!/usr/bin/env python3
"""benchstats - the statistics the bench scripts share: t quantile, t and
batch-means intervals, autocorrelation and correlation, Wilson's interval for
a proportion.

Standard library only. A bench imports it from beside itself:

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import benchstats

usage: bench/benchstats.py --self-test
       checks every function against a printed t table and hand-computed
       cases; exits 1 on the first wrong value
"""
import functools
import math
import statistics as st
import sys

Z975 = 1.959963984540054  # the normal distribution's 0.975 quantile


def _beta_cf(a, b, x):
    """the continued fraction of the incomplete beta function (modified Lentz; Numerical Recipes 6.4)"""
    tiny, eps = 1e-300, 1e-15
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100000):
        # the even step d_2m, then the odd step d_2m+1 of the fraction
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + num * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1) < eps:
            return h
    raise ArithmeticError(f"benchstats: the incomplete beta fraction did not converge (a {a}, b {b}, x {x})")


def _beta_inc(a, b, x, y):
    """I_x(a, b), the regularized incomplete beta function, for a, b > 0, 0 <= x <= 1 and y = 1 - x
    (given apart, so that an x near 1 keeps its precision)"""
    if x <= 0 or y <= 0:
        return 0.0 if x <= 0 else 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(y))
    # the fraction converges fast below the mean of the distribution; above it, by I_x(a, b) = 1 - I_y(b, a)
    if x < (a + 1) / (a + b + 2):
        return front * _beta_cf(a, b, x) / a
    return 1 - front * _beta_cf(b, a, y) / b


def t_cdf(t, df):
    """P(T <= t) for Student's t with df degrees of freedom (df > 0, not necessarily whole)"""
    # P(T > |t|) = I_x(df/2, 1/2) / 2, x = df / (df + t^2) (Abramowitz and Stegun 26.7.1)
    tail = 0.5 * _beta_inc(df / 2, 0.5, df / (df + t * t), t * t / (df + t * t))
    return 1 - tail if t >= 0 else tail


@functools.lru_cache(maxsize=None)
def t975(df):
    """the t distribution's 0.975 quantile for df >= 1 degrees of freedom: the factor of a 95 % two-sided
    interval. Closed forms for df 1 and 2; the t CDF inverted by bisection (to 1e-11) up to df 1e5; beyond,
    where lgamma's cancellation would cost the CDF digits, the expansion in 1/df (Abramowitz and Stegun
    26.7.5), whose first left-out term is below 1e-18 there"""
    if not df >= 1:
        raise ValueError(f"benchstats: t975 needs df of 1 or more, not {df}")
    if df == 1:
        return math.tan(math.pi * (0.975 - 0.5))
    if df == 2:
        return (2 * 0.975 - 1) / math.sqrt(2 * 0.975 * (1 - 0.975))
    if df > 1e5:
        z = Z975
        return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2) + \
            (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * df ** 3)
    lo, hi = Z975, 12.8  # the quantile falls from 12.706 at df 1 toward the normal's as df grows
    while hi - lo > 1e-12:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t_cdf(mid, df) < 0.975 else (lo, mid)
    return (lo + hi) / 2


def mean_ci(x):
    """(mean, half-width of its 95 % t interval) of the sample x, taken as independent; the half-width is
    nan below 2 values, and both are nan for none"""
    n = len(x)
    if n == 0:
        return float("nan"), float("nan")
    if n == 1:
        return x[0], float("nan")
    return st.mean(x), t975(n - 1) * st.stdev(x) / math.sqrt(n)


def acf(x, k):
    """the lag-k sample autocorrelation of x: sum (x_i - m)(x_i+k - m) over sum (x_i - m)^2; nan when x
    does not vary"""
    m = st.mean(x)
    v = sum((a - m) ** 2 for a in x)
    return sum((x[i] - m) * (x[i + k] - m) for i in range(len(x) - k)) / v if v else float("nan")


def corr(a, b):
    """Pearson's sample correlation of the paired values a and b; nan when either does not vary"""
    ma, mb = st.mean(a), st.mean(b)
    num = sum((x - ma) * (y - mb) for x, y in zip(a, b))
    den = math.sqrt(sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b))
    return num / den if den else float("nan")


def batch_half(x, batches):
    """the 95 % half-width of x's mean from the means of `batches` consecutive stretches of x (lengths
    differing by at most one): t(batches - 1) sd(means) / sqrt(batches); serial correlation widens it"""
    n = len(x)
    edges = [round(i * n / batches) for i in range(batches + 1)]
    means = [st.mean(x[edges[i]:edges[i + 1]]) for i in range(batches)]
    return t975(batches - 1) * st.stdev(means) / math.sqrt(batches)


def wilson(k, n, z=1.96):
    """Wilson's score interval (lo, hi) for a proportion, k successes in n trials, as fractions in [0, 1]
    (z 1.96: 95 %); (nan, nan) for n 0"""
    if n == 0:
        return float("nan"), float("nan")
    p, d = k / n, 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def self_test():
    """every function against a printed table and hand-computed cases: the count of checks, or SystemExit"""
    checks = 0

    def near(what, got, want, tol):
        nonlocal checks
        if not (abs(got - want) <= tol or (math.isnan(want) and math.isnan(got))):
            sys.exit(f"benchstats: FAIL: {what} is {got!r}, want {want!r} (within {tol:g})")
        checks += 1

    # t(0.975, df), as printed in any t table (3 decimals)
    table = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 9: 2.262, 19: 2.093, 29: 2.045, 49: 2.010,
             99: 1.984, 1000: 1.962}
    for df, t in table.items():
        near(f"t975({df})", t975(df), t, 1e-3)
    # to 6 decimals (the figures the benches' own tables had for df 4 and 9)
    for df, t in {1: 12.706205, 2: 4.302653, 4: 2.776445, 9: 2.262157, 29: 2.045230, 1000: 1.962339}.items():
        near(f"t975({df})", t975(df), t, 1e-6)
    # the CDF the bisection inverts agrees with the closed forms of df 1 and 2, and is symmetric
    near("t_cdf(t975(1), 1)", t_cdf(t975(1), 1), 0.975, 1e-9)
    near("t_cdf(t975(2), 2)", t_cdf(t975(2), 2), 0.975, 1e-9)
    near("t_cdf(-t975(7), 7)", t_cdf(-t975(7), 7), 0.025, 1e-9)
    near("t_cdf(0, 5)", t_cdf(0, 5), 0.5, 1e-12)
    # it falls with df toward the normal's
    prev = t975(1)
    for df in list(range(2, 200)) + [10 ** 4, 10 ** 6]:
        near(f"t975({df}) below t975 of fewer df", min(t975(df), prev), t975(df), 0)
        prev = t975(df)
    near("t975(1e6)", t975(10 ** 6), Z975, 1e-5)
    # the bisection at df 1e5 and the expansion at 1e5 + 1 meet: the slope there is 2.37e-10 per df
    near("t975 either side of df 1e5", t975(10 ** 5) - t975(10 ** 5 + 1), 2.37e-10, 3e-11)
    near("t975(inf)", t975(math.inf), Z975, 0)
    try:
        t975(0)
        sys.exit("benchstats: FAIL: t975(0) returned, want ValueError")
    except ValueError:
        checks += 1

    # Wilson: p 0.95, z^2 3.8416, d 1.038416: centre 0.969208 / d, half 1.96 sqrt(0.00057104) / d
    lo, hi = wilson(95, 100)
    near("wilson(95, 100) lo", lo, 0.888250, 1e-5)
    near("wilson(95, 100) hi", hi, 0.978454, 1e-5)
    lo, hi = wilson(0, 10)  # lo 0; hi z^2 / (n + z^2) = 3.8416 / 13.8416
    near("wilson(0, 10) lo", lo, 0.0, 0)
    near("wilson(0, 10) hi", hi, 3.8416 / 13.8416, 1e-12)
    lo, hi = wilson(10, 10)
    near("wilson(10, 10) lo", lo, 10 / 13.8416, 1e-12)
    near("wilson(10, 10) hi", hi, 1.0, 0)
    lo, hi = wilson(5, 10)  # symmetric about 1/2
    near("wilson(5, 10) symmetric", lo + hi, 1.0, 1e-12)
    near("wilson(0, 0) lo", wilson(0, 0)[0], float("nan"), 0)

    # mean_ci of 1..5: mean 3, sd sqrt(2.5), half t(4) sqrt(2.5) / sqrt(5) = 2.776445 / sqrt(2)
    m, h = mean_ci([1, 2, 3, 4, 5])
    near("mean_ci(1..5) mean", m, 3.0, 0)
    near("mean_ci(1..5) half", h, 2.776445 / math.sqrt(2), 1e-6)
    m, h = mean_ci([7.5])
    near("mean_ci([7.5]) mean", m, 7.5, 0)
    near("mean_ci([7.5]) half", h, float("nan"), 0)
    near("mean_ci([]) mean", mean_ci([])[0], float("nan"), 0)

    # acf of 1..4: deviations -1.5 -0.5 0.5 1.5, sum of squares 5; lag 1 1.25 / 5, lag 2 -1.5 / 5
    near("acf(1..4, 1)", acf([1, 2, 3, 4], 1), 0.25, 1e-12)
    near("acf(1..4, 2)", acf([1, 2, 3, 4], 2), -0.3, 1e-12)
    near("acf of a constant", acf([2, 2, 2], 1), float("nan"), 0)

    # corr: 1 for a line, -1 for a falling one; 1..4 against 1 3 2 4: sum of products 4 over sqrt(5 * 5)
    near("corr(1..4, 2 4 6 8)", corr([1, 2, 3, 4], [2, 4, 6, 8]), 1.0, 1e-12)
    near("corr(1..4, 4..1)", corr([1, 2, 3, 4], [4, 3, 2, 1]), -1.0, 1e-12)
    near("corr(1..4, 1 3 2 4)", corr([1, 2, 3, 4], [1, 3, 2, 4]), 0.8, 1e-12)
    near("corr with a constant", corr([1, 2, 3], [5, 5, 5]), float("nan"), 0)

    # batch_half of 1..6 in 3 batches: means 1.5 3.5 5.5, sd 2, half t(2) 2 / sqrt(3)
    near("batch_half(1..6, 3)", batch_half([1, 2, 3, 4, 5, 6], 3), 4.302653 * 2 / math.sqrt(3), 1e-5)
    # 7 values in 3 batches: edges 0 2 5 7, means 1.5 4 6.5, sd 2.5
    near("batch_half(1..7, 3)", batch_half([1, 2, 3, 4, 5, 6, 7], 3), 4.302653 * 2.5 / math.sqrt(3), 1e-5)
    return checks


if __name__ == "__main__":
    if sys.argv[1:] in (["--help"], ["-h"]):
        print(__doc__.strip())
    elif sys.argv[1:] == ["--self-test"]:
        print(f"benchstats: {self_test()} checks passed")
    else:
        sys.exit(__doc__.strip())
