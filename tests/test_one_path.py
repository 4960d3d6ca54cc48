"""One path from every input to the engine: the table service and the touchscreen name no action
type and no title.  What an action is called, what a button says and which cards a tap means live
in the title's table (``companion/table/titles``); the service keeps the proposal, confirm, undo
and redo, the screens lay out what the titles and view models give them."""

from __future__ import annotations

import ast
from pathlib import Path

from companion.engine import new_game
from companion.engine.titles import PACKAGES

ROOT = Path(__file__).resolve().parents[1]
#: the files that must not know an action type or a title (the demo plays a recorded game and is
#: not yet in its title's folder; companion/ui/titles holds the titles' own screen panels)
GUARDED = [
    ROOT / "companion/table/service.py",
    ROOT / "companion/table/proposer.py",
    ROOT / "companion/table/drawnmap.py",
    *(
        p
        for p in (ROOT / "companion/ui").rglob("*.py")
        if p.name != "scenario.py" and "titles" not in p.parts and "demo" not in p.parts
    ),
]
#: words that are an action type's name but mean something else where they stand: the market's
#: "par" zone (a cell where corporations may be parred), named so by the titles' data
OTHER_MEANINGS = {("companion/ui/viewmodels/common.py", "par")}


def _action_types() -> set[str]:
    types = {"pass", "undo", "redo", "message"}
    for title in PACKAGES:
        game = new_game(title, ["Ann", "Bob", "Cy"], frozenset(), 0)
        types |= set(game.REQUIRED_FIELDS) | set(game.CARD_ACTION_TYPES)
    return types


def _strings(path: Path) -> list[tuple[int, str]]:
    """The string constants of a file that are not docstrings."""
    tree = ast.parse(path.read_text(), str(path))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_the_service_and_the_screens_name_no_action_type() -> None:
    types = _action_types()
    assert {"buy_shares", "lay_tile", "run_routes", "build_links", "dividend"} <= types
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text!r}"
        for path in GUARDED
        for line, text in _strings(path)
        if text in types and (str(path.relative_to(ROOT)), text) not in OTHER_MEANINGS
    ]
    assert found == []


def test_the_service_and_the_screens_name_no_title() -> None:
    names = set(PACKAGES) | set(PACKAGES.values())
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text!r}"
        for path in GUARDED
        for line, text in _strings(path)
        if text in names
    ]
    assert found == []
