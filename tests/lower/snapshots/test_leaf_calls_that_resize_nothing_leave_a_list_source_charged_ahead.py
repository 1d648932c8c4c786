# Snapshot of the code emitted for tests/lower/test_instrument.py::test_leaf_calls_that_resize_nothing_leave_a_list_source_charged_ahead.
# Generated; regenerate with: RACESL_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q -p no:randomly tests/lower/test_instrument.py
# ruff: noqa


# ==============================================================================
# case 0: charged_whole=True
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
#   def f(xs, ys):
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

def f(_races_fuel, _races_depth, xs, ys):
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

def _races_entry__f(xs, ys, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs, ys)
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
# case 1: charged_whole=False
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
#   def f(xs, ys):
#       return [push(ys, x) for x in xs]

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

def f(_races_fuel, _races_depth, xs, ys):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_i4 = xs
    try:
        _races_n3 = _races_len(_races_i4) if _races_type(_races_i4) is not _races_list else _races_INF
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 * 2 <= _races_f:
        _races_f -= _races_n3 * 2
        _races_fuel[0] = _races_f
        return [ys.append(x) for x in _races_i4]
    else:
        _races_fuel[0] = _races_f
        return [push(_races_fuel, _races_depth + 1, ys, x) for x in _races_tick_iter(_races_fuel, _races_i4)]

def _races_entry__f(xs, ys, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs, ys)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_i6 = xs
    try:
        _races_n5 = _races_len(_races_i6) if _races_type(_races_i6) is not _races_list else _races_INF
    except _races_LEN_ERRORS:
        _races_n5 = _races_INF
    if _races_n5 * 2 <= _races_f:
        _races_f -= _races_n5 * 2
        _races_r = [ys.append(x) for x in _races_i6]
        _races_meter[0] = _races_f
        return _races_r
    else:
        _races_fuel[0] = _races_f
        return [push(_races_fuel, _races_depth + 1, ys, x) for x in _races_tick_iter(_races_fuel, _races_i6)]
