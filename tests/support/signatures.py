"""Two small modules whose signature graph the graph and CLI tests draw: `geo` (shapes,
newtypes, proved and guarded edges) and `other` (a nominal `Grid` of its own)."""

GEO = '''\
module geo

type Nat = Int where 0 <= it <= 100
type Digit = Int where 0 <= it <= 9
newtype Grid = List[List[Digit]] where 1 <= len(it) <= 4
newtype Board = List[List[Digit]] where 1 <= len(it) <= 4

def grid_ok(n: Int, g: Grid) -> Bool:
    return len(g) >= 1

env inc(n: Nat) -> Nat:
    """Add one to n, wrapping at 100."""
    return (n + 1) % 101

env make_grid(n: Nat) -> Grid:
    """Make a one-row grid holding the last digit of n."""
    return [[n % 10]]

env rows(g: Grid) -> Nat:
    """Count the rows of g."""
    return len(g)

env flip(g: Grid) -> Grid:
    """Reverse the row order of g."""
    return g[::-1]

env plain(g: List[List[Int]]) -> List[List[Int]]:
    """Reverse the row order of g."""
    return g[::-1]

env plain_rows(g: List[List[Int]]) -> Nat:
    """Count the rows of g, at most 100."""
    return min(len(g), 100)

env board(b: Board) -> Board:
    """Reverse the row order of b."""
    return b[::-1]

env evens(n: Nat) -> Nat where it % 2 == 0:
    """Round n down to an even number."""
    return n - n % 2

env anyint(n: Int) -> Int:
    """Return n plus one."""
    return n + 1

env small(n: Nat) -> Int where 0 <= it <= 5:
    """Return n modulo 6."""
    return n % 6

env high(n: Nat) -> Int where 200 <= it <= 300:
    """Return 200 plus n."""
    return 200 + n

env digits(n: Nat) -> List[Digit]:
    """The decimal digits of n."""
    return [int(c) for c in str(n)]

env sum_digits(xs: List[Digit]) -> Nat:
    """The sum of the list xs."""
    return sum(xs)

env plain_list(n: Nat) -> List[Int]:
    """The list holding n."""
    return [n]

env word(n: Nat) -> Str where it.isalpha():
    """The letter a repeated n % 5 + 1 times."""
    return "a" * (n % 5 + 1)

env lower(s: Str where it.islower()) -> Nat:
    """The length of s, at most 100."""
    return min(len(s), 100)

@verify(grid_ok)
env any_grid(n: Nat) -> Grid:
    """Give any grid with at least one row."""
    return [[0]]
'''

OTHER = '''\
module other

newtype Grid = List[List[Int where 0 <= it <= 9]] where 1 <= len(it) <= 4

env other_rows(g: Grid) -> Tuple[Int, Int]:
    """Count the rows of g; pair the count with 0."""
    return (len(g), 0)
'''


def write_modules(folder):
    """Write `geo` and `other` into `folder` (a pathlib.Path); returns the folder."""
    (folder / "geo.races").write_text(GEO, encoding="utf-8")
    (folder / "other.races").write_text(OTHER, encoding="utf-8")
    return folder


def signature_graph(folder):
    """(library, signature graph without a solver) of the modules in `folder`."""
    from racesl.graph.signature import SignatureGraph
    from racesl.library import load

    lib = load([folder])
    return lib, SignatureGraph(lib.envs.values())
