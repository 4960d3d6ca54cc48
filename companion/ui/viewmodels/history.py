"""The game's story in numbers (the History screen, the game-over screen, ``companion export
--report``): each player's net worth, each company's share price and the bank's cash at the end of
every round, from the action log.

The game's actions are replayed on a fresh game of the same title, players, rules and seed, and the
numbers are read each time a round ends (and at the start, and now): net worth is the title's
``player_value`` (an 18xx: cash, certificates at their share price, privates at face value; TSR and
CoBS from their own counters), share prices the title's ``price_table`` (an 18xx's share prices, TSR's
stock values, CoBS's share values), the bank the game's ``cash_table``.  Title-neutral: every title's
engine answers these."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from companion.engine import GameError, as_18xx
from companion.engine.core import TableGame
from companion.table.titles import table_title
from companion.ui.viewmodels.common import currency, round_label

#: colours of the players' curves (seat order), and of companies without a colour of their own
PALETTE = (
    "#1565c0",
    "#c62828",
    "#2e7d32",
    "#f9a825",
    "#6a1b9a",
    "#00838f",
    "#ef6c00",
    "#4e342e",
    "#ad1457",
    "#37474f",
)


@dataclass(frozen=True)
class Series:
    """One curve: a name, its colour and a value at each sample (None: not in play yet, or gone)."""

    name: str
    color: str
    values: tuple[int | None, ...]

    @property
    def last(self) -> int | None:
        return next((v for v in reversed(self.values) if v is not None), None)


@dataclass(frozen=True)
class Story:
    """The game's numbers at the end of each round: ``labels[i]`` names sample ``i`` (the round that
    had just ended: ``Stock Round 1``; the first is ``Start``, the last the round now or ``Game
    over``), ``actions[i]`` how many actions the game had then."""

    title: str
    labels: tuple[str, ...]
    actions: tuple[int, ...]
    worth: tuple[Series, ...]
    """Each player's net worth."""
    prices: tuple[Series, ...]
    """Each company's share price (or stock value) once it has one."""
    bank: Series | None
    """The bank's cash (None where the bank is unlimited: City of the Big Shoulders)."""
    currency: str = "${}"
    finished: bool = False

    @property
    def short_labels(self) -> tuple[str, ...]:
        return tuple(short_round(label) for label in self.labels)


def short_round(label: str) -> str:
    """``Stock Round 3`` → ``SR3``, ``Operating Round 3.1`` → ``OR3.1``, ``Auction`` → ``Auction``,
    ``Game over`` → ``End``."""
    if label == "Game over":
        return "End"
    words = label.replace("(now)", "").split()
    numbers = [w for w in words if re.fullmatch(r"[\d.]+", w)]
    letters = [w for w in words if w not in numbers]
    if len(letters) == 1 and not numbers:
        return letters[0][:7]
    return "".join(w[0].upper() for w in letters) + "".join(numbers)


def _round_name(game: TableGame, counts: dict[str, int]) -> str:
    try:
        return round_label(as_18xx(game))
    except GameError:  # a title without a map: its round's name, numbered
        if game.finished:
            return "Game over"
        name = str(getattr(game.round, "name", "Round"))
        return f"{name} {counts.get(name, 0) + 1}"


def _sample(game: TableGame, bank: bool) -> tuple[dict[Any, int], dict[str, int], int | None]:
    worth = {p.id: int(game.player_value(p)) for p in game.players}
    prices = {sym: int(v) for sym, v in game.price_table().items() if v}
    return worth, prices, (int(game.cash_table()["bank"]) if bank else None)


def story(game: TableGame) -> Story:
    """Replay ``game``'s actions and read its numbers at every round's end (see the module)."""
    fresh = type(game)(game.data, game.player_spec, game.optional_rules, game.seed)
    fresh.checkpointing = False
    title = table_title(game.title)
    has_bank = "unlimited" not in title.bank_text(game).lower()
    counts: dict[str, int] = {}
    labels = ["Start"]
    marks = [0]
    samples = [_sample(fresh, has_bank)]
    current = fresh.round
    name = _round_name(fresh, counts)
    for n, action in enumerate(game.actions, 1):
        fresh.replay_action(action)  # the replay of a recorded log, as Game.replayed does
        if fresh.round is not current and not fresh.finished:
            labels.append(name)
            marks.append(n)
            samples.append(_sample(fresh, has_bank))
            base = name.rsplit(" ", 1)[0]
            counts[base] = counts.get(base, 0) + 1
            current = fresh.round
            name = _round_name(fresh, counts)
    if marks[-1] != len(game.actions) or fresh.finished:
        labels.append("Game over" if fresh.finished else f"{name} (now)")
        marks.append(len(game.actions))
        samples.append(_sample(fresh, has_bank))
    players = [
        Series(p.name, PALETTE[i % len(PALETTE)], tuple(s[0].get(p.id) for s in samples))
        for i, p in enumerate(sorted(fresh.players, key=lambda p: (str(type(p.id)), p.id)))
    ]
    syms: list[str] = []
    for s in samples:
        syms += [sym for sym in s[1] if sym not in syms]
    colors = _company_colors(fresh)
    prices = [
        Series(sym, colors.get(sym) or PALETTE[(i + 3) % len(PALETTE)], tuple(s[1].get(sym) for s in samples))
        for i, sym in enumerate(syms)
    ]
    bank = Series("Bank", "#263238", tuple(s[2] for s in samples)) if has_bank else None
    return Story(
        title=str(game.title),
        labels=tuple(labels),
        actions=tuple(marks),
        worth=tuple(players),
        prices=tuple(prices),
        bank=bank,
        currency=currency(game),
        finished=bool(fresh.finished),
    )


def _company_colors(game: TableGame) -> dict[str, str]:
    """Each company's own colour where the title gives one (an 18xx corporation's)."""
    out: dict[str, str] = {}
    for holder in [*getattr(game, "corporations", ()), *getattr(game, "railroads", ())]:
        color = getattr(holder, "color", None)
        sym = getattr(holder, "sym", None)
        if isinstance(color, str) and color.startswith("#") and sym:
            out[str(sym)] = color
    return out
