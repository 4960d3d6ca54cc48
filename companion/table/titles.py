"""What each title shows and means at the table: one protocol, :class:`TableTitle`, for every title.

Every input at the table (a tapped card, a touched button, a typed terminal command, a tile the
camera sees) is a filter over the engine's legal actions (``game.legal_actions()``); what the
players read about them comes from the title's :class:`TableTitle`:

``describe(game, action, applied=False)``
    One sentence in the game's own words for a proposal, a log line, an undo or a redo
    ("Anna buys 10% SLSF from the IPO for $100"), money in the title's currency (:meth:`money`).
``choice(game, legal)`` / ``choices(game, entity, routes)``
    The touch button for one legal action (its group and label), and every button now: the
    touchscreen's action bar and the terminal's ``touch LABEL`` offer exactly these.
``tap(table, item)``
    What a tapped card proposes: by default the legal actions involving the card
    (``game.actions_involving``), each an option tapped through with the same card.
``priced(table, action)``
    The proposal for an action the screen picked, with its price range where the players set one.
``panels``, ``bank_text``, ``phase_text``, ``network``, ``counters``, ``why_not``, ``tag_items``
    The board screen's tables, the top bar, the drawn network map (TSR), the counters beside it,
    why a card means nothing now, and the cards carrying an NFC sticker.

The four 18xx titles share :mod:`companion.table.g18xx` (their certificates, private
companies, trains, tiles, tokens and routes); a title without the 18xx map answers through a
module of its own here, named like its engine package (``tsr.py``, ``cobs.py``), which defines
``TABLE``.  :func:`table_title` finds a title's.

Nothing here decides a rule: every action offered comes from ``game.legal_actions()`` and is
checked by the engine before it is confirmed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Any

from companion.engine.core import TableGame
from companion.engine.errors import GameError
from companion.engine.rounds import LegalAction
from companion.titles import currency_of, format_money, title_module

#: optional rules that swap the data's train list for one of its constants
VARIANT_TRAINS = {"diesels": "DIESEL_VARIANT_TRAINS"}

if TYPE_CHECKING:  # the table service uses the titles; a title's taps use the service
    from companion.engine.core import Preview
    from companion.engine.route_optimizer import RouteResult
    from companion.table.proposal import Action, Outcome, Proposal
    from companion.table.service import TableService
    from companion.table.tags import Item

__all__ = [
    "VARIANT_TRAINS",
    "ActionChoice",
    "Choice",
    "Network",
    "NetworkLine",
    "NetworkPlace",
    "Panel",
    "TableTitle",
    "counters_of",
    "network_of",
    "table_module",
    "served",
    "table_title",
]


#: an amount of money as the engine writes it (``$1,250``, ``$12.5``)
_DOLLARS = re.compile(r"\$(\d[\d,]*(?:\.\d+)?)")


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
    same: tuple[Any, ...] | None = None
    """Buttons with the same ``same`` (certificates that differ only by their number) are shown
    once, the first; None: buttons with the same label are."""


@dataclass(frozen=True)
class ActionChoice:
    """One touch button: ``label`` shown, ``action`` proposed (after a confirm toast)."""

    group: str
    """Buttons of a group share a popup when there are many (``buy``, ``sell``, ``par``, ``tile``…)."""
    label: str
    action: dict[str, Any]
    hex: str = ""
    """The hex of the map a tile lay lies on (the tile picker draws it there); "" for the rest."""
    tile: str = ""
    """The tile a tile lay lays, as printed (``9``), for its picture; "" for the rest."""
    rotation: int = 0


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


class TableTitle:
    """What one title shows and means at the table (see the module docstring).  The defaults serve
    a title that needs nothing more than the engine's legal actions, worded by :meth:`describe`
    and labelled by :meth:`choice`."""

    board_screen: bool = True
    """The title's board of panels (:meth:`panels`) is its main screen; False: the 18xx screens
    (map, market, operating order, routes)."""
    price_step: int = 1
    """How much a second tap (or ``+``) raises a price the players set, such as a bid."""

    # -- words ---------------------------------------------------------------------------------
    def money(self, game: TableGame, amount: object) -> str:
        """``amount`` in the title's currency (1861: ``1,000₽``): the one money format of a title."""
        return format_money(currency_of(game.title), amount)

    def in_money(self, game: TableGame, text: str) -> str:
        """``text`` from the engine (its log, its refusals: written in dollars) with every amount in
        the title's money (1861: ``$25`` → ``25₽``)."""
        if currency_of(game.title) == "${}":
            return text

        def amount(m: re.Match[str]) -> str:
            digits = m.group(1).replace(",", "")
            return self.money(game, float(digits) if "." in digits else int(digits))

        return _DOLLARS.sub(amount, text)

    def holder_name(self, game: TableGame, who: object) -> str:
        """The name of who holds money in a preview (a player's name, a corporation's symbol)."""
        if who == "bank":
            return "Bank"
        return next((p.name for p in game.players if p.id == who), str(who))

    def money_lines(self, game: TableGame, preview: Preview) -> list[str]:
        """What a proposal moves, one line each: ``Ann: $400 → $300``, ``SLSF share price $70 →
        $60`` (the bank left out: it pays or takes the difference)."""
        lines = [
            f"{self.holder_name(game, m.who)}: {self.money(game, m.before)} → {self.money(game, m.after)}"
            for m in preview.money
            if m.who != "bank"
        ]
        for sym, (a, b) in preview.share_prices.items():
            lines.append(
                f"{sym} share price {self.money(game, b)}"
                if not a
                else f"{sym} share price {self.money(game, a)} → {self.money(game, b)}"
            )
        return lines

    def describe(self, game: TableGame, action: Action, *, applied: bool = False) -> str:
        """One sentence for ``action``: before it is applied (a proposal), or after (``applied``:
        the log, an undo), when who held what can no longer be read off the game."""
        raise NotImplementedError

    def choice(self, game: TableGame, legal: LegalAction) -> Choice:
        """The touch button for one legal action."""
        raise NotImplementedError

    def choices(
        self, game: TableGame, entity: Any = None, routes: RouteResult | None = None
    ) -> list[ActionChoice]:
        """Every button now (``entity``'s legal actions; None: all), each an action the engine
        accepts; ``routes``, suggested routes to run, for a title with a map."""
        if game.finished:
            return []
        out: list[ActionChoice] = []
        seen: set[tuple[Any, ...]] = set()
        for la in game.legal_actions(entity):
            pick = self.choice(game, la)
            key = pick.same if pick.same is not None else (pick.label,)
            if key not in seen:
                seen.add(key)
                out.append(ActionChoice(pick.group, pick.label, la.action))
        return out

    def suggested_routes(self, game: TableGame, time_limit: float | None = None) -> RouteResult | None:
        """The best routes the operating corporation may run now (None: it may run none, or the
        title has no map)."""
        return None

    def run_by_stops(self, game: TableGame, routes: Sequence[tuple[str | None, Sequence[str]]]) -> Action:
        """The run of routes a player names by their stops (each a train or None, and the hexes of
        its stops in order); ``GameError`` saying why not (here: the title runs no routes)."""
        raise GameError(f"there are no trains to run in {game.title}")

    def group_name(self, group: str) -> str:
        """The name of a popup holding a group of buttons (``Lay tile…``)."""
        return group[:1].upper() + group[1:] + "…"

    def group_look(self, group: str) -> str:
        """How a group's buttons stand in the action bar: ``"go"`` (few, in the bar, in the colour of
        getting on: run, pay out), ``"quiet"`` (few, in the bar, in the colour of passing),
        ``"inline"`` (few, in the bar) or ``"popup"`` (behind one button when there are several)."""
        return "quiet" if group == "pass" else "popup"

    def why_not(self, game: TableGame, card: str) -> str | None:
        """Why a tapped card means nothing now, in the game's words (None: the table's default,
        whose turn it is and what they may do)."""
        return None

    # -- the board screen ------------------------------------------------------------------------
    def panels(self, game: TableGame) -> tuple[Panel, ...]:
        """What the title's board screen shows: tables of rows, readable at 800×480."""
        return ()

    def bank_text(self, game: TableGame) -> str:
        """What the top bar says of the bank."""
        return f"Bank {self.money(game, game.bank.cash)}"

    def phase_text(self, game: TableGame) -> str:
        """The phase the top bar shows under the round ("" where the round's name says it)."""
        return str(getattr(game, "phase", "") or "")

    def network(self, game: TableGame) -> Network | None:
        """A drawn map of the board's network (the Board screen draws it), or None."""
        return None

    def counters(self, game: TableGame) -> tuple[tuple[str, str], ...]:
        """The few counters the players watch most, as (label, value), beside the drawn map."""
        return ()

    def hex_of(self, game: TableGame, action: Action) -> str | None:
        """The hex of the map ``action`` lies on (a tile lay, a station token), or None."""
        return None

    def building(self, action: Action) -> tuple[str, ...]:
        """The lines of the drawn map that ``action`` builds (none: it builds none)."""
        return ()

    def second_links(
        self, game: TableGame, net: Network, action: Action, place: str | None = None
    ) -> list[LegalAction]:
        """The legal builds that go on from where the one-line build ``action`` ends, whose second
        line reaches ``place`` beyond the first (any: None)."""
        return []

    def tag_items(self, optional_rules: tuple[str, ...] = ()) -> tuple[Item, ...] | None:
        """The cards that carry an NFC sticker (None: those the title's 18xx data describe, by
        :meth:`train_cards`, :meth:`corporation_cards` and :meth:`marker_cards`)."""
        return None

    def train_cards(self, spec: dict[str, Any], optional_rules: frozenset[str]) -> list[dict[str, Any]]:
        """The train cards of a game with these optional rules (18xx data: its ``trains``, or the
        variant list an optional rule names in its constants, such as the diesels')."""
        for rule in sorted(optional_rules):
            variant = spec.get("constants", {}).get(VARIANT_TRAINS.get(rule, ""))
            if isinstance(variant, list):
                return variant
        trains: list[dict[str, Any]] = spec["trains"]
        return trains

    def corporation_cards(self, spec: dict[str, Any], optional_rules: frozenset[str]) -> list[dict[str, Any]]:
        """The corporations whose certificates a game with these optional rules has (18xx data)."""
        corporations: list[dict[str, Any]] = spec["corporations"]
        return corporations

    def marker_cards(self, spec: dict[str, Any], optional_rules: frozenset[str]) -> list[dict[str, Any]]:
        """Markers that carry a tag besides the cards (``id``, ``name``, ``price``, ``index``,
        ``count``); none unless the title has some."""
        return []

    # -- inputs ----------------------------------------------------------------------------------
    def tap(self, table: TableService, item: Item) -> Outcome:
        """A tapped card: the legal actions involving it, each an option (tapped through with the
        same card; a player card passes).  A card tapped while another card's proposal is pending
        joins it when some legal action involves both (two shares bought in one turn)."""
        game = table.game
        p = table.proposal
        if p is not None and not p.rewind and item.id in p.cards:
            return table.next_option()
        from companion.table.tags import ItemKind

        if item.kind is ItemKind.PLAYER:
            player = table.seat(item)
            passes = [la for la in game.legal_actions() if la.passes and la.action.get("entity") == player.id]
            if not passes:
                current = table.current()
                if current is not player:
                    raise GameError(f"it is {current.name}'s turn, not {player.name}'s")
                raise GameError(f"{player.name} cannot pass now: {table.step_description(player)}")
            return table.offer(table.title_proposal(passes, (item.id,)))
        legal = game.actions_involving(item.id)
        if p is not None and p.cards and not p.rewind:
            both = [la for la in legal if set(p.cards) <= set(la.cards)]
            if both:
                return table.offer(table.title_proposal(both, (*p.cards, item.id)))
        if not legal:
            raise GameError(self.why_not(game, item.id) or table.nothing_to_do(item))
        # a card means what it can do alone first (one share before two); passing is the player card's
        meant = sorted((la for la in legal if not la.passes), key=lambda la: len(la.cards)) or legal
        return table.offer(table.title_proposal(meant, (item.id,)))

    def priced_text(self, game: TableGame, kind: str, action: Action, preview: Preview) -> str:
        """The sentence of a proposal of ``kind`` at another price (``action``'s)."""
        return self.describe(game, action)

    def priced(self, table: TableService, action: Action) -> Proposal | None:
        """The proposal for ``action`` picked on the screen (a button, the map): the legal action it
        is, worded and labelled as a tap's, at the action's price where the players set one (None:
        no legal action is it; the engine's refusal then says why)."""
        matched = table.legal_matching(action)
        if matched is None:
            return None
        return table.title_proposal([matched], matched.cards, action)


@cache
def table_module(title: str) -> ModuleType | None:
    """The table module of ``title``'s folder (``companion/titles/tsr/table.py``), or None for a
    title the shared 18xx table (:mod:`companion.table.g18xx`) serves alone."""
    return title_module(title, "table")


def served(title: str) -> bool:
    """Whether ``title`` can be played at the table: the shared 18xx table serves a title with the
    18xx map, a title without one needs a module of its own here."""
    from companion.titles import title_info

    return title_info(title).has_map or table_module(title) is not None


@cache
def table_title(title: str) -> TableTitle:
    """``title``'s :class:`TableTitle`: its own module's ``TABLE``, else the shared 18xx one.
    Asked on every tap and screen refresh, so it is looked up once per title."""
    module = table_module(title)
    if module is not None:
        table = getattr(module, "TABLE", None)
        if not isinstance(table, TableTitle):
            raise TypeError(f"{module.__name__} defines no TABLE (a TableTitle)")
        return table
    from companion.table.g18xx import TABLE_18XX

    return TABLE_18XX


def network_of(game: Any) -> Network | None:
    """``game``'s drawn network map (None: the title offers none)."""
    net = table_title(game.title).network(game)
    assert net is None or isinstance(net, Network)
    return net


def counters_of(game: Any) -> tuple[tuple[str, str], ...]:
    """``game``'s key counters as (label, value) pairs (none: the title shows none)."""
    return tuple((str(a), str(b)) for a, b in table_title(game.title).counters(game))
