"""One path from every input to the engine: the table service and the touchscreen name no action
type, and nothing outside a title's folder names a title.  What an action is called, what a button
says and which cards a tap means live in the title's table (``companion/table/titles.py`` and the
title's folder); the service keeps the proposal, confirm, undo and redo, the screens lay out what
the titles and view models give them."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from companion.engine import new_game
from companion.titles import PACKAGES
from tests.support.paths import ROOT

#: the files that must not know an action type (a title's demo scenes, which stop at the actions
#: they show, are in its folder)
GUARDED = [
    ROOT / "companion/table/service.py",
    ROOT / "companion/table/proposer.py",
    ROOT / "companion/table/drawnmap.py",
    *(ROOT / "companion/ui").rglob("*.py"),
]
#: the one list of titles (the registry); every other file outside the titles' folders is checked
REGISTRY = ROOT / "companion/titles/__init__.py"
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
    docstrings = {  # a module's, class's or function's, and an attribute's (a bare string statement)
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
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


def _outside_the_titles() -> list[Path]:
    """Every product file but the titles' own folders and the registry."""
    titles = ROOT / "companion/titles"
    return [
        p
        for folder in ("companion", "vision")
        for p in sorted((ROOT / folder).rglob("*.py"))
        if p != REGISTRY and not p.is_relative_to(titles)
    ]


def _title_words() -> re.Pattern[str]:
    names = sorted(set(PACKAGES) | set(PACKAGES.values()), key=len, reverse=True)
    return re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, names)) + r")(?!\w)")


def test_nothing_outside_a_titles_folder_names_a_title() -> None:
    """The engine, the table, the screens, the demo, the commands and the camera ask the registry; a
    title's name (or its folder's) in their code is a title spread outside its folder.  Docs and
    comments may give examples."""
    words = _title_words()
    files = _outside_the_titles()
    assert ROOT / "companion/ui/demo/__init__.py" in files and ROOT / "companion/table/service.py" in files
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text!r}"
        for path in files
        for line, text in _strings(path)
        if words.search(text)
    ]
    assert found == []


def test_the_check_sees_a_title_inside_a_longer_string(tmp_path: Path) -> None:
    name = next(iter(PACKAGES))
    sample = tmp_path / "sample.py"
    sample.write_text(
        f'"""Docs may say {name}."""\nDEFAULT = "{name}"\nHELP = f"default: {name}, or another"\n'
    )
    words = _title_words()
    assert [line for line, text in _strings(sample) if words.search(text)] == [2, 3]


def test_the_shared_18xx_table_words_only_the_cores_action_types() -> None:
    """An action type a title's rules add (a merger, a takeover, a ferry) is worded in that title's
    folder (its ``table.py``), so adding one touches only the folder: the shared 18xx table names
    only the core's types."""
    from companion.engine.game import Game

    core = set(Game.REQUIRED_FIELDS) | set(Game.CARD_ACTION_TYPES) | {"pass"}
    own = _action_types() - core
    assert {"merge", "convert", "take_over", "buy_ferry"} <= own
    shared = ROOT / "companion/table/g18xx.py"
    found = [f"{line}: {text!r}" for line, text in _strings(shared) if text in own]
    assert found == []


def test_a_titles_own_action_types_are_worded_by_its_folder() -> None:
    """The sentence and the button of a title's own action type come from its folder's table."""
    from companion.table.titles import table_title
    from companion.titles import title_module

    for title in PACKAGES:
        module = title_module(title, "table")
        if module is not None:
            assert table_title(title) is module.TABLE
    mergers = [t for t in PACKAGES if "merge" in new_game(t, ["A", "B", "C"], frozenset(), 0).REQUIRED_FIELDS]
    assert mergers, "a title with a merger round"
    for title in mergers:
        game = new_game(title, ["A", "B", "C"], frozenset(), 0)
        corp = game.corporations[0].sym
        action = {"type": "convert", "entity": corp, "entity_type": "corporation"}
        assert table_title(title).describe(game, action) == f"{corp} converts into a major company"
