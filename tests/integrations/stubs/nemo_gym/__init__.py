"""A stand-in for nemo-gym's `base_resources_server` (0.4.0), for test_nemo_gym.py: the
names the template imports, with the fields nemo-gym 0.4.0 gives them (checked by hand
against the real package on Python 3.12; see docs/integrations.md)."""
