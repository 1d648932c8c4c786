# Snapshot of the code emitted for tests/lower/test_instrument.py::test_builtins_over_sized_locals_charge_without_a_type_test.
# Generated; regenerate with: RACESL_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q -p no:randomly tests/lower/test_instrument.py
# ruff: noqa


# ==============================================================================
# case 0: one _races_clen
# input:
#   def f(xs):
#       best = []
#       for x in xs:
#           best.append(x)
#       return max(best) + len(sorted(set(xs)))

def f(_races_fuel, _races_depth, xs):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    best = []
    _races_i2 = xs
    try:
        _races_n1 = _races_len(_races_i2)
    except _races_LEN_ERRORS:
        _races_n1 = _races_INF
    if _races_n1 <= _races_f:
        _races_f -= _races_n1
        for x in _races_i2:
            best.append(x)
    else:
        for x in _races_i2:
            if not _races_f:
                raise _races_FuelOut
            _races_f -= 1
            best.append(x)
    _races_r = (_races_max(_races_t3) if ((_races_t4 := _races_len((_races_t3 := (best if _races_type(best) in _races_FLAT else _races_g_walk(best))))) <= 100000) & ((_races_f := (_races_f - _races_t4)) >= 0) else _races_charge_fail(_races_t3, _races_t4)) + len(_races_sorted(_races_t7) if ((_races_t8 := _races_len((_races_t7 := ((_races_set(_races_t5) if _races_type(_races_t5) in _races_SZ else _races_g_szl(_races_set(_races_t5))) if ((_races_t6 := (_races_len(_races_t5) if _races_type((_races_t5 := (xs if _races_type(xs) in _races_FLAT else _races_g_walk(xs)))) in _races_SZ else _races_clen(_races_t5))) <= 100000) & ((_races_f := (_races_f - _races_t6)) >= 0) else _races_charge_fail(_races_t5, _races_t6))))) <= 100000) & ((_races_f := (_races_f - _races_t8)) >= 0) else _races_charge_fail(_races_t7, _races_t8))
    _races_fuel[0] = _races_f
    return _races_r

def _races_entry__f(xs, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, xs)
    best = []
    _races_i10 = xs
    try:
        _races_n9 = _races_len(_races_i10)
    except _races_LEN_ERRORS:
        _races_n9 = _races_INF
    if _races_n9 <= _races_f:
        _races_f -= _races_n9
        for x in _races_i10:
            best.append(x)
    else:
        for x in _races_i10:
            if not _races_f:
                raise _races_FuelOut
            _races_f -= 1
            best.append(x)
    _races_r = (_races_max(_races_t11) if ((_races_t12 := _races_len((_races_t11 := (best if _races_type(best) in _races_FLAT else _races_g_walk(best))))) <= 100000) & ((_races_f := (_races_f - _races_t12)) >= 0) else _races_charge_fail(_races_t11, _races_t12)) + len(_races_sorted(_races_t15) if ((_races_t16 := _races_len((_races_t15 := ((_races_set(_races_t13) if _races_type(_races_t13) in _races_SZ else _races_g_szl(_races_set(_races_t13))) if ((_races_t14 := (_races_len(_races_t13) if _races_type((_races_t13 := (xs if _races_type(xs) in _races_FLAT else _races_g_walk(xs)))) in _races_SZ else _races_clen(_races_t13))) <= 100000) & ((_races_f := (_races_f - _races_t14)) >= 0) else _races_charge_fail(_races_t13, _races_t14))))) <= 100000) & ((_races_f := (_races_f - _races_t16)) >= 0) else _races_charge_fail(_races_t15, _races_t16))
    _races_meter[0] = _races_f
    return _races_r
