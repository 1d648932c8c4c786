# Snapshot of the code emitted for tests/lower/test_instrument.py::test_which_sources_are_charged_ahead.
# Generated; regenerate with: RACESL_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q -p no:randomly tests/lower/test_instrument.py
# ruff: noqa


# ==============================================================================
# case 0: ahead=True
# input:
#   def g(n):
#       return n
#
#   def f(xs):
#       return any([x for x in xs])

def g(_races_fuel, _races_depth, n):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return n

def _races_entry__g(n, _races_wall=None, _races_f=0, _races_meter=None):
    return n

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
        return _races_bi1_any(_races_fuel, [x for x in _races_i4])
    else:
        _races_fuel[0] = _races_f
        return _races_bi1_any(_races_fuel, [x for x in _races_tick_iter(_races_fuel, _races_i4)])

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
        return _races_bi1_any(_races_fuel, [x for x in _races_i8])
    else:
        _races_fuel[0] = _races_f
        return _races_bi1_any(_races_fuel, [x for x in _races_tick_iter(_races_fuel, _races_i8)])


# ==============================================================================
# case 1: ahead=False
# input:
#   def g(n):
#       return n
#
#   def f(xs):
#       return g(1) + len([x for x in xs])

def g(_races_fuel, _races_depth, n):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return n

def _races_entry__g(n, _races_wall=None, _races_f=0, _races_meter=None):
    return n

def f(_races_fuel, _races_depth, xs):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return g(_races_fuel, _races_depth + 1, 1) + len([x for x in _races_tick_iter(_races_fuel, xs)])

def _races_entry__f(xs, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_fuel[0] = _races_f
    return g(_races_fuel, _races_depth + 1, 1) + len([x for x in _races_tick_iter(_races_fuel, xs)])


# ==============================================================================
# case 2: ahead=False
# input:
#   def g(n):
#       return n
#
#   def f(xs):
#       return any(x for x in xs)

def g(_races_fuel, _races_depth, n):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return n

def _races_entry__g(n, _races_wall=None, _races_f=0, _races_meter=None):
    return n

def f(_races_fuel, _races_depth, xs):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_bi_any(_races_fuel, (x for x in _races_tick_iter(_races_fuel, xs)))

def _races_entry__f(xs, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs)
    _races_fuel = _races_meter
    _races_fuel[0] = _races_f
    return _races_bi_any(_races_fuel, (x for x in _races_tick_iter(_races_fuel, xs)))


# ==============================================================================
# case 3: ahead=False
# input:
#   def g(n):
#       return n
#
#   def f(xs):
#       return xs.count(1) + len([x for x in xs])

def g(_races_fuel, _races_depth, n):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return n

def _races_entry__g(n, _races_wall=None, _races_f=0, _races_meter=None):
    return n

def f(_races_fuel, _races_depth, xs):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return xs.count(1) + len([x for x in _races_tick_iter(_races_fuel, xs)])

def _races_entry__f(xs, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs)
    _races_fuel = _races_meter
    _races_fuel[0] = _races_f
    return xs.count(1) + len([x for x in _races_tick_iter(_races_fuel, xs)])
