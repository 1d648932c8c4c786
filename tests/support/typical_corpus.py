"""Typical environment bodies, as plain Python (the body subset), with sample inputs.

Used by the semantic-equivalence tests (plain CPython vs instrumented) and by
benchmarks/bench_fuel_micro.py (overhead of the instrumentation).
"""

SOURCE = '''
def caesar(s, k):
    return "".join(chr((ord(c) - 97 + k) % 26 + 97) for c in s)

def fibonacci(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a

def run_length(s):
    out = []
    i = 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j += 1
        out.append(f"{j - i}{s[i]}")
        i = j
    return "".join(out)

def swap_pair(xs, i):
    t = xs[i]
    xs[i] = xs[i + 1]
    xs[i + 1] = t

def bubble_sort(xs):
    xs = list(xs)
    n = len(xs)
    for i in range(n):
        for j in range(n - 1 - i):
            if xs[j] > xs[j + 1]:
                swap_pair(xs, j)
    return xs

def digit_sum(n):
    total = 0
    while n > 0:
        total += n % 10
        n //= 10
    return total

def digit_sum_str(s):
    total = 0
    for c in s:
        total += int(c)
    return total

def ackermann_small(m, n):
    if m == 0:
        return n + 1
    if n == 0:
        return ackermann_small(m - 1, 1)
    return ackermann_small(m - 1, ackermann_small(m, n - 1))

def squares_of_evens(xs):
    return [x * x for x in xs if x % 2 == 0]

def count_chars(s):
    d = {}
    for c in s:
        d[c] = d.get(c, 0) + 1
    return sorted(d.items())

def describe(xs):
    return f"{len(xs)} items, max {max(xs)}, min {min(xs)}, total {sum(xs)}"

def sort_words(text):
    words = text.split()
    return sorted(words, key=lambda w: (-len(w), w))

def vowel_count(s):
    n = 0
    for c in s:
        if c in "aeiou":
            n += 1
    return n

def is_palindrome(s):
    t = [c for c in s.lower() if c.isalpha()]
    return t == t[::-1]

def reverse_words(s):
    return " ".join(w[::-1] for w in s.split(" "))

def prefix_sums(xs):
    out = []
    total = 0
    for x in xs:
        total += x
        out.append(total)
    return out

def max_subarray(xs):
    best = xs[0]
    cur = 0
    for x in xs:
        cur = max(x, cur + x)
        best = max(best, cur)
    return best

def to_binary(n):
    if n == 0:
        return "0"
    bits = ""
    while n > 0:
        bits = str(n % 2) + bits
        n //= 2
    return bits

def gcd(a, b):
    while b:
        a, b = b, a % b
    return a

def transpose(grid):
    return [[row[i] for row in grid] for i in range(len(grid[0]))]

def primes_upto(n):
    sieve = [True] * (n + 1)
    sieve[0] = False
    sieve[1] = False
    for i in range(2, n + 1):
        if sieve[i]:
            for j in range(i * i, n + 1, i):
                sieve[j] = False
    return [i for i, p in enumerate(sieve) if p]

def hamming(a, b):
    return sum(1 for x, y in zip(a, b) if x != y)

def rotate_left(xs, k):
    k = k % len(xs)
    return xs[k:] + xs[:k]

def first_index_of(xs, v):
    for i, x in enumerate(xs):
        if x == v:
            return i
    return -1

def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps

def interleave(a, b):
    out = ""
    for x, y in zip(a, b):
        out += x + y
    return out

def all_alpha(words):
    return all(w.isalpha() for w in words)
'''

# (function, args, int parameter names)
CASES = [
    ("caesar", ("helloworldthisisatest", 3), {"k"}),
    ("fibonacci", (30,), {"n"}),
    ("run_length", ("aaabbbccccddddddeeef",), set()),
    ("bubble_sort", ([9, 3, 7, 1, 8, 2, 6, 4, 5, 0, 11, 10],), set()),
    ("digit_sum", (9876543210123,), {"n"}),
    ("digit_sum_str", ("98765432101234567890",), set()),
    ("ackermann_small", (2, 3), {"m", "n"}),
    ("squares_of_evens", (list(range(40)),), set()),
    ("count_chars", ("the quick brown fox jumps over the lazy dog",), set()),
    ("describe", ([5, 3, 9, 1, 7, 2, 8],), set()),
    ("sort_words", ("the quick brown fox jumps over a lazy dog",), set()),
    ("vowel_count", ("the quick brown fox jumps over the lazy dog",), set()),
    ("is_palindrome", ("A man, a plan, a canal: Panama",), set()),
    ("reverse_words", ("hello world from races",), set()),
    ("prefix_sums", (list(range(30)),), set()),
    ("max_subarray", ([-2, 1, -3, 4, -1, 2, 1, -5, 4, 3, -2, 6],), set()),
    ("to_binary", (123456,), {"n"}),
    ("gcd", (1071, 462), {"a", "b"}),
    ("transpose", ([[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]],), set()),
    ("primes_upto", (60,), {"n"}),
    ("hamming", ("karolinkarolin", "kathrinkathrin"), set()),
    ("rotate_left", (list(range(20)), 7), {"k"}),
    ("first_index_of", (list(range(50)), 37), set()),
    ("collatz_steps", (27,), {"n"}),
    ("interleave", ("abcdefghij", "0123456789"), set()),
    ("all_alpha", (["alpha", "beta", "gamma", "delta"],), set()),
]


def int_params():
    """The `int_params` mapping for `instrument`."""
    out = {}
    for name, _, ints in CASES:
        out.setdefault(name, set()).update(ints)
    return {k: frozenset(v) for k, v in out.items()}
