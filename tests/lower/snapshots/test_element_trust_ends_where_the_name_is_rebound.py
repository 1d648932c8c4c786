# Snapshot of the code emitted for tests/lower/test_instrument.py::test_element_trust_ends_where_the_name_is_rebound.
# Generated; regenerate with: RACESL_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q -p no:randomly tests/lower/test_instrument.py
# ruff: noqa


# ==============================================================================
# case 0: entry keeps _races_g_mod
# int_params: f: ['k', 'xs[]']
# input:
#   def f(xs, k):
#       xs = g(xs)
#       return [x % k for x in xs]

def f(_races_fuel, _races_depth, xs, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    xs = g(_races_fuel, _races_depth + 1, xs)
    _races_f = _races_fuel[0]
    _races_i2 = xs
    try:
        _races_n1 = _races_len(_races_i2)
    except _races_LEN_ERRORS:
        _races_n1 = _races_INF
    if _races_n1 <= _races_f:
        _races_f -= _races_n1
        _races_fuel[0] = _races_f
        return [x % k if _races_type(x) is _races_int else _races_g_mod(x, k) for x in _races_i2]
    else:
        _races_fuel[0] = _races_f
        return [x % k if _races_type(x) is _races_int else _races_g_mod(x, k) for x in _races_tick_iter(_races_fuel, _races_i2)]

def _races_entry__f(xs, k, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs, k)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_fuel[0] = _races_f
    xs = g(_races_fuel, _races_depth + 1, xs)
    _races_f = _races_fuel[0]
    _races_i4 = xs
    try:
        _races_n3 = _races_len(_races_i4)
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        _races_r = [x % k if _races_type(x) is _races_int else _races_g_mod(x, k) for x in _races_i4]
        _races_meter[0] = _races_f
        return _races_r
    else:
        _races_fuel[0] = _races_f
        return [x % k if _races_type(x) is _races_int else _races_g_mod(x, k) for x in _races_tick_iter(_races_fuel, _races_i4)]


# ==============================================================================
# case 1: entry keeps _races_g_mod
# int_params: f: ['k', 'xs[]']
# input:
#   def f(xs, k):
#       xs += g(k)
#       return [x % k for x in xs]

def f(_races_fuel, _races_depth, xs, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    if _races_type(xs) is _races_str:
        xs += g(_races_fuel, _races_depth + 1, k)
        if _races_len(xs) > 100000:
            _races_g_post(xs)
    else:
        xs = _races_g_iadd(xs, g(_races_fuel, _races_depth + 1, k))
    _races_f = _races_fuel[0]
    _races_i2 = xs
    try:
        _races_n1 = _races_len(_races_i2)
    except _races_LEN_ERRORS:
        _races_n1 = _races_INF
    if _races_n1 <= _races_f:
        _races_f -= _races_n1
        _races_fuel[0] = _races_f
        return [x % k if _races_type(x) is _races_int else _races_g_mod(x, k) for x in _races_i2]
    else:
        _races_fuel[0] = _races_f
        return [x % k if _races_type(x) is _races_int else _races_g_mod(x, k) for x in _races_tick_iter(_races_fuel, _races_i2)]

def _races_entry__f(xs, k, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs, k)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_fuel[0] = _races_f
    if _races_type(xs) is _races_str:
        xs += g(_races_fuel, _races_depth + 1, k)
        if _races_len(xs) > 100000:
            _races_g_post(xs)
    else:
        xs = _races_g_iadd(xs, g(_races_fuel, _races_depth + 1, k))
    _races_f = _races_fuel[0]
    _races_i4 = xs
    try:
        _races_n3 = _races_len(_races_i4)
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        _races_r = [x % k if _races_type(x) is _races_int else _races_g_mod(x, k) for x in _races_i4]
        _races_meter[0] = _races_f
        return _races_r
    else:
        _races_fuel[0] = _races_f
        return [x % k if _races_type(x) is _races_int else _races_g_mod(x, k) for x in _races_tick_iter(_races_fuel, _races_i4)]


# ==============================================================================
# case 2: entry keeps _races_g_mod
# int_params: f: ['k', 'xs[]']
# input:
#   def f(xs, ys, k):
#       return [x % k for xs in ys for x in xs]

def f(_races_fuel, _races_depth, xs, ys, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_i2 = ys
    try:
        _races_n1 = _races_len(_races_i2)
    except _races_LEN_ERRORS:
        _races_n1 = _races_INF
    if _races_n1 <= _races_f and (_races_n3 := _races_rows_len(_races_i2, _races_EACH_SIZED_LIST)) <= _races_f - _races_n1:
        _races_f -= _races_n1 + _races_n3
        _races_fuel[0] = _races_f
        return [x % k if _races_type(x) is _races_int else _races_g_mod(x, k) for xs in _races_i2 for x in xs]
    else:
        _races_fuel[0] = _races_f
        return [x % k if _races_type(x) is _races_int else _races_g_mod(x, k) for xs in _races_tick_iter(_races_fuel, _races_i2) for x in _races_tick_iter(_races_fuel, xs)]

def _races_entry__f(xs, ys, k, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs, ys, k)
    _races_fuel = _races_meter
    _races_i5 = ys
    try:
        _races_n4 = _races_len(_races_i5)
    except _races_LEN_ERRORS:
        _races_n4 = _races_INF
    if _races_n4 <= _races_f and (_races_n6 := _races_rows_len(_races_i5, _races_EACH_SIZED_LIST)) <= _races_f - _races_n4:
        _races_f -= _races_n4 + _races_n6
        _races_r = [x % k if _races_type(x) is _races_int else _races_g_mod(x, k) for xs in _races_i5 for x in xs]
        _races_meter[0] = _races_f
        return _races_r
    else:
        _races_fuel[0] = _races_f
        return [x % k if _races_type(x) is _races_int else _races_g_mod(x, k) for xs in _races_tick_iter(_races_fuel, _races_i5) for x in _races_tick_iter(_races_fuel, xs)]


# ==============================================================================
# case 3: entry keeps _races_g_mod
# int_params: f: ['k', 'xs[]']
# input:
#   def f(xs, k):
#       return (lambda xs: [x % k for x in xs])(g(k))

def f(_races_fuel, _races_depth, xs, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return (lambda xs: _races_lambda_tick(_races_fuel) or [x % k if _races_type(x) is _races_int else _races_g_mod(x, k) for x in _races_tick_iter(_races_fuel, xs)])(g(_races_fuel, _races_depth + 1, k))

def _races_entry__f(xs, k, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs, k)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_fuel[0] = _races_f
    return (lambda xs: _races_lambda_tick(_races_fuel) or [x % k if _races_type(x) is _races_int else _races_g_mod(x, k) for x in _races_tick_iter(_races_fuel, xs)])(g(_races_fuel, _races_depth + 1, k))


# ==============================================================================
# case 4: entry keeps _races_g_mod
# int_params: f: ['k', 'xs[]']
# input:
#   def f(xs, ys, k):
#       return [x % k for x in xs for x in ys]

def f(_races_fuel, _races_depth, xs, ys, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_i2 = xs
    try:
        _races_n1 = _races_len(_races_i2)
    except _races_LEN_ERRORS:
        _races_n1 = _races_INF
    if _races_n1 <= _races_f:
        _races_f -= _races_n1
        _races_fuel[0] = _races_f
        return [x % k if _races_type(x) is _races_int else _races_g_mod(x, k) for x in _races_i2 for x in _races_tick_iter(_races_fuel, ys)]
    else:
        _races_fuel[0] = _races_f
        return [x % k if _races_type(x) is _races_int else _races_g_mod(x, k) for x in _races_tick_iter(_races_fuel, _races_i2) for x in _races_tick_iter(_races_fuel, ys)]

def _races_entry__f(xs, ys, k, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs, ys, k)
    _races_fuel = _races_meter
    _races_i4 = xs
    try:
        _races_n3 = _races_len(_races_i4)
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        _races_fuel[0] = _races_f
        return [x % k if _races_type(x) is _races_int else _races_g_mod(x, k) for x in _races_i4 for x in _races_tick_iter(_races_fuel, ys)]
    else:
        _races_fuel[0] = _races_f
        return [x % k if _races_type(x) is _races_int else _races_g_mod(x, k) for x in _races_tick_iter(_races_fuel, _races_i4) for x in _races_tick_iter(_races_fuel, ys)]
