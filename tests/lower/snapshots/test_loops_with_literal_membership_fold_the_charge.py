# Snapshot of the code emitted for tests/lower/test_instrument.py::test_loops_with_literal_membership_fold_the_charge.
# Generated; regenerate with: RACESL_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q -p no:randomly tests/lower/test_instrument.py
# ruff: noqa


# ==============================================================================
# case 0: charged 6 a step, up front
# input:
#   def f(s):
#       n = 0
#       for c in s:
#           if c in 'aeiou':
#               n += 1
#       return n

def f(_races_fuel, _races_depth, s):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    n = 0
    _races_i2 = s
    try:
        _races_n1 = _races_len(_races_i2)
    except _races_LEN_ERRORS:
        _races_n1 = _races_INF
    if _races_n1 * 6 <= _races_f:
        _races_f -= _races_n1 * 6
        for c in _races_i2:
            if c in 'aeiou':
                n += 1
    else:
        for c in _races_i2:
            if not _races_f:
                raise _races_FuelOut
            _races_f -= 1
            if c in ('aeiou' if (_races_f := (_races_f - 5)) >= 0 else _races_fuel_out()):
                n += 1
    _races_fuel[0] = _races_f
    return n

def _races_entry__f(s, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, s)
    n = 0
    _races_i4 = s
    try:
        _races_n3 = _races_len(_races_i4)
    except _races_LEN_ERRORS:
        _races_n3 = _races_INF
    if _races_n3 * 6 <= _races_f:
        _races_f -= _races_n3 * 6
        for c in _races_i4:
            if c in 'aeiou':
                n += 1
    else:
        for c in _races_i4:
            if not _races_f:
                raise _races_FuelOut
            _races_f -= 1
            if c in ('aeiou' if (_races_f := (_races_f - 5)) >= 0 else _races_fuel_out()):
                n += 1
    _races_r = n
    _races_meter[0] = _races_f
    return _races_r
