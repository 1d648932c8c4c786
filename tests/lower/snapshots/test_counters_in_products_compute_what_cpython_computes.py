# Snapshot of the code emitted for tests/lower/test_instrument.py::test_counters_in_products_compute_what_cpython_computes.
# Generated; regenerate with: RACESL_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q -p no:randomly tests/lower/test_instrument.py
# ruff: noqa


# ==============================================================================
# case 0: no _races_g_mul
# input:
#   def f(n):
#       r = 0
#       while (r + 1) * (r + 1) <= n:
#           r += 1
#       return r

def f(_races_fuel, _races_depth, n):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    r = 0
    while (r + 1) * (r + 1) <= n:
        if not _races_f:
            raise _races_FuelOut
        _races_f -= 1
        r += 1
    _races_fuel[0] = _races_f
    return r

def _races_entry__f(n, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(f, _races_wall, _races_f, _races_meter, n)
    r = 0
    while (r + 1) * (r + 1) <= n:
        if not _races_f:
            raise _races_FuelOut
        _races_f -= 1
        r += 1
    _races_r = r
    _races_meter[0] = _races_f
    return _races_r
