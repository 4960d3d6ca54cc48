"""No test file imports another test file: what tests share lives in ``tests/support``, imported in
one style, ``from tests.support.x import y``; pytest's ``conftest.py`` is pytest's alone.

Every ``import`` and ``from … import`` of every Python file under ``tests/`` is read with ``ast``
(those inside functions too); an import of a test module, by its package path (``tests.engine.x``,
``tests.test_x``), by its bare name (``test_x``, ``conftest``), or relative (``from . import x``),
is refused."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.paths import TESTS

#: the folders under tests/ that hold no test modules: data, and MicroPython checks run on the board
NOT_TEST_CODE = ("fixtures", "micropython")


def python_files(tests: Path) -> list[Path]:
    return sorted(p for p in tests.rglob("*.py") if p.relative_to(tests).parts[0] not in NOT_TEST_CODE)


def module_names_under(tests: Path) -> set[str]:
    """Every module name under ``tests`` outside ``support``: ``tests.engine.test_x`` and ``test_x``
    (a folder's package only by its full name: ``tests.vision``, not ``vision``)."""
    names: set[str] = set()
    for path in python_files(tests):
        rel = path.relative_to(tests).with_suffix("")
        if rel.parts[0] == "support":
            continue
        parts = [p for p in rel.parts if p != "__init__"]
        if parts:
            names.add(".".join(("tests", *parts)))
        if rel.name != "__init__":  # a file's bare name, as pytest's rootdir import mode would import it
            names.add(rel.name)
    return names


def imports_of_tests(path: Path, tests: Path) -> list[str]:
    """The imports of ``path`` that name a module under ``tests`` other than ``tests.support``, or
    that import ``tests.support`` in another style than ``from tests.support.x import y``."""
    banned = module_names_under(tests)
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
            if any(m == "tests.support" or m.startswith("tests.support.") for m in modules):
                found.append(
                    f"line {node.lineno}: import tests.support… (one style: from tests.support.x import y)"
                )
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                found.append(f"line {node.lineno}: a relative import")
                continue
            base = node.module or ""
            if base == "tests.support":
                found.append(
                    f"line {node.lineno}: from tests.support import … (one style: from tests.support.x import y)"
                )
            # ``from tests import x`` and ``from tests.engine import test_x`` name the module in the names
            modules = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        else:
            continue
        for module in modules:
            parts = module.split(".")
            if parts[0] == "tests" and parts[1:2] == ["support"]:
                continue
            prefixes = {".".join(parts[: n + 1]) for n in range(len(parts))}
            if (parts[0] == "tests" and len(parts) > 1 and prefixes & banned) or parts[0] in banned:
                found.append(f"line {node.lineno}: {module}")
    return found


def test_no_test_file_imports_another_test_file() -> None:
    files = python_files(TESTS)
    assert len(files) > 100, "the test files are found"  # the check reads the real tree
    bad = {str(p.relative_to(TESTS)): found for p in files if (found := imports_of_tests(p, TESTS))}
    assert not bad, f"test files import other test files (move what they share to tests/support): {bad}"


def test_the_check_sees_each_way_of_importing_a_test_file(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    for name in (
        "engine/__init__.py",
        "engine/test_a.py",
        "support/engine.py",
        "conftest.py",
        "test_flat.py",
    ):
        (tests / name).parent.mkdir(parents=True, exist_ok=True)
        (tests / name).write_text("")
    good = tests / "engine" / "test_good.py"
    good.write_text("from tests.support.engine import x\nimport json\nfrom companion.engine import Game\n")
    assert imports_of_tests(good, tests) == []
    for source in (
        "from tests.engine.test_a import helper",
        "from tests.engine import test_a",
        "import tests.engine.test_a",
        "from test_a import helper",
        "from test_flat import helper",
        "from tests.test_flat import helper",
        "from conftest import display",
        "import tests.support.engine",
        "from tests.support import engine",
        "from . import test_a",
        "def f():\n    from test_a import helper\n",
    ):
        bad = tests / "engine" / "test_bad.py"
        bad.write_text(source + "\n")
        assert imports_of_tests(bad, tests), source
