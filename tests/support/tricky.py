"""Bodies at the corners of the checked subset (`TRICKY`, called as `TRICKY_CALLS`) and bodies
that fail at a known line (`FAILING`): the runtime, instrumentation and reference-meter tests
run them."""

TRICKY = '''
def loops_with_else():
    out = []
    for i in range(5):
        if i == 7:
            break
    else:
        out.append("for-else")
    for i in range(5):
        if i == 2:
            break
    else:
        out.append("never")
    n = 0
    while n < 3:
        n += 1
    else:
        out.append(n)
    return out

def nested_breaks():
    found = []
    for i in range(4):
        for j in range(4):
            if j > i:
                break
            if (i + j) % 2:
                continue
            found.append((i, j))
    return found

def unpacking():
    a, (b, c), *d = 1, (2, 3), 4, 5
    x = y = [a, b]
    x.append(c)
    first, *rest = "hello"
    return a, b, c, d, y, first, rest

def comprehensions(n):
    sq = {i: i * i for i in range(n) if i % 2 == 0}
    pairs = [(a, b) for a in range(n) for b in range(a) if (a + b) % 3 == 0]
    nested = [[c for c in w if c != "a"] for w in ["banana", "apple"]]
    s = {c.upper() for c in "mississippi"}
    return sq, pairs, nested, sorted(s), sum(len(w) for w in ["ab", "cde"])

def fstrings(x, name):
    return [f"{x}", f"{x:>6}", f"{x:06d}", f"{name!r}", f"{name:^9}|", f"{x:,}", f"{x:x}",
            f"{name}{x}{name}", f"{[x, name]}", f"{x + 1:{'>'}{4}}"]

def percent(x):
    return ["%d-%s" % (x, "a"), "%5.2s|" % "abc", "%x" % x, "%(k)s" % {"k": x}, "%%"]

def strings(s):
    return (s.upper(), s.lower(), s.split(), s.split("a", 1), s.strip(), s.replace("a", "4"),
            s.find("b"), s.count("a"), s.startswith("ba"), s.endswith("a"), s.zfill(12), s.title(),
            s.swapcase(), s.isalpha(), s[::-1], s[1:4], s[-2:])

def lists(xs):
    ys = xs.copy()
    ys.append(10)
    ys.extend([11, 12])
    ys.insert(1, 99)
    p = ys.pop()
    ys.reverse()
    ys.sort(key=lambda v: -v)
    ys[0] = -1
    ys[1:3] = [7]
    return ys, p, ys.index(7), ys.count(7), xs

def dicts(s):
    d = {}
    for c in s:
        d.setdefault(c, []).append(c)
    e = {k: len(v) for k, v in d.items()}
    e["z"] = e.get("z", 0) + 1
    return sorted(d), sorted(e.items()), sorted(e.values()), list(e.keys())[:2], e.pop("z")

def numbers(n):
    return (n // 3, n % 3, -n // 3, -n % 3, n ** 2, 2 ** n, n << 2, n >> 1, n & 5, n | 8, n ^ 3,
            ~n, abs(-n), divmod(n, 4), pow(n, 3, 7), min(n, 5), max(n, 5), bin(n), hex(n))

def chained(x):
    return [0 < x < 10, 0 < x > 5, x in [1, 2, 3] in [[1, 2, 3]], "a" < "b" < "c", str(x) not in "abc"]

def conditional(xs):
    return [("big" if x > 5 else "small") if x else "zero" for x in xs] + [x or -1 for x in xs]

def sets(a, b):
    a, b = set(a), set(b)
    return sorted(a | b), sorted(a & b), sorted(a - b), sorted(a ^ b), 3 in a

def aug_subscripts():
    d = {"a": 1, "b": [1]}
    g = [[1, 2], [3, 4]]
    d["a"] += 5
    d["b"] += [2]
    d["b"] *= 2
    g[1][0] -= 10
    g[0] += [9]
    g[0][1:2] += [5, 6]
    s = ["x"]
    s[0] += "y"
    return d, g, s

def helper(x):
    return x * 2

def uses_helpers(xs):
    return [helper(x) for x in xs], sorted(xs, key=helper), max(xs, key=helper), list(map_like(xs))

def map_like(xs):
    return [helper(helper(x)) for x in xs]

def recursive_sum(xs):
    if not xs:
        return 0
    return xs[0] + recursive_sum(xs[1:])

def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)

def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)

def mutual(n):
    return is_even(n), is_odd(n)

def strings_building(n):
    s = ""
    t = ""
    for i in range(n):
        s += str(i)
        t = t + chr(97 + i % 26)
    u = ""
    for c in s:
        u = c + u
    return s, t, u

def scoping(xs):
    x = 100
    ys = [x for x in xs]
    f = lambda x: x + 1
    return x, ys, [f(v) for v in xs]

def early_returns(xs):
    for i, x in enumerate(xs):
        if x < 0:
            return "neg", i
    for a, b in zip(xs, xs[1:]):
        if a > b:
            return "desc", a
    return "ok", len(xs)

def while_loops(n):
    out = []
    i = 0
    while True:
        i += 1
        if i % 2:
            continue
        if i > n:
            break
        out.append(i)
    return out
'''

TRICKY_CALLS = [
    ("loops_with_else", ()), ("nested_breaks", ()), ("unpacking", ()), ("comprehensions", (7,)),
    ("fstrings", (1234, "ab")), ("percent", (255,)), ("strings", ("banana split",)),
    ("lists", ([3, 1, 2],)), ("dicts", ("abracadabra",)), ("numbers", (13,)), ("chained", (3,)),
    ("conditional", ([0, 3, 8],)), ("sets", ("abc", "bcd")), ("aug_subscripts", ()),
    ("uses_helpers", ([3, -1, 2],)), ("recursive_sum", (list(range(30)),)), ("mutual", (21,)),
    ("strings_building", (30,)), ("scoping", ([1, 2],)), ("early_returns", ([1, 2, 5, 3],)),
    ("early_returns", ([1, -2],)), ("early_returns", ([1, 2, 3],)), ("while_loops", (9,)),
]

FAILING = '''
def index_error(xs):
    a = 1
    return xs[a + 10]

def key_error(d):
    total = 0
    for k in "abc":
        total += d[k]
    return total

def div_zero(n):
    m = n - n
    return n // m

def asserts(n):
    assert n > 0, f"n must be positive, got {n}"
    return n

def type_error(s):
    return s + 1

def multi_line(xs):
    y = (
        len(xs)
        + xs[5]
    )
    return y

def deep(n):
    return deep(n + 1)

def deep_ok(n):
    if n == 0:
        return 0
    return 1 + deep_ok(n - 1)
'''
