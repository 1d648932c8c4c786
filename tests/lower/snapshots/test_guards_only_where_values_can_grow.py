# Snapshot of the code emitted for tests/lower/test_instrument.py::test_guards_only_where_values_can_grow.
# Generated; regenerate with: RACESL_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q -p no:randomly tests/lower/test_instrument.py
# ruff: noqa


# ==============================================================================
# case 0: guarded=False
# int_params: f: ['n']
# input:
#   def f(n):
#       return n + 1

def f(_races_fuel, _races_depth, n):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return n + 1

def _races_entry__f(n, _races_wall=None, _races_f=0, _races_meter=None):
    return n + 1


# ==============================================================================
# case 1: guarded=True
# int_params: f: ['n']
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
# case 2: guarded=False
# int_params: f: ['n']
# input:
#   def f(s):
#       return s + 'x'

def f(_races_fuel, _races_depth, s):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return s + 'x'

def _races_entry__f(s, _races_wall=None, _races_f=0, _races_meter=None):
    return s + 'x'


# ==============================================================================
# case 3: guarded=False
# int_params: f: ['n']
# input:
#   def f(s):
#       return [1] + s

def f(_races_fuel, _races_depth, s):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return [1] + s

def _races_entry__f(s, _races_wall=None, _races_f=0, _races_meter=None):
    return [1] + s


# ==============================================================================
# case 4: guarded=False
# int_params: f: ['n']
# input:
#   def f(xs):
#       t = 0
#       for x in xs:
#           t += x
#       return t

def f(_races_fuel, _races_depth, xs):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    t = 0
    _races_i2 = xs
    try:
        _races_n1 = _races_len(_races_i2)
    except _races_LEN_ERRORS:
        _races_n1 = _races_INF
    if _races_n1 <= _races_f:
        _races_f -= _races_n1
        for x in _races_i2:
            t += x
    else:
        for x in _races_i2:
            if not _races_f:
                raise _races_FuelOut
            _races_f -= 1
            t += x
    _races_fuel[0] = _races_f
    return t

def _races_entry__f(xs, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs)
    t = 0
    _races_i4 = xs
    try:
        _races_n3 = _races_len(_races_i4)
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        for x in _races_i4:
            t += x
    else:
        for x in _races_i4:
            if not _races_f:
                raise _races_FuelOut
            _races_f -= 1
            t += x
    _races_r = t
    _races_meter[0] = _races_f
    return _races_r


# ==============================================================================
# case 5: guarded=True
# int_params: f: ['n']
# input:
#   def f(s):
#       out = ''
#       for c in s:
#           out += c
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
            out += c
            if _races_len(out) > 100000:
                _races_g_post(out)
    else:
        for c in _races_i2:
            if not _races_f:
                raise _races_FuelOut
            _races_f -= 1
            out += c
            if _races_len(out) > 100000:
                _races_g_post(out)
    _races_fuel[0] = _races_f
    return out

def _races_entry__f(s, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, s)
    out = ''
    _races_i4 = s
    try:
        _races_n3 = _races_len(_races_i4)
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        for c in _races_i4:
            out += c
            if _races_len(out) > 100000:
                _races_g_post(out)
    else:
        for c in _races_i4:
            if not _races_f:
                raise _races_FuelOut
            _races_f -= 1
            out += c
            if _races_len(out) > 100000:
                _races_g_post(out)
    _races_r = out
    _races_meter[0] = _races_f
    return _races_r


# ==============================================================================
# case 6: guarded=False
# int_params: f: ['n']
# input:
#   def f(n):
#       return n * 3

def f(_races_fuel, _races_depth, n):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return n * 3 if _races_type(n) is _races_int and -1073741823 < n < 1073741823 else _races_g_mul(n, 3)

def _races_entry__f(n, _races_wall=None, _races_f=0, _races_meter=None):
    return n * 3


# ==============================================================================
# case 7: guarded=True
# int_params: f: ['n']
# input:
#   def f(n):
#       return n * n

def f(_races_fuel, _races_depth, n):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return n * n if _races_type(n) is _races_int and -1073741823 < n < 1073741823 else _races_g_mul(n, n)

def _races_entry__f(n, _races_wall=None, _races_f=0, _races_meter=None):
    return n * n if -1073741823 < n < 1073741823 else _races_g_mul(n, n)


# ==============================================================================
# case 8: guarded=True
# int_params: f: ['n']
# input:
#   def f(s):
#       return s * 3

def f(_races_fuel, _races_depth, s):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return s * 3 if _races_type(s) is _races_int and -1073741823 < s < 1073741823 else _races_g_mul(s, 3)

def _races_entry__f(s, _races_wall=None, _races_f=0, _races_meter=None):
    return s * 3 if _races_type(s) is _races_int and -1073741823 < s < 1073741823 else _races_g_mul(s, 3)


# ==============================================================================
# case 9: guarded=False
# int_params: f: ['n']
# input:
#   def f(n):
#       return n % 7

def f(_races_fuel, _races_depth, n):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return n % 7 if _races_type(n) is _races_int else _races_g_mod(n, 7)

def _races_entry__f(n, _races_wall=None, _races_f=0, _races_meter=None):
    return n % 7


# ==============================================================================
# case 10: guarded=True
# int_params: f: ['n']
# input:
#   def f(s):
#       return s % 7

def f(_races_fuel, _races_depth, s):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return s % 7 if _races_type(s) is _races_int else _races_g_mod(s, 7)

def _races_entry__f(s, _races_wall=None, _races_f=0, _races_meter=None):
    return s % 7 if _races_type(s) is _races_int else _races_g_mod(s, 7)


# ==============================================================================
# case 11: guarded=False
# int_params: f: ['n']
# input:
#   def f(n):
#       return 2 ** 10

def f(_races_fuel, _races_depth, n):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return 2 ** 10

def _races_entry__f(n, _races_wall=None, _races_f=0, _races_meter=None):
    return 2 ** 10


# ==============================================================================
# case 12: guarded=True
# int_params: f: ['n']
# input:
#   def f(n):
#       return 2 ** n

def f(_races_fuel, _races_depth, n):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_g_pow(2, n)

def _races_entry__f(n, _races_wall=None, _races_f=0, _races_meter=None):
    return _races_g_pow(2, n)


# ==============================================================================
# case 13: guarded=False
# int_params: f: ['n']
# input:
#   def f(n):
#       return n << 3

def f(_races_fuel, _races_depth, n):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_g_lshift(n, 3)

def _races_entry__f(n, _races_wall=None, _races_f=0, _races_meter=None):
    return n << 3


# ==============================================================================
# case 14: guarded=True
# int_params: f: ['n']
# input:
#   def f(n):
#       return 1 << n

def f(_races_fuel, _races_depth, n):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_g_lshift(1, n)

def _races_entry__f(n, _races_wall=None, _races_f=0, _races_meter=None):
    return _races_g_lshift(1, n)


# ==============================================================================
# case 15: guarded=True
# int_params: f: ['n']
# input:
#   def f(s):
#       return f'{s}'

def f(_races_fuel, _races_depth, s):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return f'{(_races_t1 if _races_type((_races_t1 := s)) in _races_TEXT or (_races_type(_races_t1) is _races_int and -1073741823 < _races_t1 < 1073741823) else _races_g_fv(_races_t1))}'

def _races_entry__f(s, _races_wall=None, _races_f=0, _races_meter=None):
    return f'{(_races_t2 if _races_type((_races_t2 := s)) in _races_TEXT or (_races_type(_races_t2) is _races_int and -1073741823 < _races_t2 < 1073741823) else _races_g_fv(_races_t2))}'


# ==============================================================================
# case 16: guarded=False
# int_params: f: ['n']
# input:
#   def f(n):
#       return f'{n}-{n:>5}'

def f(_races_fuel, _races_depth, n):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_t3 if _races_len((_races_t3 := f'{(_races_t1 if _races_type((_races_t1 := n)) in _races_TEXT or (_races_type(_races_t1) is _races_int and -1073741823 < _races_t1 < 1073741823) else _races_g_fv(_races_t1))}-{(_races_t2 if _races_type((_races_t2 := n)) in _races_TEXT or (_races_type(_races_t2) is _races_int and -1073741823 < _races_t2 < 1073741823) else _races_g_fv(_races_t2)):>5}')) <= 100000 else _races_g_szs(_races_t3)

def _races_entry__f(n, _races_wall=None, _races_f=0, _races_meter=None):
    return f'{(n if -1073741823 < n < 1073741823 else _races_g_fv(n))}-{(n if -1073741823 < n < 1073741823 else _races_g_fv(n)):>5}'
