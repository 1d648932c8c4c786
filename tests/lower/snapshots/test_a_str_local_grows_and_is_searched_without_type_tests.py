# Snapshot of the code emitted for tests/lower/test_instrument.py::test_a_str_local_grows_and_is_searched_without_type_tests.
# Generated; regenerate with: RACESL_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q -p no:randomly tests/lower/test_instrument.py
# ruff: noqa


# ==============================================================================
# case 0: no _races_type(out)
# int_params: f: ['n']
# input:
#   def f(s, n):
#       out = ''
#       for c in s:
#           if c not in out:
#               out += c * n
#       return out

def f(_races_fuel, _races_depth, s, n):
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
            if (c if _races_type(c) in _races_FLAT else _races_g_deep(c)) not in (out if (_races_f := (_races_f - _races_len(out))) >= 0 else _races_fuel_out()):
                out += c * n if _races_type(c) is _races_int and -1073741823 < c < 1073741823 and (_races_type(n) is _races_int) and (-1073741823 < n < 1073741823) else _races_g_mul(c, n)
                if _races_len(out) > 100000:
                    _races_g_post(out)
    else:
        for c in _races_i2:
            if not _races_f:
                raise _races_FuelOut
            _races_f -= 1
            if (c if _races_type(c) in _races_FLAT else _races_g_deep(c)) not in (out if (_races_f := (_races_f - _races_len(out))) >= 0 else _races_fuel_out()):
                out += c * n if _races_type(c) is _races_int and -1073741823 < c < 1073741823 and (_races_type(n) is _races_int) and (-1073741823 < n < 1073741823) else _races_g_mul(c, n)
                if _races_len(out) > 100000:
                    _races_g_post(out)
    _races_fuel[0] = _races_f
    return out

def _races_entry__f(s, n, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, s, n)
    out = ''
    _races_i4 = s
    try:
        _races_n3 = _races_len(_races_i4)
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 <= _races_f:
        _races_f -= _races_n3
        for c in _races_i4:
            if (c if _races_type(c) in _races_FLAT else _races_g_deep(c)) not in (out if (_races_f := (_races_f - _races_len(out))) >= 0 else _races_fuel_out()):
                out += c * n if _races_type(c) is _races_int and -1073741823 < c < 1073741823 and (_races_type(n) is _races_int) and (-1073741823 < n < 1073741823) else _races_g_mul(c, n)
                if _races_len(out) > 100000:
                    _races_g_post(out)
    else:
        for c in _races_i4:
            if not _races_f:
                raise _races_FuelOut
            _races_f -= 1
            if (c if _races_type(c) in _races_FLAT else _races_g_deep(c)) not in (out if (_races_f := (_races_f - _races_len(out))) >= 0 else _races_fuel_out()):
                out += c * n if _races_type(c) is _races_int and -1073741823 < c < 1073741823 and (_races_type(n) is _races_int) and (-1073741823 < n < 1073741823) else _races_g_mul(c, n)
                if _races_len(out) > 100000:
                    _races_g_post(out)
    _races_r = out
    _races_meter[0] = _races_f
    return _races_r
