"""The titles the companion knows: one folder each, and this registry of them.

Every title is a folder beside this module (``g1870/``, …) holding everything of that title:

- its rules: the package itself exports ``TITLE`` (a :class:`TitleInfo`) and ``GAME_CLASS`` (its
  :class:`companion.engine.core.TableGame` subclass); its other rule modules beside it.  These are
  the only part the engine imports.
- ``data.json``: its components (map, tiles, market, trains, companies, or its own grammar).
- ``table.py`` (optional): its :class:`companion.table.titles.TableTitle` (``TABLE``), for a title
  the shared 18xx table does not serve alone.
- ``screens.py`` (optional): panels and texts of its screens (:mod:`companion.ui.titles`).
- ``demo.json`` / ``demo.py`` (optional): the game ``companion demo`` plays, and its script.

The core, the table, the screens and the camera never name a title: they ask this registry, whose
:data:`PACKAGES` is the one list of titles every other list is derived from.  This module imports
nothing of the engine, so the camera (which must not import the rules) may read a title's data
through :func:`data_text`.

Adding a title: see docs/ENGINE.md ("Adding a title").
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Collection
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.engine.core import TableGame

#: title name → package (under ``companion.titles``) holding its rules, in menu order
PACKAGES: dict[str, str] = {
    "1870": "g1870",
    "1867": "g1867",
    "1861": "g1861",
    "1833NE": "g1833ne",
    "TSR": "tsr",
    "CoBS": "cobs",
}


#: the title a new installation plays until one is configured: the first in menu order
DEFAULT_TITLE = next(iter(PACKAGES))


@dataclass(frozen=True)
class OptionalRule:
    sym: str
    short_name: str
    description: str = ""


@dataclass(frozen=True)
class GameSetting:
    """A whole number the players choose when a game is created (say, what their printed board
    shows where no source gives it).  A chosen value travels with the game's optional rules as
    ``sym=value`` (:meth:`rule`): the store, the export's settings and every replay keep it."""

    sym: str
    label: str
    """What the New game screen asks ("Dividend phases on your board's dividends track")."""
    default: int
    low: int
    high: int
    note: str = ""
    """Why the players are asked (where the number comes from)."""

    def rule(self, value: int) -> str:
        """The optional-rule entry that chooses ``value`` (``dividends_track=12``)."""
        return f"{self.sym}={value}"


def chosen_settings(title: str, settings: tuple[GameSetting, ...], rules: Collection[str]) -> dict[str, int]:
    """Each setting's value among a game's optional ``rules`` (its default where none is chosen);
    ``GameError`` naming the setting and its range for a value that is not a whole number in range,
    a setting chosen twice, or a ``sym=value`` entry that is no setting of ``title``."""
    from companion.engine.errors import GameError

    known = {s.sym: s for s in settings}
    out = {s.sym: s.default for s in settings}
    seen: set[str] = set()
    for rule in sorted(rules):
        sym, eq, text = rule.partition("=")
        if not eq:
            continue
        setting = known.get(sym)
        if setting is None:
            names = ", ".join(f"{s.sym}=N" for s in settings) or "none"
            raise GameError(f"{title} has no setting {sym!r} (its settings: {names})")
        if sym in seen:
            raise GameError(f"{setting.label}: chosen twice")
        seen.add(sym)
        span = f"a whole number from {setting.low} to {setting.high}"
        try:
            value = int(text.strip())
        except ValueError:
            raise GameError(f"{setting.label} must be {span}, not {text!r}") from None
        if not setting.low <= value <= setting.high:
            raise GameError(f"{setting.label} must be {span}, not {value}")
        out[sym] = value
    return out


@dataclass(frozen=True)
class TitleInfo:
    """What a menu, a tag sheet or a table needs to know about a title before a game exists."""

    name: str
    """The title's own short name (``"1870"``); also its key in the registry and the store."""
    display_name: str
    min_players: int
    max_players: int
    optional_rules: tuple[OptionalRule, ...] = ()
    playable: bool = False
    """Its rules are written: a game can be started and played."""
    complete: bool = False
    """Proven end to end (real games replay to their result; the table plays it)."""
    currency: str = "${}"
    """How money is written (``"${}"``, ``"₽{}"``)."""
    has_map: bool = True
    """The title has hexes and tiles (the camera and the map screens apply)."""
    settings: tuple[GameSetting, ...] = ()
    """Numbers chosen when a game is created (:class:`GameSetting`)."""
    upgrade_labels: tuple[tuple[str, str, str], ...] = ()
    """Labels the title's rules (not its printed map) require of an upgrade: ``(hex, colour, label)``,
    e.g. 1870's gray tile on Kansas City must be the K tile.  The camera reads a hex knowing them."""

    def money(self, amount: int) -> str:
        return self.currency.format(f"{amount:,}")


def title_package(name: str) -> Any:
    """The package of a title's rules (None for a name that is no title)."""
    pkg = PACKAGES.get(name)
    if pkg is None:
        return None
    return importlib.import_module(f"{__name__}.{pkg}")


def title_module(name: str, part: str) -> ModuleType | None:
    """The module ``part`` of ``name``'s folder (``table``, ``screens``, ``demo``), or None when the
    title has none (or ``name`` is no title).  An error inside an existing module is raised."""
    pkg = PACKAGES.get(name)
    if pkg is None:
        return None
    module = f"{__name__}.{pkg}.{part}"
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            return None
        raise


def data_text(name: str, file: str = "data.json") -> str:
    """The text of a file in ``name``'s folder (its components, ``data.json``, by default), read
    without importing the title's rules; ``KeyError`` naming the known titles for another name,
    ``FileNotFoundError`` when the folder has no such file."""
    pkg = PACKAGES.get(name)
    if pkg is None:
        raise KeyError(f"unknown title {name!r}; known titles: {', '.join(PACKAGES)}")
    return resources.files(__name__).joinpath(pkg, file).read_text(encoding="utf-8")


def has_file(name: str, file: str) -> bool:
    """Whether ``name``'s folder holds ``file`` (``demo.json``)."""
    pkg = PACKAGES.get(name)
    return pkg is not None and resources.files(__name__).joinpath(pkg, file).is_file()


def titles_with(*files: str) -> tuple[str, ...]:
    """The titles whose folder holds any of ``files`` (``demo.json``: a packaged real game), in menu
    order, found without importing a title."""
    return tuple(name for name in PACKAGES if any(has_file(name, f) for f in files))


@cache
def map_titles() -> tuple[str, ...]:
    """The titles whose components are in the 18xx.games grammar, with a map of hexes and tiles (the
    map, the routes and the camera read them), in menu order."""
    return tuple(name for name in PACKAGES if "map" in json.loads(data_text(name)))


def optional_rules_of(meta: dict[str, Any]) -> tuple[OptionalRule, ...]:
    """The optional rules listed in a title's ``meta`` (18xx.games data grammar)."""
    return tuple(
        OptionalRule(str(r["sym"]), str(r.get("short_name", r["sym"])), str(r.get("desc", "")))
        for r in meta.get("optional_rules", [])
    )


def title_info(name: str) -> TitleInfo:
    """The registry entry of ``name``; raises ``KeyError`` with the known names."""
    pkg = title_package(name)
    if pkg is None:
        raise KeyError(f"unknown title {name!r}; known titles: {', '.join(known_titles())}")
    info: TitleInfo = pkg.TITLE
    return info


def currency_of(name: str) -> str:
    """How ``name`` writes money (``"${}"``, ``"{}₽"``); dollars for a title the registry does not know."""
    try:
        return title_info(name).currency
    except KeyError:
        return "${}"


def format_money(currency: str, amount: object) -> str:
    """``amount`` written with ``currency`` (``"${}"`` → ``$1,234``); a fraction keeps its decimals."""
    if isinstance(amount, float) and not amount.is_integer():
        return currency.format(f"{amount:g}")
    if isinstance(amount, int | float):
        return currency.format(f"{int(amount):,}")
    text = str(amount).strip()
    if text.lstrip("-").isdigit():
        return currency.format(f"{int(text):,}")
    return currency.format(text)


def known_titles() -> list[str]:
    """Every title the companion knows, in menu order."""
    return list(PACKAGES)


def playable_titles() -> list[str]:
    return [name for name in PACKAGES if title_info(name).playable]


def all_titles() -> list[TitleInfo]:
    return [title_info(name) for name in known_titles()]


def game_class(name: str) -> type[TableGame]:
    """The game class that plays ``name`` (an 18xx ``Game`` or another ``TableGame``);
    ``KeyError`` when it is not playable."""
    pkg = title_package(name)
    if pkg is None or not pkg.TITLE.playable:
        raise KeyError(name)
    cls: type[TableGame] = pkg.GAME_CLASS
    return cls


def title_data(name: str) -> dict[str, Any]:
    """A fresh copy of the title's data, as its package loads it."""
    pkg = title_package(name)
    if pkg is not None and hasattr(pkg, "load_data"):
        data: dict[str, Any] = pkg.load_data()
        return data
    from companion.data import load_title

    return load_title(name)
