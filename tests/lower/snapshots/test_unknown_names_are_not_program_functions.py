# Snapshot of the code emitted for tests/lower/test_instrument.py::test_unknown_names_are_not_program_functions.
# Generated; regenerate with: RACESL_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q -p no:randomly tests/lower/test_instrument.py
# ruff: noqa


# ==============================================================================
# case 0: no lambda wrapper
# input:
#   def f():
#       return open

def f(_races_fuel, _races_depth):
    _races_f = _races_fuel[0] - 1
    if _races_f < 0:
        _races_entry_fail(_races_f, _races_depth)
    _races_fuel[0] = _races_f
    return open

def _races_entry__f(_races_wall=None, _races_f=0, _races_meter=None):
    return open
