# Snapshot of the code emitted for tests/lower/test_instrument.py::test_entries_compare_str_parameters_without_measuring_them.
# Generated; regenerate with: RACESL_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q -p no:randomly tests/lower/test_instrument.py
# ruff: noqa


# ==============================================================================
# case 0: flat=True
# int_params: f: ['s#', 's$']
# input:
#   def f(s):
#       return s == s[::-1]

def f(_races_fuel, _races_depth, s):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return (s if _races_type(s) in _races_FLAT else _races_g_deep(s)) == (_races_t1 if _races_type((_races_t1 := s[::-1])) in _races_FLAT else _races_g_deep(_races_t1))

def _races_entry__f(s, _races_wall=None, _races_f=0, _races_meter=None):
    return s == s[::-1]


# ==============================================================================
# case 1: flat=True
# int_params: f: ['s#', 's$']
# input:
#   def f(s, t):
#       n = 0
#       for c in s:
#           if c in t:
#               n += 1
#       return n

def f(_races_fuel, _races_depth, s, t):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    n = 0
    _races_i2 = s
    try:
        _races_n1 = _races_len(_races_i2)
    except _races_LEN_ERRORS:
        _races_n1 = _races_INF
    if _races_n1 <= _races_f:
        _races_f -= _races_n1
        for c in _races_i2:
            if (c if _races_type(c) in _races_FLAT else _races_g_deep(c)) in (_races_t3 if (_races_f := (_races_f - (_races_len(_races_t3) if _races_type((_races_t3 := _races_g_in(t, c))) in _races_SEQ else 0))) >= 0 else _races_fuel_out()):
                n += 1
    else:
        for c in _races_i2:
            if not _races_f:
                raise _races_FuelOut
            _races_f -= 1
            if (c if _races_type(c) in _races_FLAT else _races_g_deep(c)) in (_races_t4 if (_races_f := (_races_f - (_races_len(_races_t4) if _races_type((_races_t4 := _races_g_in(t, c))) in _races_SEQ else 0))) >= 0 else _races_fuel_out()):
                n += 1
    _races_fuel[0] = _races_f
    return n

def _races_entry__f(s, t, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, s, t)
    n = 0
    _races_n5 = _races_len(s)
    if _races_n5 <= _races_f:
        _races_f -= _races_n5
        for c in s:
            if c in (_races_t6 if (_races_f := (_races_f - (_races_len(_races_t6) if _races_type((_races_t6 := t)) in _races_SEQ else 0))) >= 0 else _races_fuel_out()):
                n += 1
    else:
        for c in s:
            if not _races_f:
                raise _races_FuelOut
            _races_f -= 1
            if c in (_races_t7 if (_races_f := (_races_f - (_races_len(_races_t7) if _races_type((_races_t7 := t)) in _races_SEQ else 0))) >= 0 else _races_fuel_out()):
                n += 1
    _races_r = n
    _races_meter[0] = _races_f
    return _races_r


# ==============================================================================
# case 2: flat=False
# int_params: f: ['s#', 's$']
# input:
#   def f(s):
#       s = g(s)
#       return s == s[::-1]

def f(_races_fuel, _races_depth, s):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    s = g(_races_fuel, _races_depth + 1, s)
    _races_f = _races_fuel[0]
    _races_fuel[0] = _races_f
    return (s if _races_type(s) in _races_FLAT else _races_g_deep(s)) == (_races_t1 if _races_type((_races_t1 := s[::-1])) in _races_FLAT else _races_g_deep(_races_t1))

def _races_entry__f(s, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, s)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_fuel[0] = _races_f
    s = g(_races_fuel, _races_depth + 1, s)
    _races_f = _races_fuel[0]
    _races_r = (s if _races_type(s) in _races_FLAT else _races_g_deep(s)) == (_races_t2 if _races_type((_races_t2 := s[::-1])) in _races_FLAT else _races_g_deep(_races_t2))
    _races_meter[0] = _races_f
    return _races_r


# ==============================================================================
# case 3: flat=False
# int_params: f: ['s#', 's$']
# input:
#   def f(s, xs):
#       for c in s:
#           pass
#       for c in xs:
#           pass
#       return c == xs

def f(_races_fuel, _races_depth, s, xs):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_i2 = s
    try:
        _races_n1 = _races_len(_races_i2)
    except _races_LEN_ERRORS:
        _races_n1 = _races_INF
    if _races_n1 <= _races_f:
        _races_f -= _races_n1
        for c in _races_i2:
            pass
    else:
        for c in _races_i2:
            if not _races_f:
                raise _races_FuelOut
            _races_f -= 1
            pass
    _races_i4 = xs
    try:
        _races_n3 = _races_len(_races_i4)
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        for c in _races_i4:
            pass
    else:
        for c in _races_i4:
            if not _races_f:
                raise _races_FuelOut
            _races_f -= 1
            pass
    _races_fuel[0] = _races_f
    return (c if _races_type(c) in _races_FLAT else _races_g_deep(c)) == (xs if _races_type(xs) in _races_FLAT else _races_g_deep(xs))

def _races_entry__f(s, xs, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, s, xs)
    _races_n5 = _races_len(s)
    if _races_n5 <= _races_f:
        _races_f -= _races_n5
        for c in s:
            pass
    else:
        for c in s:
            if not _races_f:
                raise _races_FuelOut
            _races_f -= 1
            pass
    _races_i7 = xs
    try:
        _races_n6 = _races_len(_races_i7)
    except _races_LEN_ERRORS:
        _races_n6 = _races_INF
    if _races_n6 <= _races_f:
        _races_f -= _races_n6
        for c in _races_i7:
            pass
    else:
        for c in _races_i7:
            if not _races_f:
                raise _races_FuelOut
            _races_f -= 1
            pass
    _races_r = (c if _races_type(c) in _races_FLAT else _races_g_deep(c)) == (xs if _races_type(xs) in _races_FLAT else _races_g_deep(xs))
    _races_meter[0] = _races_f
    return _races_r
