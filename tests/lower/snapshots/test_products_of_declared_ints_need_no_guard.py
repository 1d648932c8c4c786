# Snapshot of the code emitted for tests/lower/test_instrument.py::test_products_of_declared_ints_need_no_guard.
# Generated; regenerate with: RACESL_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q -p no:randomly tests/lower/test_instrument.py
# ruff: noqa


# ==============================================================================
# case 0: entry guards []
# int_params: f: ['k', 'k~', 'm', 'n', 'n~', 'xs[]', 'xs[~']
# input:
#   def f(n, k):
#       return n * k % 7

def f(_races_fuel, _races_depth, n, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_g_mod(n * k if _races_type(n) is _races_int and -1073741823 < n < 1073741823 and (_races_type(k) is _races_int) and (-1073741823 < k < 1073741823) else _races_g_mul(n, k), 7)

def _races_entry__f(n, k, _races_wall=None, _races_f=0, _races_meter=None):
    return n * k % 7


# ==============================================================================
# case 1: entry guards []
# int_params: f: ['k', 'k~', 'm', 'n', 'n~', 'xs[]', 'xs[~']
# input:
#   def f(n, k):
#       return n ** 2 + (n << 5)

def f(_races_fuel, _races_depth, n, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_g_pow(n, 2) + _races_g_lshift(n, 5)

def _races_entry__f(n, k, _races_wall=None, _races_f=0, _races_meter=None):
    return n ** 2 + (n << 5)


# ==============================================================================
# case 2: entry guards []
# int_params: f: ['k', 'k~', 'm', 'n', 'n~', 'xs[]', 'xs[~']
# input:
#   def f(n, k):
#       return [(n + i) * (k - j) for i in range(n) for j in range(k)]

def f(_races_fuel, _races_depth, n, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_i2 = range(n)
    try:
        _races_n1 = _races_len(_races_i2)
    except _races_LEN_ERRORS:
        _races_n1 = _races_INF
    if _races_n1 <= _races_f:
        _races_f -= _races_n1
        _races_fuel[0] = _races_f
        return [_races_g_mul(n + i, k - j) for i in _races_i2 for j in _races_tick_iter(_races_fuel, range(k))]
    else:
        _races_fuel[0] = _races_f
        return [_races_g_mul(n + i, k - j) for i in _races_tick_iter(_races_fuel, _races_i2) for j in _races_tick_iter(_races_fuel, range(k))]

def _races_entry__f(n, k, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, n, k)
    _races_fuel = _races_meter
    _races_i4 = range(n)
    _races_n3 = n if n > 0 else 0
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        _races_fuel[0] = _races_f
        return [(n + i) * (k - j) for i in _races_i4 for j in _races_tick_iter(_races_fuel, range(k))]
    else:
        _races_fuel[0] = _races_f
        return [(n + i) * (k - j) for i in _races_tick_iter(_races_fuel, _races_i4) for j in _races_tick_iter(_races_fuel, range(k))]


# ==============================================================================
# case 3: entry guards []
# int_params: f: ['k', 'k~', 'm', 'n', 'n~', 'xs[]', 'xs[~']
# input:
#   def f(n, xs):
#       return [x * x * n for x in xs]

def f(_races_fuel, _races_depth, n, xs):
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
        return [_races_g_mul(x * x if _races_type(x) is _races_int and -1073741823 < x < 1073741823 else _races_g_mul(x, x), n) for x in _races_i2]
    else:
        _races_fuel[0] = _races_f
        return [_races_g_mul(x * x if _races_type(x) is _races_int and -1073741823 < x < 1073741823 else _races_g_mul(x, x), n) for x in _races_tick_iter(_races_fuel, _races_i2)]

def _races_entry__f(n, xs, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, n, xs)
    _races_fuel = _races_meter
    _races_i4 = xs
    try:
        _races_n3 = _races_len(_races_i4)
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        _races_r = [x * x * n for x in _races_i4]
        _races_meter[0] = _races_f
        return _races_r
    else:
        _races_fuel[0] = _races_f
        return [x * x * n for x in _races_tick_iter(_races_fuel, _races_i4)]


# ==============================================================================
# case 4: entry guards ['_races_g_mul']
# int_params: f: ['k', 'k~', 'm', 'n', 'n~', 'xs[]', 'xs[~']
# input:
#   def f(n, k):
#       return n ** 64 * n ** 64 * n ** 3

def f(_races_fuel, _races_depth, n, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_g_mul(_races_g_mul(_races_g_pow(n, 64), _races_g_pow(n, 64)), _races_g_pow(n, 3))

def _races_entry__f(n, k, _races_wall=None, _races_f=0, _races_meter=None):
    return (_races_t1 * _races_t2 if -1073741823 < (_races_t2 := (n ** 3)) < 1073741823 else _races_g_mul(_races_t1, _races_t2)) if -1073741823 < (_races_t1 := (n ** 64 * n ** 64)) < 1073741823 else _races_g_mul(_races_t1, n ** 3)


# ==============================================================================
# case 5: entry guards ['_races_g_mul']
# int_params: f: ['k', 'k~', 'm', 'n', 'n~', 'xs[]', 'xs[~']
# input:
#   def f(n, k, m):
#       return n * m

def f(_races_fuel, _races_depth, n, k, m):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return n * m if _races_type(n) is _races_int and -1073741823 < n < 1073741823 and (_races_type(m) is _races_int) and (-1073741823 < m < 1073741823) else _races_g_mul(n, m)

def _races_entry__f(n, k, m, _races_wall=None, _races_f=0, _races_meter=None):
    return (n * m if -1073741823 < m < 1073741823 else _races_g_mul(n, m)) if -1073741823 < n < 1073741823 else _races_g_mul(n, m)
