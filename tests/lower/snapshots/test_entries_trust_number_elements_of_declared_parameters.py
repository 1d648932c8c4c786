# Snapshot of the code emitted for tests/lower/test_instrument.py::test_entries_trust_number_elements_of_declared_parameters.
# Generated; regenerate with: RACESL_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q -p no:randomly tests/lower/test_instrument.py
# ruff: noqa


# ==============================================================================
# case 0: declared ['k', 'p[]', 'xs[]']
# int_params: f: ['k', 'p[]', 'xs[]']
# input:
#   def f(xs, k):
#       return [x % k for x in xs]

def f(_races_fuel, _races_depth, xs, k):
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
        return [x % k if _races_type(x) is _races_int else _races_g_mod(x, k) for x in _races_i2]
    else:
        _races_fuel[0] = _races_f
        return [x % k if _races_type(x) is _races_int else _races_g_mod(x, k) for x in _races_tick_iter(_races_fuel, _races_i2)]

def _races_entry__f(xs, k, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs, k)
    _races_fuel = _races_meter
    _races_i4 = xs
    try:
        _races_n3 = _races_len(_races_i4)
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        _races_r = [x % k for x in _races_i4]
        _races_meter[0] = _races_f
        return _races_r
    else:
        _races_fuel[0] = _races_f
        return [x % k for x in _races_tick_iter(_races_fuel, _races_i4)]


# ==============================================================================
# case 1: declared ['k']
# int_params: f: ['k']
# input:
#   def f(xs, k):
#       return [x % k for x in xs]

def f(_races_fuel, _races_depth, xs, k):
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
        return [x % k if _races_type(x) is _races_int else _races_g_mod(x, k) for x in _races_i2]
    else:
        _races_fuel[0] = _races_f
        return [x % k if _races_type(x) is _races_int else _races_g_mod(x, k) for x in _races_tick_iter(_races_fuel, _races_i2)]

def _races_entry__f(xs, k, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs, k)
    _races_fuel = _races_meter
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
# case 2: declared ['k', 'p[]', 'xs[]']
# int_params: f: ['k', 'p[]', 'xs[]']
# input:
#   def f(xs, k):
#       out = []
#       for x in xs:
#           out.append(x % k)
#       return out

def f(_races_fuel, _races_depth, xs, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    out = []
    _races_i2 = xs
    try:
        _races_n1 = _races_len(_races_i2)
    except _races_LEN_ERRORS:
        _races_n1 = _races_INF
    if _races_n1 <= _races_f:
        _races_f -= _races_n1
        for x in _races_i2:
            out.append(x % k if _races_type(x) is _races_int else _races_g_mod(x, k))
    else:
        for x in _races_i2:
            if not _races_f:
                raise _races_FuelOut
            _races_f -= 1
            out.append(x % k if _races_type(x) is _races_int else _races_g_mod(x, k))
    _races_fuel[0] = _races_f
    return out

def _races_entry__f(xs, k, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs, k)
    out = []
    _races_i4 = xs
    try:
        _races_n3 = _races_len(_races_i4)
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        for x in _races_i4:
            out.append(x % k)
    else:
        for x in _races_i4:
            if not _races_f:
                raise _races_FuelOut
            _races_f -= 1
            out.append(x % k)
    _races_r = out
    _races_meter[0] = _races_f
    return _races_r


# ==============================================================================
# case 3: declared ['k']
# int_params: f: ['k']
# input:
#   def f(xs, k):
#       out = []
#       for x in xs:
#           out.append(x % k)
#       return out

def f(_races_fuel, _races_depth, xs, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    out = []
    _races_i2 = xs
    try:
        _races_n1 = _races_len(_races_i2)
    except _races_LEN_ERRORS:
        _races_n1 = _races_INF
    if _races_n1 <= _races_f:
        _races_f -= _races_n1
        for x in _races_i2:
            out.append(x % k if _races_type(x) is _races_int else _races_g_mod(x, k))
    else:
        for x in _races_i2:
            if not _races_f:
                raise _races_FuelOut
            _races_f -= 1
            out.append(x % k if _races_type(x) is _races_int else _races_g_mod(x, k))
    _races_fuel[0] = _races_f
    return out

def _races_entry__f(xs, k, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs, k)
    out = []
    _races_i4 = xs
    try:
        _races_n3 = _races_len(_races_i4)
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        for x in _races_i4:
            out.append(x % k if _races_type(x) is _races_int else _races_g_mod(x, k))
    else:
        for x in _races_i4:
            if not _races_f:
                raise _races_FuelOut
            _races_f -= 1
            out.append(x % k if _races_type(x) is _races_int else _races_g_mod(x, k))
    _races_r = out
    _races_meter[0] = _races_f
    return _races_r


# ==============================================================================
# case 4: declared ['k', 'p[]', 'xs[]']
# int_params: f: ['k', 'p[]', 'xs[]']
# input:
#   def f(p, k):
#       a, b = p
#       return (a + b) % k

def f(_races_fuel, _races_depth, p, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    a, b = p
    _races_fuel[0] = _races_f
    return _races_g_mod(_races_t1 if _races_type((_races_t1 := (a + b))) not in _races_SEQ or _races_len(_races_t1) <= 100000 else _races_g_post(_races_t1), k)

def _races_entry__f(p, k, _races_wall=None, _races_f=0, _races_meter=None):
    a, b = p
    return (a + b) % k


# ==============================================================================
# case 5: declared ['k']
# int_params: f: ['k']
# input:
#   def f(p, k):
#       a, b = p
#       return (a + b) % k

def f(_races_fuel, _races_depth, p, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    a, b = p
    _races_fuel[0] = _races_f
    return _races_g_mod(_races_t1 if _races_type((_races_t1 := (a + b))) not in _races_SEQ or _races_len(_races_t1) <= 100000 else _races_g_post(_races_t1), k)

def _races_entry__f(p, k, _races_wall=None, _races_f=0, _races_meter=None):
    a, b = p
    return _races_g_mod(_races_t2 if _races_type((_races_t2 := (a + b))) not in _races_SEQ or _races_len(_races_t2) <= 100000 else _races_g_post(_races_t2), k)


# ==============================================================================
# case 6: declared ['k', 'p[]', 'xs[]']
# int_params: f: ['k', 'p[]', 'xs[]']
# input:
#   def f(xs, k):
#       return (xs[0] + xs[-1]) % k

def f(_races_fuel, _races_depth, xs, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_g_mod(_races_t1 if _races_type((_races_t1 := (xs[0] + xs[-1]))) not in _races_SEQ or _races_len(_races_t1) <= 100000 else _races_g_post(_races_t1), k)

def _races_entry__f(xs, k, _races_wall=None, _races_f=0, _races_meter=None):
    return (xs[0] + xs[-1]) % k


# ==============================================================================
# case 7: declared ['k']
# int_params: f: ['k']
# input:
#   def f(xs, k):
#       return (xs[0] + xs[-1]) % k

def f(_races_fuel, _races_depth, xs, k):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_g_mod(_races_t1 if _races_type((_races_t1 := (xs[0] + xs[-1]))) not in _races_SEQ or _races_len(_races_t1) <= 100000 else _races_g_post(_races_t1), k)

def _races_entry__f(xs, k, _races_wall=None, _races_f=0, _races_meter=None):
    return _races_g_mod(_races_t2 if _races_type((_races_t2 := (xs[0] + xs[-1]))) not in _races_SEQ or _races_len(_races_t2) <= 100000 else _races_g_post(_races_t2), k)
