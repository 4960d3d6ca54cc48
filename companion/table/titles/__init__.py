"""What a title without the 18xx map, trains and stock market shows and means at the table.

The 18xx titles (1870, 1867, 1861, 1833NE) are served by the shared 18xx table code
(``companion/table/service.py``, ``companion/ui/viewmodels.py``).  A title that has no map
(``TitleInfo.has_map`` False: Trans-Siberian Railroad, City of the Big Shoulders) answers for
itself through a module of its own here, named like its engine package
(``companion/table/titles/tsr.py`` for ``companion/engine/titles/tsr``).  The module provides:

``tag_items(optional_rules: tuple[str, ...]) -> tuple[Item, ...]``
    The cards that carry an NFC sticker in this title (share certificates, player cards, …),
    as :class:`companion.table.tags.Item` with ids the engine's ``LegalAction.cards`` use.
``describe_action(game, action) -> str``
    One sentence in the game's own words for a proposal or a log line
    ("Anna buys a red share for $12").
``choice(game, legal: LegalAction) -> Choice``
    The touch button for one of the engine's legal actions: its group (buttons of a group share a
    popup) and its label.
``panels(game) -> tuple[Panel, ...]``
    What the title's board screen shows: tables of rows (the railroads' income and stock value,
    the timing track, the companies' goods, …), readable at 800×480.

And optionally (the table has a default for each):

``why_not(game, card: str) -> str | None``
    Why a tapped card means nothing now, in the game's words (default: whose turn it is and what
    they may do).
``bank_text(game) -> str``
    What the top bar says of the bank (default: "Bank $1,234"; a title whose bank never runs out
    says so).
``phase_text(game) -> str``
    The phase the top bar shows under the round (default: ``game.phase``; "" for none, where the
    round's name says it).
``network(game) -> Network | None``
    A drawn map of the board's network (default: none): the places as dots, the links between
    them as lines coloured by who built them, each line carrying the legal actions that build it.
    The Board screen draws it (``companion/ui/netmap.py``); touching one place then another
    proposes the actions of the line joining them (``TableService.propose_line``); while a
    one-link build is proposed the map highlights the second links that may follow it
    (``TableService.drawn_network``).
``counters(game) -> tuple[tuple[str, str], ...]``
    The few counters the players watch most, as (label, value) pairs ("Timing", "2 of 5"):
    beside the drawn map, so they are in sight with it at 800×480 without scrolling.
``PRICE_STEP: int``
    How much a second tap (or ``+``) raises a price the players set, such as a bid (default 1).

The table service (``companion/table/service.py``) serves every such title the same way: a tap
proposes the legal actions involving the card (``game.actions_involving``), each an option
tapped through with the same card, worded by ``describe_action``; a card tapped while another's
proposal is pending joins it when a legal action involves both; a player card passes; a touch
button proposes one of ``game.legal_actions()`` (labelled and grouped by ``choice``); confirm,
cancel, undo and redo are the 18xx ones.

Nothing here decides a rule: every action offered comes from ``game.legal_actions()`` and is
checked by the engine before it is confirmed.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any

from companion.engine.titles import PACKAGES

__all__ = [
    "Choice",
    "Network",
    "NetworkLine",
    "NetworkPlace",
    "Panel",
    "counters_of",
    "network_of",
    "table_module",
    "title_module",
]


@dataclass(frozen=True)
class Panel:
    """One table on a title's board screen."""

    heading: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    highlight: tuple[int, ...] = ()
    """Indexes of rows to show highlighted (the acting player or company)."""
    note: str = ""
    """A line under the table (what happens next: "dividends in 2 moves")."""


@dataclass(frozen=True)
class Choice:
    """A touch button for one legal action."""

    group: str
    label: str


@dataclass(frozen=True)
class NetworkPlace:
    """A place on a title's drawn network map (a city, a border location)."""

    id: str
    name: str
    x: float
    """Across the board, growing to the right (any unit: the map is scaled to the screen)."""
    y: float
    """Down the board, growing downwards."""
    border: bool = False


@dataclass(frozen=True)
class NetworkLine:
    """A link of a title's network: the places it joins (two, or more for a branching one)."""

    id: str
    name: str
    places: tuple[str, ...]
    color: str = ""
    """The colour of who built it ("" while nobody has)."""
    actions: tuple[dict[str, Any], ...] = ()
    """The legal actions (``game.legal_actions()`` entries' dicts) that build it now: a line with
    any is highlighted, and touching two of its places proposes them."""
    label: str = ""
    """What the map writes on the line (its value, "$3")."""


@dataclass(frozen=True)
class Network:
    """A title's drawn network map: its places and lines, and what the map says under it."""

    places: tuple[NetworkPlace, ...]
    lines: tuple[NetworkLine, ...]
    note: str = ""
    proposed: tuple[str, ...] = ()
    """The lines of the build on the toast (set by the table service, not the title)."""
    following: tuple[str, ...] = ()
    """While a one-link build is on the toast: the lines that may be built with it as the second
    link (from where the first ended).  The map highlights these instead of :meth:`lit`."""

    def place(self, pid: str) -> NetworkPlace:
        return next(p for p in self.places if p.id == pid)

    def lit(self) -> tuple[NetworkLine, ...]:
        """The lines the player to act may build now."""
        return tuple(ln for ln in self.lines if ln.actions)

    def highlighted(self) -> tuple[NetworkLine, ...]:
        """The lines the map highlights: the second links that may follow the build on the toast,
        or (no such build) the lines the player to act may build now."""
        if self.proposed:
            return tuple(ln for ln in self.lines if ln.id in self.following)
        return self.lit()

    def joining(self, a: str, b: str) -> tuple[NetworkLine, ...]:
        """The lines that join places ``a`` and ``b``."""
        return tuple(ln for ln in self.lines if a != b and a in ln.places and b in ln.places)


def title_module(namespace: str, title: str) -> ModuleType | None:
    """The module named like ``title``'s engine package in the package ``namespace``
    (``companion.table.titles.tsr``), or None when that package has none for the title."""
    pkg = PACKAGES.get(title)
    if pkg is None:
        return None
    try:
        return importlib.import_module(f"{namespace}.{pkg}")
    except ModuleNotFoundError as exc:
        if exc.name == f"{namespace}.{pkg}":
            return None
        raise


@cache
def table_module(title: str) -> ModuleType | None:
    """The table module of ``title`` (see the module docstring), or None when the title has none
    (the 18xx titles, served by the shared 18xx table code).  Asked on every tap and screen refresh,
    so the answer (the modules are fixed) is looked up once per title."""
    return title_module(__name__, title)


def network_of(game: Any) -> Network | None:
    """``game``'s drawn network map, from its title's table module's ``network`` hook (None: the
    title has no table module or offers no map)."""
    module = table_module(game.title)
    hook = getattr(module, "network", None) if module is not None else None
    if hook is None:
        return None
    net = hook(game)
    assert net is None or isinstance(net, Network)
    return net


def counters_of(game: Any) -> tuple[tuple[str, str], ...]:
    """``game``'s key counters as (label, value) pairs, from its title's table module's
    ``counters`` hook (none: the title has no such hook)."""
    module = table_module(game.title)
    hook = getattr(module, "counters", None) if module is not None else None
    if hook is None:
        return ()
    return tuple((str(a), str(b)) for a, b in hook(game))
