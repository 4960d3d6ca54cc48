"""Benchmark: the route optimiser before every run of the fixture games and of random games of
each title with a map, and the slowest single action of those games.

Per title: how long the best routes take (p50 / p95 / max), how many are proven optimal, how many
agree with an exhaustive search (small networks), the slowest five states; and the slowest single
``apply`` of a fixture or random game.  Every search has a hard limit (:data:`LIMIT`) so that the
bench cannot freeze; a search stopped by it counts as not proven.  Times are the process's CPU
seconds (one core): on a shared machine the wall clock also counts the time the process waits.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.commands.routes import percentile
from companion.titles import map_titles

ROOT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "18xx.games"
#: the hard limit (CPU seconds of the process) on one search: a wall-clock limit would also count
#: the time the process waits for a shared machine's cores
LIMIT = 10.0


def _limit() -> Any:
    """A ``cancel`` for one search: true once it has used :data:`LIMIT` CPU seconds."""
    start = time.process_time()
    return lambda: time.process_time() - start > LIMIT


#: random-game states timed per title at least (games are played, seed after seed, until there are)
RANDOM_STATES = 200
#: the first seed of each title's random games, and the most games played
FIRST_SEED = 20261207
MAX_GAMES = 12
#: networks up to this many stops are also searched exhaustively
EXHAUSTIVE_STOPS = 8


@dataclass
class Timed:
    where: str
    corporation: str
    trains: list[str]
    seconds: float
    optimal: bool
    total: int


@dataclass
class TitleRun:
    states: list[Timed] = field(default_factory=list)
    random_states: int = 0
    games: int = 0
    exhaustive: int = 0
    exhaustive_agree: int = 0
    slowest_action: tuple[float, str] = (0.0, "")

    def action(self, seconds: float, where: str) -> None:
        if seconds > self.slowest_action[0]:
            self.slowest_action = (seconds, where)


def _suggest(run: TitleRun, game: Any, corp: Any, where: str) -> Any:
    """The best routes for ``corp`` now, timed (with the hard limit), checked exhaustively on a
    small network."""
    start = time.process_time()
    result = type(game).suggest_routes(game, corp, cancel=_limit())  # the game's own, not the timer
    seconds = time.process_time() - start
    run.states.append(
        Timed(where, corp.sym, sorted(t.id for t in corp.trains), seconds, result.optimal, result.total)
    )
    _exhaustive(run, game, corp, result.total)
    return result


def _exhaustive(run: TitleRun, game: Any, corp: Any, total: int) -> None:
    from companion.engine.graph import connectivity

    try:
        from tests.support.routes import exhaustive
    except ImportError:  # an installed package without the repository's tests
        return
    if not corp.trains or len(connectivity(game.map, corp.sym).nodes) > EXHAUSTIVE_STOPS:
        return
    from companion.engine.operating import OperatingRound

    own = corp.trains
    if (
        game.TRAINS_RUN_ONCE
        and isinstance(game.round, OperatingRound)
        and game.round.current_entity() is corp
    ):
        own = [t for t in own if not t.operated]
    trains = game.route_trains(own)
    if not trains:
        return
    run.exhaustive += 1
    run.exhaustive_agree += exhaustive(game.map, corp.sym, trains, game.map_phase()) == total


def _fixtures(title: str, run: TitleRun) -> int:
    from companion.engine import as_18xx
    from companion.interop.actions import effective_actions
    from companion.interop.replay import game_for_export, load_export

    files = sorted((ROOT / title).glob("*.json"))
    for path in files:
        export = load_export(path)
        table_game = game_for_export(export)
        for action in effective_actions(export["actions"]):
            if action.get("type") == "run_routes":
                game = as_18xx(table_game)
                _suggest(run, game, game.corporation(str(action["entity"])), f"{path.name} #{action['id']}")
            start = time.process_time()
            table_game.replay_action(action)
            run.action(time.process_time() - start, f"{path.name} #{action.get('id')} {action.get('type')}")
    return len(files)


def _random_games(title: str, run: TitleRun) -> None:
    """Random games (``tools/random_games.py``'s players) until :data:`RANDOM_STATES` states."""
    try:
        import tools.random_games as players
    except ImportError:  # an installed package without the repository's tools
        return
    for seed in range(FIRST_SEED, FIRST_SEED + MAX_GAMES):
        if run.random_states >= RANDOM_STATES:
            break
        _play(title, seed, run, players)
        run.games += 1


def _play(title: str, seed: int, run: TitleRun, players: Any) -> None:
    """One random game, every action and every look at the best routes timed."""
    from companion.engine import GameError, new_game

    rng = random.Random(seed)
    count = players.player_count(title, rng)
    game: Any = new_game(title, [(1000 + i, f"Player {i + 1}") for i in range(count)], frozenset(), seed)
    where = f"{title} random seed {seed}"

    def suggest(corp: Any, **_: Any) -> Any:
        run.random_states += 1
        return _suggest(run, game, corp, f"{where} after {len(game.actions)} actions")

    game.suggest_routes = suggest  # the players' own look at the best routes is the one timed

    def next_action() -> list[dict[str, Any]]:
        return list(players.next_actions(game, rng, _ordered))

    stuck = 0
    while not game.finished and len(game.actions) < 3000 and stuck <= 20:
        for action in next_action():
            start = time.process_time()
            try:
                game.apply(action)
            except GameError:  # a candidate the engine refuses: the next one
                continue
            run.action(time.process_time() - start, f"{where} action {len(game.actions)} {action['type']}")
            stuck = 0
            break
        else:
            stuck += 1


def _ordered(options: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]]:
    passes = [o for o in options if o["type"] == "pass"]
    others = [o for o in options if o["type"] != "pass"]
    return others + passes if rng.random() < 0.75 else passes + others


def measure(title: str) -> tuple[TitleRun, int]:
    run = TitleRun()
    files = _fixtures(title, run)
    _random_games(title, run)
    return run, files


HEADER = [
    "## Route optimiser",
    "",
    "Best routes for the operating corporation before every `run_routes` of the fixture games "
    "(state restored by the engine's own replay) and of random games (`tools/random_games.py`'s "
    f"players, seeds from {FIRST_SEED}, until at least {RANDOM_STATES} states per title; "
    "the nationals' runs among them where a game forms one), one run, CPU seconds of one core; each "
    f"search limited to {LIMIT:.0f} CPU s (stopped: not proven). Exhaustive: networks of "
    f"at most {EXHAUSTIVE_STOPS} stops also searched by trying every route of every train and every combination.",
    "",
    "| title | fixture games | random games | states | proven optimal | exhaustive agrees "
    "| p50 s | p95 s | max s | slowest action s |",
    "|---|---|---|---|---|---|---|---|---|---|",
]


def title_lines(title: str) -> tuple[str, list[str]]:
    """One title's row of the table and its slowest states."""
    run, files = measure(title)
    secs = [s.seconds for s in run.states]
    optimal = sum(s.optimal for s in run.states)
    row = (
        f"| {title} | {files} | {run.games} | {len(secs)} | {optimal} "
        f"| {run.exhaustive_agree}/{run.exhaustive} | {percentile(secs, 0.5):.4f} "
        f"| {percentile(secs, 0.95):.4f} | {max(secs, default=0.0):.4f} | {run.slowest_action[0]:.4f} |"
    )
    slowest = [f"* **{title}**: slowest action {run.slowest_action[0]:.3f} s ({run.slowest_action[1]})"]
    for s in sorted(run.states, key=lambda s: -s.seconds)[:5]:
        proof = "proven" if s.optimal else "NOT proven"
        slowest.append(
            f"  * {s.seconds:.3f} s, {proof}, {s.corporation} {'/'.join(s.trains)} = {s.total} ({s.where})"
        )
    return row, slowest


#: issue 39's hard states: stored exports of random games (``tools/random_games.py``), replayed to
#: their end, where a national with many trains is to run
NATIONALS = "*_national.json"


def national_line() -> str:
    """The best routes of the nationals of issue 39 (a national with many trains), timed."""
    from companion.engine import as_18xx
    from companion.interop.actions import effective_actions
    from companion.interop.replay import game_for_export, load_export

    lines = []
    paths = sorted((ROOT.parent / "routes").glob(NATIONALS))
    if not paths:
        lines.append(f"* no `{NATIONALS}` in `{ROOT.parent / 'routes'}`; not run.")
    for path in paths:
        export = load_export(path)
        settings = export.get("settings") or {}
        made = (
            f"`random_games.py --title {export['title']} --seed {settings.get('seed')}`, "
            f"{len(export['players'])} players, after {len(export['actions'])} actions"
        )
        table_game = game_for_export(export)
        for action in effective_actions(export["actions"]):
            table_game.replay_action(action)
        game: Any = as_18xx(table_game)
        corp = game.round.current_entity()
        start = time.process_time()
        result = game.suggest_routes(corp, cancel=_limit())
        seconds = time.process_time() - start
        proof = "proven optimal" if result.optimal else "NOT proven"
        lines.append(
            f"* {made}: {corp.sym} with {'/'.join(sorted(t.name for t in corp.trains))}: "
            f"{result.total}, {proof}, {seconds:.3f} s."
        )
    return "\n".join(["The nationals of issue 39:", "", *lines])


def bench() -> str:
    rows: list[str] = []
    slowest: list[str] = []
    for title in map_titles():
        row, lines = title_lines(title)
        rows.append(row)
        slowest += lines
    return "\n".join(
        [*HEADER, *rows, "", national_line(), "", "Slowest five states of each title:", "", *slowest, ""]
    )


def main() -> None:  # pragma: no cover - one title (or "national") at a time, printed as measured
    import sys

    for title in sys.argv[1:] or map_titles():
        if title == "national":
            print(national_line(), flush=True)
            continue
        row, lines = title_lines(title)
        print("\n".join([row, *lines]), flush=True)


if __name__ == "__main__":  # pragma: no cover
    main()
