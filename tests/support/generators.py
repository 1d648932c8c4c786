"""Generator modules the check and compile tests share."""

# a generator whose helper agrees with its body at levels 0-2 and adds 1 to the answer from
# level 3 on: check must sample that level (E612), compile must never write such a pair
LIAR = '''\
def draw(rng, level) -> Tuple[List[Int where 0 <= it <= 20] where 2 <= len(it) <= 10, Int where 0 <= it <= 200]:
    xs = [rng.randint(0, 20) for _ in range(2 + level)]
    return (xs, total(xs, level))

def total(xs, level):
    s = sum(xs)
    if level >= 3:
        s += 1
    return s

@generate(draw)
env add_up(xs: List[Int where 0 <= it <= 20] where 2 <= len(it) <= 10) -> Int where 0 <= it <= 200:
    """Add up the numbers of xs."""
    return sum(xs)
'''
