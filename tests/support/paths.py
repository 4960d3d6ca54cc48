"""Where the tests find things: the tests' folder, the repository's root, the tests' fixtures
(wherever a test file sits under tests/)."""

from __future__ import annotations

from pathlib import Path

#: the tests/ folder
TESTS = Path(__file__).resolve().parents[1]
#: the repository's root
ROOT = TESTS.parent
#: the tests' data: 18xx.games exports, reference files, rules examples, random games, routes
FIXTURES = TESTS / "fixtures"
