# Snapshot of the code emitted for tests/lower/test_instrument.py::test_sources_first_evaluated_inside_an_expression_are_charged_ahead.
# Generated; regenerate with: RACESL_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q -p no:randomly tests/lower/test_instrument.py
# ruff: noqa


# ==============================================================================
# case 0: charged ahead
# input:
#   def f(xs):
#       return len([x for x in xs if x > 1])

def f(_races_fuel, _races_depth, xs):
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
        return len([x for x in _races_i2 if x > 1])
    else:
        _races_fuel[0] = _races_f
        return len([x for x in _races_tick_iter(_races_fuel, _races_i2) if x > 1])

def _races_entry__f(xs, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs)
    _races_fuel = _races_meter
    _races_i4 = xs
    try:
        _races_n3 = _races_len(_races_i4)
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        _races_r = len([x for x in _races_i4 if x > 1])
        _races_meter[0] = _races_f
        return _races_r
    else:
        _races_fuel[0] = _races_f
        return len([x for x in _races_tick_iter(_races_fuel, _races_i4) if x > 1])


# ==============================================================================
# case 1: charged ahead
# input:
#   def f(xs):
#       return sum(x for x in xs) // 2

def f(_races_fuel, _races_depth, xs):
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
        return _races_sum((x for x in _races_i2)) // 2
    else:
        _races_fuel[0] = _races_f
        return _races_sum((x for x in _races_tick_iter(_races_fuel, _races_i2))) // 2

def _races_entry__f(xs, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs)
    _races_fuel = _races_meter
    _races_i4 = xs
    try:
        _races_n3 = _races_len(_races_i4)
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        _races_r = _races_sum((x for x in _races_i4)) // 2
        _races_meter[0] = _races_f
        return _races_r
    else:
        _races_fuel[0] = _races_f
        return _races_sum((x for x in _races_tick_iter(_races_fuel, _races_i4))) // 2


# ==============================================================================
# case 2: charged ahead
# input:
#   def f(xs):
#       return [x * 2 for x in xs][0] + 1

def f(_races_fuel, _races_depth, xs):
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
        return [x * 2 if _races_type(x) is _races_int and -1073741823 < x < 1073741823 else _races_g_mul(x, 2) for x in _races_i2][0] + 1
    else:
        _races_fuel[0] = _races_f
        return [x * 2 if _races_type(x) is _races_int and -1073741823 < x < 1073741823 else _races_g_mul(x, 2) for x in _races_tick_iter(_races_fuel, _races_i2)][0] + 1

def _races_entry__f(xs, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs)
    _races_fuel = _races_meter
    _races_i4 = xs
    try:
        _races_n3 = _races_len(_races_i4)
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        _races_r = [x * 2 if _races_type(x) is _races_int and -1073741823 < x < 1073741823 else _races_g_mul(x, 2) for x in _races_i4][0] + 1
        _races_meter[0] = _races_f
        return _races_r
    else:
        _races_fuel[0] = _races_f
        return [x * 2 if _races_type(x) is _races_int and -1073741823 < x < 1073741823 else _races_g_mul(x, 2) for x in _races_tick_iter(_races_fuel, _races_i4)][0] + 1


# ==============================================================================
# case 3: charged ahead
# input:
#   def f(xs):
#       return '-'.join([str(x) for x in xs])

def f(_races_fuel, _races_depth, xs):
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
        return _races_meth_join(_races_fuel, '-', [str(x) for x in _races_i4])
    else:
        _races_fuel[0] = _races_f
        return _races_meth_join(_races_fuel, '-', [str(x) for x in _races_tick_iter(_races_fuel, _races_i4)])

def _races_entry__f(xs, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs)
    _races_fuel = _races_meter
    _races_i8 = xs
    try:
        _races_n7 = _races_len(_races_i8)
    except _races_LEN_ERRORS:
        _races_n7 = _races_INF
    if _races_n7 <= _races_f:
        _races_f -= _races_n7
        _races_fuel[0] = _races_f
        return _races_meth_join(_races_fuel, '-', [str(x) for x in _races_i8])
    else:
        _races_fuel[0] = _races_f
        return _races_meth_join(_races_fuel, '-', [str(x) for x in _races_tick_iter(_races_fuel, _races_i8)])
