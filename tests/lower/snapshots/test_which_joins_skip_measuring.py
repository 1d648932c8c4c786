# Snapshot of the code emitted for tests/lower/test_instrument.py::test_which_joins_skip_measuring.
# Generated; regenerate with: RACESL_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q -p no:randomly tests/lower/test_instrument.py
# ruff: noqa


# ==============================================================================
# case 0: measured=False
# int_params: f: ['s#', 's$', 'xs#']
# input:
#   def f(xs, s, c):
#       return ''.join(chr(97 + x) for x in xs)

def f(_races_fuel, _races_depth, xs, s, c):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_i2 = xs
    try:
        _races_n1 = _races_len(_races_i2)
    except _races_LEN_ERRORS:
        _races_n1 = _races_INF
    if _races_n1 <= _races_f and _races_n1 <= 100000:
        _races_f -= _races_n1
        _races_fuel[0] = _races_f
        return ''.join((chr(97 + x) for x in _races_i2))
    else:
        _races_fuel[0] = _races_f
        return _races_g_join('', (chr(97 + x) for x in _races_tick_iter(_races_fuel, _races_i2)))

def _races_entry__f(xs, s, c, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs, s, c)
    _races_fuel = _races_meter
    _races_n3 = _races_len(xs)
    if _races_n3 <= _races_f and _races_n3 <= 100000:
        _races_f -= _races_n3
        _races_r = ''.join((chr(97 + x) for x in xs))
        _races_meter[0] = _races_f
        return _races_r
    else:
        _races_fuel[0] = _races_f
        return _races_g_join('', (chr(97 + x) for x in _races_tick_iter(_races_fuel, xs)))


# ==============================================================================
# case 1: measured=False
# int_params: f: ['s#', 's$', 'xs#']
# input:
#   def f(xs, s, c):
#       return '-'.join(c + c for c in s)

def f(_races_fuel, _races_depth, xs, s, c):
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
        return _races_g_join('-', (c + c if _races_type(c) is _races_int else _races_g_add(c, c) for c in _races_i2))
    else:
        _races_fuel[0] = _races_f
        return _races_g_join('-', (c + c if _races_type(c) is _races_int else _races_g_add(c, c) for c in _races_tick_iter(_races_fuel, _races_i2)))

def _races_entry__f(xs, s, c, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs, s, c)
    _races_fuel = _races_meter
    _races_n3 = _races_len(s)
    if _races_n3 <= _races_f and _races_n3 <= 33333:
        _races_f -= _races_n3
        _races_r = '-'.join((c + c for c in s))
        _races_meter[0] = _races_f
        return _races_r
    else:
        _races_fuel[0] = _races_f
        return _races_g_join('-', (c + c for c in _races_tick_iter(_races_fuel, s)))


# ==============================================================================
# case 2: measured=True
# int_params: f: ['s#', 's$', 'xs#']
# input:
#   def f(xs, s, c):
#       return ''.join('ab'[x] if x else c for x in xs)

def f(_races_fuel, _races_depth, xs, s, c):
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
        return _races_g_join('', ('ab'[x] if x else c for x in _races_i2))
    else:
        _races_fuel[0] = _races_f
        return _races_g_join('', ('ab'[x] if x else c for x in _races_tick_iter(_races_fuel, _races_i2)))

def _races_entry__f(xs, s, c, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs, s, c)
    _races_fuel = _races_meter
    _races_n3 = _races_len(xs)
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        _races_r = _races_g_join('', ('ab'[x] if x else c for x in xs))
        _races_meter[0] = _races_f
        return _races_r
    else:
        _races_fuel[0] = _races_f
        return _races_g_join('', ('ab'[x] if x else c for x in _races_tick_iter(_races_fuel, xs)))


# ==============================================================================
# case 3: measured=True
# int_params: f: ['s#', 's$', 'xs#']
# input:
#   def f(xs, s, c):
#       return ''.join(w for w in xs)

def f(_races_fuel, _races_depth, xs, s, c):
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
        return _races_g_join('', (w for w in _races_i2))
    else:
        _races_fuel[0] = _races_f
        return _races_g_join('', (w for w in _races_tick_iter(_races_fuel, _races_i2)))

def _races_entry__f(xs, s, c, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs, s, c)
    _races_fuel = _races_meter
    _races_n3 = _races_len(xs)
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        _races_r = _races_g_join('', (w for w in xs))
        _races_meter[0] = _races_f
        return _races_r
    else:
        _races_fuel[0] = _races_f
        return _races_g_join('', (w for w in _races_tick_iter(_races_fuel, xs)))


# ==============================================================================
# case 4: measured=True
# int_params: f: ['s#', 's$', 'xs#']
# input:
#   def f(xs, s, c):
#       return ''.join(c.upper() for c in s)

def f(_races_fuel, _races_depth, xs, s, c):
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
        return _races_g_join('', (_races_meth_upper(c) for c in _races_i2))
    else:
        _races_fuel[0] = _races_f
        return _races_g_join('', (_races_meth_upper(c) for c in _races_tick_iter(_races_fuel, _races_i2)))

def _races_entry__f(xs, s, c, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs, s, c)
    _races_fuel = _races_meter
    _races_n3 = _races_len(s)
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        _races_r = _races_g_join('', (c.upper() for c in s))
        _races_meter[0] = _races_f
        return _races_r
    else:
        _races_fuel[0] = _races_f
        return _races_g_join('', (c.upper() for c in _races_tick_iter(_races_fuel, s)))


# ==============================================================================
# case 5: measured=True
# int_params: f: ['s#', 's$', 'xs#']
# input:
#   def f(xs, s, c):
#       return ''.join(str(x) for x in xs)

def f(_races_fuel, _races_depth, xs, s, c):
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
        return _races_g_join('', (str(x) for x in _races_i2))
    else:
        _races_fuel[0] = _races_f
        return _races_g_join('', (str(x) for x in _races_tick_iter(_races_fuel, _races_i2)))

def _races_entry__f(xs, s, c, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs, s, c)
    _races_fuel = _races_meter
    _races_n3 = _races_len(xs)
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        _races_r = _races_g_join('', (str(x) for x in xs))
        _races_meter[0] = _races_f
        return _races_r
    else:
        _races_fuel[0] = _races_f
        return _races_g_join('', (str(x) for x in _races_tick_iter(_races_fuel, xs)))


# ==============================================================================
# case 6: measured=True
# int_params: f: ['s#', 's$', 'xs#']
# input:
#   def f(xs, s, c):
#       return ''.join([chr(97 + x) for x in xs])

def f(_races_fuel, _races_depth, xs, s, c):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_i4 = xs
    try:
        _races_n3 = _races_len(_races_i4)
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        _races_fuel[0] = _races_f
        return _races_meth_join(_races_fuel, '', [chr(97 + x) for x in _races_i4])
    else:
        _races_fuel[0] = _races_f
        return _races_meth_join(_races_fuel, '', [chr(97 + x) for x in _races_tick_iter(_races_fuel, _races_i4)])

def _races_entry__f(xs, s, c, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs, s, c)
    _races_fuel = _races_meter
    _races_n7 = _races_len(xs)
    if _races_n7 <= _races_f:
        _races_f -= _races_n7
        _races_fuel[0] = _races_f
        return _races_meth_join(_races_fuel, '', [chr(97 + x) for x in xs])
    else:
        _races_fuel[0] = _races_f
        return _races_meth_join(_races_fuel, '', [chr(97 + x) for x in _races_tick_iter(_races_fuel, xs)])
