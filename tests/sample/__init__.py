"""Tests of input samplers (racesl.sample)."""
