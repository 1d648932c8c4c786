# Snapshot of the code emitted for tests/lower/test_instrument.py::test_leaf_functions_skip_the_depth_test.
# Generated; regenerate with: RACESL_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q -p no:randomly tests/lower/test_instrument.py
# ruff: noqa


# ==============================================================================
# case 0: only caller tests the depth
# input:
#   def leaf(x):
#       return x
#
#   def caller(x):
#       return leaf(x)

def leaf(_races_fuel, _races_depth, x):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return x

def _races_entry__leaf(x, _races_wall=None, _races_f=0, _races_meter=None):
    return x

def caller(_races_fuel, _races_depth, x):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0 or _races_depth > 200:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return leaf(_races_fuel, _races_depth + 1, x)

def _races_entry__caller(x, _races_wall=None, _races_f=0, _races_meter=None):
    if not _races_wd.depth:
        return _races_enter_slow(caller, _races_wall, _races_f, _races_meter, x)
    _races_fuel = _races_meter
    _races_depth = 0
    _races_fuel[0] = _races_f
    return leaf(_races_fuel, _races_depth + 1, x)
