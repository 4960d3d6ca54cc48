"""Benchmarks (``make bench``): separate from tests, figures go to docs/BENCHMARKS.md.

Each module in this package that defines ``bench() -> str`` contributes one
Markdown section (a ``## Heading`` and its figures).  Quote medians and
ratios measured side by side in the same run; never assert timings in tests.
"""
