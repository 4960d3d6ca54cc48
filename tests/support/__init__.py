"""Helpers shared by the tests, by subject (no test file imports another test file)."""
