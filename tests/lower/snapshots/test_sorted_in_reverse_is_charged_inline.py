# Snapshot of the code emitted for tests/lower/test_instrument.py::test_sorted_in_reverse_is_charged_inline.
# Generated; regenerate with: RACESL_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q -p no:randomly tests/lower/test_instrument.py
# ruff: noqa


# ==============================================================================
# case 0: inline=True
# input:
#   def g(r):
#       return r
#
#   def f(xs, r):
#       return sorted(xs, reverse=True)

def g(_races_fuel, _races_depth, r):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return r

def _races_entry__g(r, _races_wall=None, _races_f=0, _races_meter=None):
    return r

def f(_races_fuel, _races_depth, xs, r):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_r = (_races_sorted(_races_t1, reverse=True) if _races_type(_races_t1) in _races_SZ else _races_g_szl(_races_sorted(_races_t1, reverse=True))) if ((_races_t2 := (_races_len(_races_t1) if _races_type((_races_t1 := (xs if _races_type(xs) in _races_FLAT else _races_g_walk(xs)))) in _races_SZ else _races_clen(_races_t1))) <= 100000) & ((_races_f := (_races_f - _races_t2)) >= 0) else _races_charge_fail(_races_t1, _races_t2)
    _races_fuel[0] = _races_f
    return _races_r

def _races_entry__f(xs, r, _races_wall=None, _races_f=0, _races_meter=None):
    _races_r = (_races_sorted(_races_t3, reverse=True) if _races_type(_races_t3) in _races_SZ else _races_g_szl(_races_sorted(_races_t3, reverse=True))) if ((_races_t4 := (_races_len(_races_t3) if _races_type((_races_t3 := (xs if _races_type(xs) in _races_FLAT else _races_g_walk(xs)))) in _races_SZ else _races_clen(_races_t3))) <= 100000) & ((_races_f := (_races_f - _races_t4)) >= 0) else _races_charge_fail(_races_t3, _races_t4)
    _races_meter[0] = _races_f
    return _races_r


# ==============================================================================
# case 1: inline=True
# input:
#   def g(r):
#       return r
#
#   def f(xs, r):
#       return sorted(xs, reverse=r)

def g(_races_fuel, _races_depth, r):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return r

def _races_entry__g(r, _races_wall=None, _races_f=0, _races_meter=None):
    return r

def f(_races_fuel, _races_depth, xs, r):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_r = (_races_sorted(_races_t1, reverse=r) if _races_type(_races_t1) in _races_SZ else _races_g_szl(_races_sorted(_races_t1, reverse=r))) if ((_races_t2 := (_races_len(_races_t1) if _races_type((_races_t1 := (xs if _races_type(xs) in _races_FLAT else _races_g_walk(xs)))) in _races_SZ else _races_clen(_races_t1))) <= 100000) & ((_races_f := (_races_f - _races_t2)) >= 0) else _races_charge_fail(_races_t1, _races_t2)
    _races_fuel[0] = _races_f
    return _races_r

def _races_entry__f(xs, r, _races_wall=None, _races_f=0, _races_meter=None):
    _races_r = (_races_sorted(_races_t3, reverse=r) if _races_type(_races_t3) in _races_SZ else _races_g_szl(_races_sorted(_races_t3, reverse=r))) if ((_races_t4 := (_races_len(_races_t3) if _races_type((_races_t3 := (xs if _races_type(xs) in _races_FLAT else _races_g_walk(xs)))) in _races_SZ else _races_clen(_races_t3))) <= 100000) & ((_races_f := (_races_f - _races_t4)) >= 0) else _races_charge_fail(_races_t3, _races_t4)
    _races_meter[0] = _races_f
    return _races_r


# ==============================================================================
# case 2: inline=False
# input:
#   def g(r):
#       return r
#
#   def f(xs, r):
#       return sorted(xs, reverse=g(r))

def g(_races_fuel, _races_depth, r):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return r

def _races_entry__g(r, _races_wall=None, _races_f=0, _races_meter=None):
    return r

def f(_races_fuel, _races_depth, xs, r):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_bi_sorted(_races_fuel, xs if _races_type(xs) in _races_FLAT else _races_g_walk(xs), reverse=g(_races_fuel, _races_depth + 1, r))

def _races_entry__f(xs, r, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs, r)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_fuel[0] = _races_f
    return _races_bi_sorted(_races_fuel, xs if _races_type(xs) in _races_FLAT else _races_g_walk(xs), reverse=g(_races_fuel, _races_depth + 1, r))


# ==============================================================================
# case 3: inline=False
# input:
#   def g(r):
#       return r
#
#   def f(xs, r):
#       return sorted(xs, key=abs)

def g(_races_fuel, _races_depth, r):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return r

def _races_entry__g(r, _races_wall=None, _races_f=0, _races_meter=None):
    return r

def f(_races_fuel, _races_depth, xs, r):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_bi_sorted(_races_fuel, xs if _races_type(xs) in _races_FLAT else _races_g_walk(xs), key=abs)

def _races_entry__f(xs, r, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs, r)
    _races_fuel = _races_meter
    _races_fuel[0] = _races_f
    return _races_bi_sorted(_races_fuel, xs if _races_type(xs) in _races_FLAT else _races_g_walk(xs), key=abs)
