"""The Log screen's view model: the game log in the game's words."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from companion.engine.core import TableGame
from companion.engine.entities import Company
from companion.table.titles import table_title

# --------------------------------------------------------------------------------------------- log

_RUNS = re.compile(r"^(?P<name>.+) runs (?P<what>its connection route )?for \$(?P<rev>\d+)$")
_PAYS = re.compile(r"^(?P<name>.+) pays \$(?P<per>[\d.]+) per share$")
_WITHHOLDS = re.compile(r"^(?P<name>.+) withholds \$(?P<amt>\d+)$")


@dataclass(frozen=True)
class LogEntry:
    text: str
    kind: str
    """``heading`` (rounds, phases, events, game over) or ``action``."""
    action: int | None = None
    """Which action wrote it (0-based index into ``game.actions``), when the log's marks are known:
    undoing back to before that action takes this entry (and everything after it) back."""


@dataclass(frozen=True)
class LogView:
    entries: tuple[LogEntry, ...]
    actions: int
    """How many actions the game has taken (what undo would go back through)."""
    can_undo: bool


def company_label(company: Company) -> str:
    """A private company's one name on every screen: ``MKT private`` (its corporation namesake,
    if any, is plain ``MKT``)."""
    return f"{company.sym} private"


def _sym_names(game: TableGame) -> list[tuple[str, str]]:
    """(name in the engine's log, the one name the screens use), longest first: corporations by
    symbol (``Katy`` → ``MKT``), private companies as ``MKT private`` (none in a title without them)."""
    pairs = [(c.name, c.sym) for c in getattr(game, "corporations", ())]
    pairs += [(c.name, company_label(c)) for c in getattr(game, "companies", ())]
    return sorted(pairs, key=lambda p: -len(p[0]))


def _short(text: str, names: list[tuple[str, str]]) -> str:
    for name, sym in names:
        if name != sym and name in text:
            text = re.sub(rf"(?<![\w]){re.escape(name)}(?![\w])", sym, text)
    return text


_TILE_ID = re.compile(r"#?(?P<tile>[\w]+?)-(?P<copy>\d+)(?=\b)")
_LAY = re.compile(r" lays tile #(?P<tile>\w+?)-(?P<copy>\d+) with rotation (?P<rot>\d) on (?P<hex>[A-Z]+\d+)")
_CITY = re.compile(r"\b(?P<where>[A-Z]*\d+)-(?P<copy>\d+)-(?P<city>\d+)\b")


class _Places:
    """Turns the engine's internal ids in log lines into the board's words: a tile ``#57-0`` is
    ``tile 57``, a city ``E12-0-0`` or ``57-1-0`` (a city of the tile laid on H13) is
    ``H13 (Dallas)``.  Fed the lines in order, it remembers where each laid tile went."""

    def __init__(self, game: TableGame) -> None:
        self.names: dict[str, str] = dict(game.data.get("map", {}).get("location_names", {}))
        self.tile_hex: dict[str, str] = {}

    def hex_text(self, hex_id: str) -> str:
        name = self.names.get(hex_id)
        return f"{hex_id} ({name})" if name else hex_id

    def words(self, line: str) -> str:
        lay = _LAY.search(line)
        if lay:
            self.tile_hex[f"{lay['tile']}-{lay['copy']}"] = lay["hex"]
            return (
                line[: lay.start()]
                + f" lays tile {lay['tile']} with rotation {lay['rot']} on {self.hex_text(lay['hex'])}"
                + line[lay.end() :]
            )

        def city(m: re.Match[str]) -> str:
            where = m["where"]
            hex_id = where if where[:1].isalpha() else self.tile_hex.get(f"{where}-{m['copy']}")
            return self.hex_text(hex_id) if hex_id else f"a city of tile {where}"

        line = _CITY.sub(city, line)
        return re.sub(r"#(\w+?)-\d+\b", r"tile \1", line)


def log_view(game: TableGame, last: int | None = None, marks: Sequence[int] | None = None) -> LogView:
    """The game log in the game's words: corporations by symbol, private companies as ``MKT
    private``, tiles by number, cities by hex and name (no internal ids); a run and its dividend as
    one line.  With ``marks`` (the log's length after each action, :func:`log_marks`) every entry
    knows the action that wrote it."""
    import bisect

    names = _sym_names(game)
    places = _Places(game)
    title = table_title(game.title)
    lines = [places.words(line) for line in game.log]
    entries: list[LogEntry] = []

    def source(index: int) -> int | None:
        if marks is None:
            return None
        k = bisect.bisect_right(marks, index)
        return k if k < len(marks) else None

    i = 0
    while i < len(lines):
        line = lines[i]
        m = _RUNS.match(line)
        if m:
            corp = m["name"]
            rev = int(m["rev"])
            runs = "runs its connection route" if m["what"] else "runs"
            kept: int | None = None
            per: str | None = None
            j = i + 1
            while j < len(lines) and j <= i + 2:
                w = _WITHHOLDS.match(lines[j])
                p = _PAYS.match(lines[j])
                if w and w["name"] == corp:
                    kept = int(w["amt"])
                elif p and p["name"] == corp:
                    per = p["per"]
                else:
                    break
                j += 1
            route = " for its connection route" if m["what"] else ""
            if per is not None and kept is None:
                text = f"{corp} pays ${rev} (${per} per share){route}"
            elif per is not None:
                text = f"{corp} {runs} for ${rev}: keeps ${kept}, pays ${per} per share"
            elif kept is not None:
                text = f"{corp} {runs} for ${rev} and withholds it"
            else:
                text = line
            entries.append(LogEntry(_short(title.in_money(game, text), names), "action", source(i)))
            i = j
            continue
        heading = line.startswith("--") or " operates " in line or line.endswith("has priority deal")
        kind = "heading" if heading else "action"
        entries.append(LogEntry(_short(title.in_money(game, line), names), kind, source(i)))
        i += 1
    if last is not None:
        entries = entries[-last:]
    return LogView(tuple(entries), len(game.actions), bool(game.actions))


def log_marks(game: TableGame, known: Sequence[int] = ()) -> list[int]:
    """How long the game's log was after each of its actions.  ``known``: marks computed before for
    the same first actions (the caller drops those of actions taken back), reused; with them the
    marks of one new action cost nothing.  Otherwise the game is replayed: a second for a long
    game, so the touchscreen asks for it in a worker thread."""
    n = len(game.actions)
    marks = list(known[:n])
    if len(marks) == n:
        return marks
    if len(marks) == n - 1:
        return [*marks, len(game.log)]
    trial = game.replayed([])
    out = []
    for action in game.actions:
        trial.replay_action(action, auto=False)  # recorded actions, their automatic ones included
        out.append(len(trial.log))
    return out
