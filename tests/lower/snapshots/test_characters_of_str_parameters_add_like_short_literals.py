# Snapshot of the code emitted for tests/lower/test_instrument.py::test_characters_of_str_parameters_add_like_short_literals.
# Generated; regenerate with: RACESL_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q -p no:randomly tests/lower/test_instrument.py
# ruff: noqa


# ==============================================================================
# case 0: guarded=False
# int_params: f: ['s#', 's$']
# input:
#   def f(s):
#       return ''.join(c + c for c in s)

def f(_races_fuel, _races_depth, s):
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
        _races_fuel[0] = _races_f
        return _races_g_join('', (c + c if _races_type(c) is _races_int else _races_g_add(c, c) for c in _races_i2))
    else:
        _races_fuel[0] = _races_f
        return _races_g_join('', (c + c if _races_type(c) is _races_int else _races_g_add(c, c) for c in _races_tick_iter(_races_fuel, _races_i2)))

def _races_entry__f(s, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, s)
    _races_fuel = _races_meter
    _races_n3 = _races_len(s)
    if _races_n3 <= _races_f and _races_n3 <= 50000:
        _races_f -= _races_n3
        _races_r = ''.join((c + c for c in s))
        _races_meter[0] = _races_f
        return _races_r
    else:
        _races_fuel[0] = _races_f
        return _races_g_join('', (c + c for c in _races_tick_iter(_races_fuel, s)))


# ==============================================================================
# case 1: guarded=False
# int_params: f: ['s#', 's$']
# input:
#   def f(s):
#       out = ''
#       for c in s:
#           out = out + c
#       return out

def f(_races_fuel, _races_depth, s):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    out = ''
    _races_i2 = s
    try:
        _races_n1 = _races_len(_races_i2)
    except _races_LEN_ERRORS:
        _races_n1 = _races_INF
    if _races_n1 <= _races_f:
        _races_f -= _races_n1
        for c in _races_i2:
            out = _races_t3 if _races_type((_races_t3 := (out + c))) not in _races_SEQ or _races_len(_races_t3) <= 100000 else _races_g_post(_races_t3)
    else:
        for c in _races_i2:
            if not _races_f:
                raise _races_FuelOut
            _races_f -= 1
            out = _races_t4 if _races_type((_races_t4 := (out + c))) not in _races_SEQ or _races_len(_races_t4) <= 100000 else _races_g_post(_races_t4)
    _races_fuel[0] = _races_f
    return out

def _races_entry__f(s, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, s)
    out = ''
    _races_n5 = _races_len(s)
    if _races_n5 <= _races_f:
        _races_f -= _races_n5
        for c in s:
            out = out + c
    else:
        for c in s:
            if not _races_f:
                raise _races_FuelOut
            _races_f -= 1
            out = out + c
    _races_r = out
    _races_meter[0] = _races_f
    return _races_r


# ==============================================================================
# case 2: guarded=False
# int_params: f: ['s#', 's$']
# input:
#   def f(s):
#       return s[0] + s[-1]

def f(_races_fuel, _races_depth, s):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_t1 if _races_type((_races_t1 := (s[0] + s[-1]))) not in _races_SEQ or _races_len(_races_t1) <= 100000 else _races_g_post(_races_t1)

def _races_entry__f(s, _races_wall=None, _races_f=0, _races_meter=None):
    return s[0] + s[-1]


# ==============================================================================
# case 3: guarded=False
# int_params: f: ['s#', 's$']
# input:
#   def f(s, t):
#       return [c + t for c in s]

def f(_races_fuel, _races_depth, s, t):
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
        _races_fuel[0] = _races_f
        return [c + t if _races_type(c) is _races_int else _races_g_add(c, t) for c in _races_i2]
    else:
        _races_fuel[0] = _races_f
        return [c + t if _races_type(c) is _races_int else _races_g_add(c, t) for c in _races_tick_iter(_races_fuel, _races_i2)]

def _races_entry__f(s, t, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, s, t)
    _races_fuel = _races_meter
    _races_n3 = _races_len(s)
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        _races_r = [c + t for c in s]
        _races_meter[0] = _races_f
        return _races_r
    else:
        _races_fuel[0] = _races_f
        return [c + t for c in _races_tick_iter(_races_fuel, s)]


# ==============================================================================
# case 4: guarded=True
# int_params: f: ['s#', 's$']
# input:
#   def f(s, t):
#       return s + t

def f(_races_fuel, _races_depth, s, t):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_t1 if _races_type((_races_t1 := (s + t))) not in _races_SEQ or _races_len(_races_t1) <= 100000 else _races_g_post(_races_t1)

def _races_entry__f(s, t, _races_wall=None, _races_f=0, _races_meter=None):
    return _races_t2 if _races_type((_races_t2 := (s + t))) not in _races_SEQ or _races_len(_races_t2) <= 100000 else _races_g_post(_races_t2)


# ==============================================================================
# case 5: guarded=True
# int_params: f: ['s#', 's$']
# input:
#   def f(s, t):
#       return [c + c for c in t for c in s] + [c + c for c in [t]]

def f(_races_fuel, _races_depth, s, t):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_i3 = t
    try:
        _races_n2 = _races_len(_races_i3)
    except _races_LEN_ERRORS:
        _races_n2 = _races_INF
    if _races_n2 <= _races_f:
        _races_f -= _races_n2
        _races_fuel[0] = _races_f
        return _races_t4 if _races_type((_races_t4 := ([c + c if _races_type(c) is _races_int else _races_g_add(c, c) for c in _races_i3 for c in _races_tick_iter(_races_fuel, s)] + [c + c if _races_type(c) is _races_int else _races_g_add(c, c) for c in _races_tick_iter(_races_fuel, [t])]))) not in _races_SEQ or _races_len(_races_t4) <= 100000 else _races_g_post(_races_t4)
    else:
        _races_fuel[0] = _races_f
        return _races_t5 if _races_type((_races_t5 := ([c + c if _races_type(c) is _races_int else _races_g_add(c, c) for c in _races_tick_iter(_races_fuel, _races_i3) for c in _races_tick_iter(_races_fuel, s)] + [c + c if _races_type(c) is _races_int else _races_g_add(c, c) for c in _races_tick_iter(_races_fuel, [t])]))) not in _races_SEQ or _races_len(_races_t5) <= 100000 else _races_g_post(_races_t5)

def _races_entry__f(s, t, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, s, t)
    _races_fuel = _races_meter
    _races_i8 = t
    try:
        _races_n7 = _races_len(_races_i8)
    except _races_LEN_ERRORS:
        _races_n7 = _races_INF
    if _races_n7 <= _races_f:
        _races_f -= _races_n7
        _races_fuel[0] = _races_f
        return _races_t9 if _races_type((_races_t9 := ([c + c for c in _races_i8 for c in _races_tick_iter(_races_fuel, s)] + [c + c if _races_type(c) is _races_int else _races_g_add(c, c) for c in _races_tick_iter(_races_fuel, [t])]))) not in _races_SEQ or _races_len(_races_t9) <= 100000 else _races_g_post(_races_t9)
    else:
        _races_fuel[0] = _races_f
        return _races_t10 if _races_type((_races_t10 := ([c + c for c in _races_tick_iter(_races_fuel, _races_i8) for c in _races_tick_iter(_races_fuel, s)] + [c + c if _races_type(c) is _races_int else _races_g_add(c, c) for c in _races_tick_iter(_races_fuel, [t])]))) not in _races_SEQ or _races_len(_races_t10) <= 100000 else _races_g_post(_races_t10)
