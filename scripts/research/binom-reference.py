#!/usr/bin/env python3
# Usage: python3 scripts/research/binom-reference.py > crates/core/tests/data/binom_large_n.jsonl (needs mpmath; about 7 s).
# Reference binomial upper tails P(X >= k) at large n, in 50-digit arithmetic (mpmath), independent of
# the Rust code: the exact sum of the pmf over [k, n] where it is short enough, else the identity
# P(X >= n/2) = (1 + pmf(n/2)) / 2 at p = 1/2 (even n), with the pmf from exact log-gammas.
import json, sys, mpmath
mpmath.mp.dps = 50
def pmf(n, k, p):
    return mpmath.exp(mpmath.loggamma(n+1) - mpmath.loggamma(k+1) - mpmath.loggamma(n-k+1) + k*mpmath.log(p) + (n-k)*mpmath.log(1-p))
def tail_sum(n, k, p):
    # sum pmf from k upward (k above the mean) until terms fall below 1e-40 of the sum, by the ratio recurrence
    t = pmf(n, k, p); s = t; j = k
    r = p/(1-p)
    while j < n:
        t = t * (n-j) / (j+1) * r
        s += t; j += 1
        if t < s * mpmath.mpf('1e-40'): break
    return s
out = []
for n in [10**3, 10**5, 10**7, 10**9]:
    for p in [mpmath.mpf(1)/2, mpmath.mpf(1)/9, mpmath.mpf(1)/10]:
        mean = n*p; sd = mpmath.sqrt(n*p*(1-p))
        for z in [1, 3, 6, 10]:
            k = int(mpmath.ceil(mean + z*sd))
            if n >= 10**9 and z < 6: continue   # too many terms for the sum
            out.append((n, float(p), k, tail_sum(n, k, p)))
for n in [10**4, 10**6, 10**9, 10**12, 10**13, 10**15, 2*10**15]:
    k = n//2
    out.append((n, 0.5, k, (1 + pmf(n, k, mpmath.mpf(1)/2))/2))
print(json.dumps({"generated_by": "scripts/research/binom-reference.py", "mpmath": mpmath.__version__}))
for n, p, k, v in out:
    print(json.dumps({"n": n, "p": p, "k": k, "tail": mpmath.nstr(v, 20)}))
