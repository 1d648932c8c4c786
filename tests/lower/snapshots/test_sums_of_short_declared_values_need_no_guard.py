# Snapshot of the code emitted for tests/lower/test_instrument.py::test_sums_of_short_declared_values_need_no_guard.
# Generated; regenerate with: RACESL_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q -p no:randomly tests/lower/test_instrument.py
# ruff: noqa


# ==============================================================================
# case 0: guarded=False
# int_params: f: ['s#', 's#:20', 's$']
# input:
#   def f(s):
#       return s + s[::-1]

def f(_races_fuel, _races_depth, s):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_t1 if _races_type((_races_t1 := (s + s[::-1]))) not in _races_SEQ or _races_len(_races_t1) <= 100000 else _races_g_post(_races_t1)

def _races_entry__f(s, _races_wall=None, _races_f=0, _races_meter=None):
    return s + s[::-1]


# ==============================================================================
# case 1: guarded=True
# int_params: f: ['s#', 's$']
# input:
#   def f(s):
#       return s + s[::-1]

def f(_races_fuel, _races_depth, s):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_t1 if _races_type((_races_t1 := (s + s[::-1]))) not in _races_SEQ or _races_len(_races_t1) <= 100000 else _races_g_post(_races_t1)

def _races_entry__f(s, _races_wall=None, _races_f=0, _races_meter=None):
    return _races_t2 if _races_type((_races_t2 := (s + s[::-1]))) not in _races_SEQ or _races_len(_races_t2) <= 100000 else _races_g_post(_races_t2)


# ==============================================================================
# case 2: guarded=True
# int_params: f: ['s#', 's#:60000', 's$']
# input:
#   def f(s):
#       return s + s[::-1]

def f(_races_fuel, _races_depth, s):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return _races_t1 if _races_type((_races_t1 := (s + s[::-1]))) not in _races_SEQ or _races_len(_races_t1) <= 100000 else _races_g_post(_races_t1)

def _races_entry__f(s, _races_wall=None, _races_f=0, _races_meter=None):
    return _races_t2 if _races_type((_races_t2 := (s + s[::-1]))) not in _races_SEQ or _races_len(_races_t2) <= 100000 else _races_g_post(_races_t2)
