"""The layers import only downwards (the README's Layout): the rules engine (``companion/engine`` and
each title's rules in its folder under ``companion/titles``) never imports the table, the screens, the
hardware, the camera or a development tool; the camera's ``vision`` never imports the rules engine, a
title's rules or the table (the title registry, which reads a title's data without its rules, it may);
the installed packages never import ``devtools``.

Every ``import`` and ``from … import`` of the package files is read with ``ast`` (those inside
functions too), so a lazy import does not slip past."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.paths import ROOT

#: the parts of a title's folder that belong to the layers above the rules (its table, its screens,
#: its demo); every other module of the folder is the title's rules
TITLE_PARTS_ABOVE_RULES = ("table.py", "screens.py", "demo.py")

#: what the registry's functions that import a title's rules are called (the camera must not ask them)
REGISTRY_RULE_LOOKUPS = (
    "title_info",
    "title_package",
    "title_module",
    "game_class",
    "all_titles",
    "playable_titles",
)

#: package folder -> the modules (and everything under them) it must not import
RULES_FORBIDDEN = (
    "companion.table",
    "companion.ui",
    "companion.hardware",
    "companion.commands",
    "companion.store",
    "vision",
    "kivy",
    "cv2",
    "devtools",
)
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "companion/engine": RULES_FORBIDDEN,
    "companion/titles": RULES_FORBIDDEN,
    "vision": (
        "companion.engine",
        "companion.table",
        "companion.ui",
        "companion.store",
        "devtools",
        "kivy",
        *(f"companion.titles.{name}" for name in REGISTRY_RULE_LOOKUPS),
        *(
            f"companion.titles.{p.name}"
            for p in (ROOT / "companion/titles").iterdir()
            if p.is_dir() and p.name != "__pycache__"
        ),
    ),
    "companion": ("devtools",),
}

#: imports across a boundary that are still there, each with why; the test fails when one goes (so
#: the list stays true) as when a new one comes
KNOWN: dict[tuple[str, str], str] = {
    # the 1870 K and L tiles' cities come from the title registry's upgrade_labels; they should be
    # passed in by the caller (companion/table/camera.py), issue 37 item 4
    ("vision/board.py", "companion.titles.title_info"): "the labels the rules require of upgrades",
}


def _imports(path: Path, package: str | None = None) -> set[str]:
    """Every module (and ``module.name``) ``path`` imports; relative imports resolved against its
    package (by default the file's folder under the repository)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    if package is None:
        package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the file's package
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            out.add(module)
            out.update(f"{module}.{alias.name}" for alias in node.names)
    return out


def _crossings() -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for folder, forbidden in FORBIDDEN.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            if folder == "companion/titles" and path.name in TITLE_PARTS_ABOVE_RULES:
                continue
            for module in _imports(path):
                if any(module == f or module.startswith(f + ".") for f in forbidden):
                    name = path.relative_to(ROOT).as_posix()
                    found.add((name, module.split(".")[0] if module in ("cv2", "kivy") else module))
    return found


def _reduce(crossings: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """Each known crossing as listed (its submodules and names folded into it)."""
    out = set()
    for name, module in crossings:
        known = next((k for k in KNOWN if k[0] == name and (module + ".").startswith(k[1] + ".")), None)
        out.add(known or (name, module))
    return out


def test_no_layer_imports_one_above_it() -> None:
    assert _reduce(_crossings()) == set(KNOWN)


def test_the_check_sees_a_lazy_import_and_a_relative_one(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import numpy as np\n"
        "from . import tiles\n"
        "from ..titles import title_info\n"
        "def f():\n"
        "    import cv2\n"
        "    from companion.ui.app import CompanionApp\n"
    )
    seen = _imports(sample, "companion.table")
    assert {"numpy", "companion.table.tiles", "companion.titles.title_info", "cv2"} <= seen
    assert "companion.ui.app.CompanionApp" in seen
