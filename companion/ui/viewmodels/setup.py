"""The Setup screen's view model: titles, player counts and optional rules for a new game."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from companion.engine import all_titles
from companion.table.titles import served
from companion.titles import GameSetting

# --------------------------------------------------------------------------------------------- setup


@dataclass(frozen=True)
class TitleChoice:
    title: str
    subtitle: str
    playable: bool
    min_players: int
    max_players: int
    optional_rules: tuple[tuple[str, str, str], ...]
    """(sym, short name, description)."""
    settings: tuple[GameSetting, ...] = ()
    """Numbers chosen for a new game (TSR's dividends track), each with its default."""


@dataclass(frozen=True)
class SavedGame:
    id: int
    text: str


@dataclass(frozen=True)
class SetupView:
    titles: tuple[TitleChoice, ...]
    saved: tuple[SavedGame, ...] = ()

    def title(self, name: str) -> TitleChoice:
        for t in self.titles:
            if t.title == name:
                return t
        raise KeyError(f"unknown title {name!r}")


def is_placeholder_name(name: str) -> bool:
    """``Player 3``: the name a seat has until the table gives it one."""
    return re.fullmatch(r"Player \d+", name) is not None


def known_names(saved: Iterable[Any], limit: int = 12) -> tuple[str, ...]:
    """The players of the store's games (:class:`companion.store.GameRecord`), most recent game
    first, each once, placeholders left out: the names the New game screen offers without typing."""
    out: list[str] = []
    rows = sorted(saved, key=lambda r: -int(getattr(r, "id", 0)))
    for record in rows:
        for name in getattr(record, "players", ()):
            if name not in out and not is_placeholder_name(str(name)):
                out.append(str(name))
    return tuple(out[:limit])


def setup_view(saved: Iterable[Any] = ()) -> SetupView:
    """Every known title (playable at the table first: an 18xx, or a title with a table module of
    its own) with its player range and optional rules;
    ``saved`` are :class:`companion.store.GameRecord` rows for "resume a saved game"."""
    titles = [
        TitleChoice(
            t.name,
            t.display_name.partition(": ")[2] or t.display_name,
            t.playable and served(t.name),
            t.min_players,
            t.max_players,
            tuple((r.sym, r.short_name, r.description) for r in t.optional_rules),
            t.settings,
        )
        for t in all_titles()
    ]
    titles.sort(key=lambda t: not t.playable)  # stable: the registry's menu order among each
    rows = tuple(
        SavedGame(
            int(r.id),
            f"#{r.id} {r.title}: {', '.join(r.players)} ({r.action_count} actions, {r.status})",
        )
        for r in saved
    )
    return SetupView(tuple(titles), rows)
