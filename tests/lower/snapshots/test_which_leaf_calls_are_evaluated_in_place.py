# Snapshot of the code emitted for tests/lower/test_instrument.py::test_which_leaf_calls_are_evaluated_in_place.
# Generated; regenerate with: RACESL_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q -p no:randomly tests/lower/test_instrument.py
# ruff: noqa


# ==============================================================================
# case 0: inlined=True
# input:
#
#   def twice(k):
#       return k + k
#
#   def wrapped(k):
#       return twice(k)
#
#   def push(xs, x):
#       return xs.append(x)
#
#   def f(xs):
#       return [twice(x) for x in xs]

def twice(_races_fuel, _races_depth, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_t1 if _races_type((_races_t1 := (k + k))) not in _races_SEQ or _races_len(_races_t1) <= 100000 else _races_g_post(_races_t1)

def _races_entry__twice(k, _races_wall=None, _races_f=0, _races_meter=None):
    return _races_t2 if _races_type((_races_t2 := (k + k))) not in _races_SEQ or _races_len(_races_t2) <= 100000 else _races_g_post(_races_t2)

def wrapped(_races_fuel, _races_depth, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return twice(_races_fuel, _races_depth + 1, k)

def _races_entry__wrapped(k, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(wrapped, _races_wall, _races_f, _races_meter, k)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_fuel[0] = _races_f
    return twice(_races_fuel, _races_depth + 1, k)

def push(_races_fuel, _races_depth, xs, x):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return xs.append(x)

def _races_entry__push(xs, x, _races_wall=None, _races_f=0, _races_meter=None):
    return xs.append(x)

def f(_races_fuel, _races_depth, xs):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_i4 = xs
    try:
        _races_n3 = _races_len(_races_i4)
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 * 2 <= _races_f:
        _races_f -= _races_n3 * 2
        _races_fuel[0] = _races_f
        return [x + x if _races_type(x) is _races_int else _races_g_add(x, x) for x in _races_i4]
    else:
        _races_fuel[0] = _races_f
        return [twice(_races_fuel, _races_depth + 1, x) for x in _races_tick_iter(_races_fuel, _races_i4)]

def _races_entry__f(xs, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_i6 = xs
    try:
        _races_n5 = _races_len(_races_i6)
    except _races_LEN_ERRORS:
        _races_n5 = _races_INF
    if _races_n5 * 2 <= _races_f:
        _races_f -= _races_n5 * 2
        _races_r = [x + x if _races_type(x) is _races_int else _races_g_add(x, x) for x in _races_i6]
        _races_meter[0] = _races_f
        return _races_r
    else:
        _races_fuel[0] = _races_f
        return [twice(_races_fuel, _races_depth + 1, x) for x in _races_tick_iter(_races_fuel, _races_i6)]


# ==============================================================================
# case 1: inlined=True
# input:
#
#   def twice(k):
#       return k + k
#
#   def wrapped(k):
#       return twice(k)
#
#   def push(xs, x):
#       return xs.append(x)
#
#   def f(xs):
#       return '-'.join(str(twice(x)) for x in xs)

def twice(_races_fuel, _races_depth, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_t1 if _races_type((_races_t1 := (k + k))) not in _races_SEQ or _races_len(_races_t1) <= 100000 else _races_g_post(_races_t1)

def _races_entry__twice(k, _races_wall=None, _races_f=0, _races_meter=None):
    return _races_t2 if _races_type((_races_t2 := (k + k))) not in _races_SEQ or _races_len(_races_t2) <= 100000 else _races_g_post(_races_t2)

def wrapped(_races_fuel, _races_depth, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return twice(_races_fuel, _races_depth + 1, k)

def _races_entry__wrapped(k, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(wrapped, _races_wall, _races_f, _races_meter, k)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_fuel[0] = _races_f
    return twice(_races_fuel, _races_depth + 1, k)

def push(_races_fuel, _races_depth, xs, x):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return xs.append(x)

def _races_entry__push(xs, x, _races_wall=None, _races_f=0, _races_meter=None):
    return xs.append(x)

def f(_races_fuel, _races_depth, xs):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_i4 = xs
    try:
        _races_n3 = _races_len(_races_i4)
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 * 2 <= _races_f:
        _races_f -= _races_n3 * 2
        _races_fuel[0] = _races_f
        return _races_g_join('-', (str(x + x if _races_type(x) is _races_int else _races_g_add(x, x)) for x in _races_i4))
    else:
        _races_fuel[0] = _races_f
        return _races_g_join('-', (str(twice(_races_fuel, _races_depth + 1, x)) for x in _races_tick_iter(_races_fuel, _races_i4)))

def _races_entry__f(xs, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_i6 = xs
    try:
        _races_n5 = _races_len(_races_i6)
    except _races_LEN_ERRORS:
        _races_n5 = _races_INF
    if _races_n5 * 2 <= _races_f:
        _races_f -= _races_n5 * 2
        _races_r = _races_g_join('-', (str(x + x if _races_type(x) is _races_int else _races_g_add(x, x)) for x in _races_i6))
        _races_meter[0] = _races_f
        return _races_r
    else:
        _races_fuel[0] = _races_f
        return _races_g_join('-', (str(twice(_races_fuel, _races_depth + 1, x)) for x in _races_tick_iter(_races_fuel, _races_i6)))


# ==============================================================================
# case 2: inlined=True
# input:
#
#   def twice(k):
#       return k + k
#
#   def wrapped(k):
#       return twice(k)
#
#   def push(xs, x):
#       return xs.append(x)
#
#   def f(xs):
#       return [x for x in xs if twice(x) > 2]

def twice(_races_fuel, _races_depth, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_t1 if _races_type((_races_t1 := (k + k))) not in _races_SEQ or _races_len(_races_t1) <= 100000 else _races_g_post(_races_t1)

def _races_entry__twice(k, _races_wall=None, _races_f=0, _races_meter=None):
    return _races_t2 if _races_type((_races_t2 := (k + k))) not in _races_SEQ or _races_len(_races_t2) <= 100000 else _races_g_post(_races_t2)

def wrapped(_races_fuel, _races_depth, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return twice(_races_fuel, _races_depth + 1, k)

def _races_entry__wrapped(k, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(wrapped, _races_wall, _races_f, _races_meter, k)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_fuel[0] = _races_f
    return twice(_races_fuel, _races_depth + 1, k)

def push(_races_fuel, _races_depth, xs, x):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return xs.append(x)

def _races_entry__push(xs, x, _races_wall=None, _races_f=0, _races_meter=None):
    return xs.append(x)

def f(_races_fuel, _races_depth, xs):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_i4 = xs
    try:
        _races_n3 = _races_len(_races_i4)
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 * 2 <= _races_f:
        _races_f -= _races_n3 * 2
        _races_fuel[0] = _races_f
        return [x for x in _races_i4 if (x + x if _races_type(x) is _races_int else _races_g_add(x, x)) > 2]
    else:
        _races_fuel[0] = _races_f
        return [x for x in _races_tick_iter(_races_fuel, _races_i4) if twice(_races_fuel, _races_depth + 1, x) > 2]

def _races_entry__f(xs, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_i6 = xs
    try:
        _races_n5 = _races_len(_races_i6)
    except _races_LEN_ERRORS:
        _races_n5 = _races_INF
    if _races_n5 * 2 <= _races_f:
        _races_f -= _races_n5 * 2
        _races_r = [x for x in _races_i6 if (x + x if _races_type(x) is _races_int else _races_g_add(x, x)) > 2]
        _races_meter[0] = _races_f
        return _races_r
    else:
        _races_fuel[0] = _races_f
        return [x for x in _races_tick_iter(_races_fuel, _races_i6) if twice(_races_fuel, _races_depth + 1, x) > 2]


# ==============================================================================
# case 3: inlined=False
# input:
#
#   def twice(k):
#       return k + k
#
#   def wrapped(k):
#       return twice(k)
#
#   def push(xs, x):
#       return xs.append(x)
#
#   def f(xs):
#       return [twice(x) for x in xs if x > 1]

def twice(_races_fuel, _races_depth, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_t1 if _races_type((_races_t1 := (k + k))) not in _races_SEQ or _races_len(_races_t1) <= 100000 else _races_g_post(_races_t1)

def _races_entry__twice(k, _races_wall=None, _races_f=0, _races_meter=None):
    return _races_t2 if _races_type((_races_t2 := (k + k))) not in _races_SEQ or _races_len(_races_t2) <= 100000 else _races_g_post(_races_t2)

def wrapped(_races_fuel, _races_depth, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return twice(_races_fuel, _races_depth + 1, k)

def _races_entry__wrapped(k, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(wrapped, _races_wall, _races_f, _races_meter, k)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_fuel[0] = _races_f
    return twice(_races_fuel, _races_depth + 1, k)

def push(_races_fuel, _races_depth, xs, x):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return xs.append(x)

def _races_entry__push(xs, x, _races_wall=None, _races_f=0, _races_meter=None):
    return xs.append(x)

def f(_races_fuel, _races_depth, xs):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_i4 = xs
    try:
        _races_n3 = _races_len(_races_i4)
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        _races_fuel[0] = _races_f
        return [twice(_races_fuel, _races_depth + 1, x) for x in _races_i4 if x > 1]
    else:
        _races_fuel[0] = _races_f
        return [twice(_races_fuel, _races_depth + 1, x) for x in _races_tick_iter(_races_fuel, _races_i4) if x > 1]

def _races_entry__f(xs, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_i6 = xs
    try:
        _races_n5 = _races_len(_races_i6)
    except _races_LEN_ERRORS:
        _races_n5 = _races_INF
    if _races_n5 <= _races_f:
        _races_f -= _races_n5
        _races_fuel[0] = _races_f
        return [twice(_races_fuel, _races_depth + 1, x) for x in _races_i6 if x > 1]
    else:
        _races_fuel[0] = _races_f
        return [twice(_races_fuel, _races_depth + 1, x) for x in _races_tick_iter(_races_fuel, _races_i6) if x > 1]


# ==============================================================================
# case 4: inlined=False
# input:
#
#   def twice(k):
#       return k + k
#
#   def wrapped(k):
#       return twice(k)
#
#   def push(xs, x):
#       return xs.append(x)
#
#   def f(xs):
#       return [twice(x) if x else 0 for x in xs]

def twice(_races_fuel, _races_depth, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_t1 if _races_type((_races_t1 := (k + k))) not in _races_SEQ or _races_len(_races_t1) <= 100000 else _races_g_post(_races_t1)

def _races_entry__twice(k, _races_wall=None, _races_f=0, _races_meter=None):
    return _races_t2 if _races_type((_races_t2 := (k + k))) not in _races_SEQ or _races_len(_races_t2) <= 100000 else _races_g_post(_races_t2)

def wrapped(_races_fuel, _races_depth, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return twice(_races_fuel, _races_depth + 1, k)

def _races_entry__wrapped(k, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(wrapped, _races_wall, _races_f, _races_meter, k)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_fuel[0] = _races_f
    return twice(_races_fuel, _races_depth + 1, k)

def push(_races_fuel, _races_depth, xs, x):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return xs.append(x)

def _races_entry__push(xs, x, _races_wall=None, _races_f=0, _races_meter=None):
    return xs.append(x)

def f(_races_fuel, _races_depth, xs):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_i4 = xs
    try:
        _races_n3 = _races_len(_races_i4)
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        _races_fuel[0] = _races_f
        return [twice(_races_fuel, _races_depth + 1, x) if x else 0 for x in _races_i4]
    else:
        _races_fuel[0] = _races_f
        return [twice(_races_fuel, _races_depth + 1, x) if x else 0 for x in _races_tick_iter(_races_fuel, _races_i4)]

def _races_entry__f(xs, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_i6 = xs
    try:
        _races_n5 = _races_len(_races_i6)
    except _races_LEN_ERRORS:
        _races_n5 = _races_INF
    if _races_n5 <= _races_f:
        _races_f -= _races_n5
        _races_fuel[0] = _races_f
        return [twice(_races_fuel, _races_depth + 1, x) if x else 0 for x in _races_i6]
    else:
        _races_fuel[0] = _races_f
        return [twice(_races_fuel, _races_depth + 1, x) if x else 0 for x in _races_tick_iter(_races_fuel, _races_i6)]


# ==============================================================================
# case 5: inlined=False
# input:
#
#   def twice(k):
#       return k + k
#
#   def wrapped(k):
#       return twice(k)
#
#   def push(xs, x):
#       return xs.append(x)
#
#   def f(xs):
#       return [twice(x + 1) for x in xs]

def twice(_races_fuel, _races_depth, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_t1 if _races_type((_races_t1 := (k + k))) not in _races_SEQ or _races_len(_races_t1) <= 100000 else _races_g_post(_races_t1)

def _races_entry__twice(k, _races_wall=None, _races_f=0, _races_meter=None):
    return _races_t2 if _races_type((_races_t2 := (k + k))) not in _races_SEQ or _races_len(_races_t2) <= 100000 else _races_g_post(_races_t2)

def wrapped(_races_fuel, _races_depth, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return twice(_races_fuel, _races_depth + 1, k)

def _races_entry__wrapped(k, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(wrapped, _races_wall, _races_f, _races_meter, k)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_fuel[0] = _races_f
    return twice(_races_fuel, _races_depth + 1, k)

def push(_races_fuel, _races_depth, xs, x):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return xs.append(x)

def _races_entry__push(xs, x, _races_wall=None, _races_f=0, _races_meter=None):
    return xs.append(x)

def f(_races_fuel, _races_depth, xs):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_i4 = xs
    try:
        _races_n3 = _races_len(_races_i4)
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        _races_fuel[0] = _races_f
        return [twice(_races_fuel, _races_depth + 1, x + 1) for x in _races_i4]
    else:
        _races_fuel[0] = _races_f
        return [twice(_races_fuel, _races_depth + 1, x + 1) for x in _races_tick_iter(_races_fuel, _races_i4)]

def _races_entry__f(xs, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_i6 = xs
    try:
        _races_n5 = _races_len(_races_i6)
    except _races_LEN_ERRORS:
        _races_n5 = _races_INF
    if _races_n5 <= _races_f:
        _races_f -= _races_n5
        _races_fuel[0] = _races_f
        return [twice(_races_fuel, _races_depth + 1, x + 1) for x in _races_i6]
    else:
        _races_fuel[0] = _races_f
        return [twice(_races_fuel, _races_depth + 1, x + 1) for x in _races_tick_iter(_races_fuel, _races_i6)]


# ==============================================================================
# case 6: inlined=False
# input:
#
#   def twice(k):
#       return k + k
#
#   def wrapped(k):
#       return twice(k)
#
#   def push(xs, x):
#       return xs.append(x)
#
#   def f(xs):
#       return [wrapped(x) for x in xs]

def twice(_races_fuel, _races_depth, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_t1 if _races_type((_races_t1 := (k + k))) not in _races_SEQ or _races_len(_races_t1) <= 100000 else _races_g_post(_races_t1)

def _races_entry__twice(k, _races_wall=None, _races_f=0, _races_meter=None):
    return _races_t2 if _races_type((_races_t2 := (k + k))) not in _races_SEQ or _races_len(_races_t2) <= 100000 else _races_g_post(_races_t2)

def wrapped(_races_fuel, _races_depth, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return twice(_races_fuel, _races_depth + 1, k)

def _races_entry__wrapped(k, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(wrapped, _races_wall, _races_f, _races_meter, k)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_fuel[0] = _races_f
    return twice(_races_fuel, _races_depth + 1, k)

def push(_races_fuel, _races_depth, xs, x):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return xs.append(x)

def _races_entry__push(xs, x, _races_wall=None, _races_f=0, _races_meter=None):
    return xs.append(x)

def f(_races_fuel, _races_depth, xs):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_i4 = xs
    try:
        _races_n3 = _races_len(_races_i4) if _races_type(_races_i4) is not _races_list else _races_INF
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        _races_fuel[0] = _races_f
        return [wrapped(_races_fuel, _races_depth + 1, x) for x in _races_i4]
    else:
        _races_fuel[0] = _races_f
        return [wrapped(_races_fuel, _races_depth + 1, x) for x in _races_tick_iter(_races_fuel, _races_i4)]

def _races_entry__f(xs, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_i6 = xs
    try:
        _races_n5 = _races_len(_races_i6) if _races_type(_races_i6) is not _races_list else _races_INF
    except _races_LEN_ERRORS:
        _races_n5 = _races_INF
    if _races_n5 <= _races_f:
        _races_f -= _races_n5
        _races_fuel[0] = _races_f
        return [wrapped(_races_fuel, _races_depth + 1, x) for x in _races_i6]
    else:
        _races_fuel[0] = _races_f
        return [wrapped(_races_fuel, _races_depth + 1, x) for x in _races_tick_iter(_races_fuel, _races_i6)]


# ==============================================================================
# case 7: inlined=False
# input:
#
#   def twice(k):
#       return k + k
#
#   def wrapped(k):
#       return twice(k)
#
#   def push(xs, x):
#       return xs.append(x)
#
#   def f(xs):
#       return [twice(x) for x in xs for y in xs]

def twice(_races_fuel, _races_depth, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_t1 if _races_type((_races_t1 := (k + k))) not in _races_SEQ or _races_len(_races_t1) <= 100000 else _races_g_post(_races_t1)

def _races_entry__twice(k, _races_wall=None, _races_f=0, _races_meter=None):
    return _races_t2 if _races_type((_races_t2 := (k + k))) not in _races_SEQ or _races_len(_races_t2) <= 100000 else _races_g_post(_races_t2)

def wrapped(_races_fuel, _races_depth, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return twice(_races_fuel, _races_depth + 1, k)

def _races_entry__wrapped(k, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(wrapped, _races_wall, _races_f, _races_meter, k)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_fuel[0] = _races_f
    return twice(_races_fuel, _races_depth + 1, k)

def push(_races_fuel, _races_depth, xs, x):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return xs.append(x)

def _races_entry__push(xs, x, _races_wall=None, _races_f=0, _races_meter=None):
    return xs.append(x)

def f(_races_fuel, _races_depth, xs):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_i4 = xs
    try:
        _races_n3 = _races_len(_races_i4)
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        _races_fuel[0] = _races_f
        return [twice(_races_fuel, _races_depth + 1, x) for x in _races_i4 for y in _races_tick_iter(_races_fuel, xs)]
    else:
        _races_fuel[0] = _races_f
        return [twice(_races_fuel, _races_depth + 1, x) for x in _races_tick_iter(_races_fuel, _races_i4) for y in _races_tick_iter(_races_fuel, xs)]

def _races_entry__f(xs, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_i6 = xs
    try:
        _races_n5 = _races_len(_races_i6)
    except _races_LEN_ERRORS:
        _races_n5 = _races_INF
    if _races_n5 <= _races_f:
        _races_f -= _races_n5
        _races_fuel[0] = _races_f
        return [twice(_races_fuel, _races_depth + 1, x) for x in _races_i6 for y in _races_tick_iter(_races_fuel, xs)]
    else:
        _races_fuel[0] = _races_f
        return [twice(_races_fuel, _races_depth + 1, x) for x in _races_tick_iter(_races_fuel, _races_i6) for y in _races_tick_iter(_races_fuel, xs)]


# ==============================================================================
# case 8: inlined=True
# input:
#
#   def twice(k):
#       return k + k
#
#   def wrapped(k):
#       return twice(k)
#
#   def push(xs, x):
#       return xs.append(x)
#
#   def f(xs):
#       return [x for x in xs if x in 'aeiou']

def twice(_races_fuel, _races_depth, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_t1 if _races_type((_races_t1 := (k + k))) not in _races_SEQ or _races_len(_races_t1) <= 100000 else _races_g_post(_races_t1)

def _races_entry__twice(k, _races_wall=None, _races_f=0, _races_meter=None):
    return _races_t2 if _races_type((_races_t2 := (k + k))) not in _races_SEQ or _races_len(_races_t2) <= 100000 else _races_g_post(_races_t2)

def wrapped(_races_fuel, _races_depth, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return twice(_races_fuel, _races_depth + 1, k)

def _races_entry__wrapped(k, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(wrapped, _races_wall, _races_f, _races_meter, k)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_fuel[0] = _races_f
    return twice(_races_fuel, _races_depth + 1, k)

def push(_races_fuel, _races_depth, xs, x):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return xs.append(x)

def _races_entry__push(xs, x, _races_wall=None, _races_f=0, _races_meter=None):
    return xs.append(x)

def f(_races_fuel, _races_depth, xs):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_i4 = xs
    try:
        _races_n3 = _races_len(_races_i4)
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 * 6 <= _races_f:
        _races_f -= _races_n3 * 6
        _races_fuel[0] = _races_f
        return [x for x in _races_i4 if x in 'aeiou']
    else:
        _races_fuel[0] = _races_f
        return [x for x in _races_tick_iter(_races_fuel, _races_i4) if x in _races_in_arg(_races_fuel, 'aeiou')]

def _races_entry__f(xs, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs)
    _races_fuel = _races_meter
    _races_i6 = xs
    try:
        _races_n5 = _races_len(_races_i6)
    except _races_LEN_ERRORS:
        _races_n5 = _races_INF
    if _races_n5 * 6 <= _races_f:
        _races_f -= _races_n5 * 6
        _races_r = [x for x in _races_i6 if x in 'aeiou']
        _races_meter[0] = _races_f
        return _races_r
    else:
        _races_fuel[0] = _races_f
        return [x for x in _races_tick_iter(_races_fuel, _races_i6) if x in _races_in_arg(_races_fuel, 'aeiou')]
