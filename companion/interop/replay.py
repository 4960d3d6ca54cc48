"""Replay 18xx.games exports through our engine and compare with their results and reference traces."""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.engine import GameError, TableGame, new_game
from companion.inputfile import export_problem, read_json, read_json_lines
from companion.interop.actions import ExportError, effective_actions, export_players, read_action


@dataclass
class ReplayResult:
    path: str
    ok: bool
    actions: int
    seconds: float
    divergence: str | None = None
    game: TableGame | None = None
    trace: list[dict[str, Any]] = field(default_factory=list)


def load_export(path: str | Path) -> dict[str, Any]:
    data: dict[str, Any] = read_json(path, "export")  # InputFileError: the file cannot be used
    problem = export_problem(data)
    if problem is not None:
        raise ExportError(f"{path}: {problem}")
    return data


def game_for_export(export: dict[str, Any]) -> TableGame:
    """A new game of the export's title, players, optional rules and seed, as 18xx.games reads them;
    it replays the export's actions as 18xx.games loads them (:attr:`~TableGame.follows_record`: the
    automatic actions are those recorded)."""
    game = new_game(
        str(export["title"]), export_players(export["players"]), export_rules(export), export_seed(export)
    )
    game.follows_record = True
    return game


def export_rules(export: dict[str, Any]) -> frozenset[str]:
    rules = (export.get("settings") or {}).get("optional_rules") or []
    if not isinstance(rules, list) or not all(isinstance(r, str) for r in rules):
        raise ExportError("the export's optional_rules must be a list of rule names")
    twice = sorted({r for r in rules if rules.count(r) > 1})
    if twice:
        raise ExportError(f"the rule {twice[0]!r} is given twice")
    return frozenset(rules)


def export_actions(export: dict[str, Any]) -> list[dict[str, Any]]:
    """The export's actions that take effect (undo/redo resolved), each read as 18xx.games reads it
    (:func:`~companion.interop.actions.read_action`)."""
    actions = export["actions"]
    if not isinstance(actions, list) or not all(isinstance(a, dict) for a in actions):
        raise ExportError("the export's actions must be a list of actions")
    return [read_action(a) for a in effective_actions(actions)]


def export_seed(export: dict[str, Any]) -> int:
    """The game's seed: the export's ``settings.seed``, else (as 18xx.games does for games created
    without one) the first number in the game's id."""
    seed = (export.get("settings") or {}).get("seed")
    if seed is None or seed == "":
        digits = re.search(r"\d+", str(export.get("id", "")))
        return int(digits.group()) if digits else 0
    if isinstance(seed, bool) or not isinstance(seed, int | str):
        raise ExportError(f"the export's seed must be a whole number, not {seed!r:.30}")
    try:
        return int(seed)
    except ValueError:
        raise ExportError(f"the export's seed must be a whole number, not {seed!r:.30}") from None


def trace_entry(game: TableGame, action: dict[str, Any]) -> dict[str, Any]:
    """Our state after ``action`` in the reference trace format (the title adds its own part)."""
    return {
        "id": action.get("id"),
        "type": action.get("type"),
        "round": getattr(game.round, "name", ""),
        "turn": game.turn,
        "bank": game.bank.cash,
        "players": {str(p.id): p.cash for p in game.players},
        **game.trace_state(),
    }


def iter_replay(export: dict[str, Any]) -> Iterator[tuple[dict[str, Any], TableGame]]:
    """Yield (action, game after it) for every action that takes effect.  Raises GameError on the first illegal one."""
    game = game_for_export(export)
    for action in export_actions(export):
        try:
            game.replay_action(action)
        except GameError as err:
            raise GameError(f"action {action.get('id')} ({action.get('type')}): {err}") from err
        yield action, game


def differences_on_18xx_games(export: dict[str, Any]) -> list[tuple[Any, str]]:
    """Where the 18xx.games engine, loading the export, parts from ours by a documented rule
    difference (docs/ENGINE.md): (action id, in words) for each action in effect that shows one, in
    order (after the first, 18xx.games' state or its next step is not ours).  Raises GameError on
    the first illegal action."""
    game = game_for_export(export)
    out: list[tuple[Any, str]] = []
    for action in export_actions(export):
        before = game.before_18xx_games_check(action)
        try:
            game.replay_action(action)
        except GameError as err:
            raise GameError(f"action {action.get('id')} ({action.get('type')}): {err}") from err
        why = game.differs_on_18xx_games(action, before)
        if why is not None:
            out.append((action.get("id"), why))
    return out


def states_before(
    export: dict[str, Any], kinds: tuple[str, ...] = ("run_routes",)
) -> Iterator[tuple[dict[str, Any], TableGame]]:
    """Yield (action, game just before it) for each effective action of the given types."""
    game = game_for_export(export)
    for action in export_actions(export):
        if action.get("type") in kinds:
            yield action, game
        game.replay_action(action)


def replay(path: str | Path, *, keep_trace: bool = False) -> ReplayResult:
    start = time.perf_counter()
    export = load_export(path)
    count = 0
    trace: list[dict[str, Any]] = []
    game: TableGame | None = None
    try:
        for action, game in iter_replay(export):
            count += 1
            if keep_trace:
                trace.append(trace_entry(game, action))
    except GameError as err:
        return ReplayResult(str(path), False, count, time.perf_counter() - start, str(err), game, trace)
    if game is None:
        game = game_for_export(export)
    seconds = time.perf_counter() - start
    expected = {str(k): int(v) for k, v in (export.get("result") or {}).items()}
    got = {str(k): int(v) for k, v in game.result().items()}
    problems = []
    if expected and expected != got:
        problems.append(f"result differs: expected {expected}, got {got}")
    reason = export.get("game_end_reason")
    if reason and game.game_end_reason != reason:
        problems.append(f"game end reason differs: expected {reason}, got {game.game_end_reason}")
    problems += [f"the state at the end is unsound: {problem}" for problem in game.audit()]
    return ReplayResult(str(path), not problems, count, seconds, "; ".join(problems) or None, game, trace)


def diff_traces(ours: list[dict[str, Any]], reference: list[dict[str, Any]]) -> str | None:
    """The first disagreement between two traces, in words, or None."""
    by_id = {e["id"]: e for e in ours}
    for ref in reference:
        mine = by_id.get(ref["id"])
        if mine is None:
            return f"action {ref['id']} ({ref.get('type')}): missing from our trace"
        for key in ("bank", "players", "corporations", "phase"):
            a, b = ref.get(key), mine.get(key)
            if key == "corporations" and isinstance(a, dict) and isinstance(b, dict):
                for sym in sorted(set(a) | set(b)):
                    ca, cb = a.get(sym), b.get(sym)
                    if ca is None or cb is None:
                        return f"action {ref['id']} ({ref.get('type')}): corporation {sym} expected {ca}, got {cb}"
                    for f in ("cash", "share_price", "trains"):
                        va, vb = ca.get(f), cb.get(f)
                        if f == "trains":
                            va, vb = sorted(va or []), sorted(vb or [])
                        if va != vb:
                            return (
                                f"action {ref['id']} ({ref.get('type')}): {sym} {f} expected {va}, got {vb}"
                            )
            elif a != b:
                return f"action {ref['id']} ({ref.get('type')}): {key} expected {a}, got {b}"
    # a reference that stops early (its engine refused an action, or the file was cut) is no agreement
    known = {ref["id"] for ref in reference}
    extra = next((e for e in ours if e["id"] not in known and e.get("type") != "message"), None)
    if extra is not None:
        last = reference[-1]["id"] if reference else None
        stop = f"stops after action {last}" if last is not None else "is empty"
        return f"action {extra['id']} ({extra.get('type')}): missing from the reference trace (it {stop})"
    return None


def load_trace(path: str | Path) -> list[dict[str, Any]]:
    return list(read_json_lines(path, "trace"))


def export_game(game: TableGame, game_id: int = 0) -> dict[str, Any]:
    """The game in 18xx.games' export format (players, settings, actions with ids, result)."""
    actions = []
    for i, action in enumerate(game.actions, start=1):
        entry = {k: v for k, v in action.items() if not k.startswith("_")}
        entry["id"] = i
        actions.append(entry)
    out: dict[str, Any] = {
        "id": game_id,
        "title": game.title,
        "players": [{"id": pid, "name": name} for pid, name in game.player_spec],
        "settings": {"seed": game.seed, "optional_rules": sorted(game.optional_rules)},
        "actions": actions,
    }
    if game.finished:
        out["result"] = {str(k): v for k, v in game.result().items()}
        out["game_end_reason"] = game.game_end_reason
    return out


#: automatic actions only an engine takes, never a player (finding a destination connection)
ENGINE_STEPS = frozenset({"destination_connection"})

#: fields an action has in a record but not as a move (who sent it, when, its place in the log)
RECORD_ONLY = ("id", "original_id", "user", "created_at", "auto_actions")


def _move(action: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in action.items() if k not in RECORD_ONLY}


def table_record(export: dict[str, Any]) -> tuple[list[dict[str, Any]], TableGame]:
    """The export's game as a table records it, and the table's game at its end.

    18xx.games writes the steps its engine took by itself, and what the players' standing orders
    did, in each action's ``auto_actions``; a table records only what the players do, and its engine
    takes its own automatic steps.  Each recorded action becomes the players' move (without its
    ``auto_actions``), then every recorded automatic action the engine did not take itself is made a
    move too (a standing order's purchase or pass; a step an older 18xx.games engine took); an
    action recorded by hand that the engine has taken by itself (a corporation's pass an older
    18xx.games engine waited for) is left out.  ``GameError`` when the game played that
    way does not end as the export does (the same bank, players' cash and corporations)."""
    record = game_for_export(export)
    game = new_game(
        str(export["title"]), export_players(export["players"]), export_rules(export), export_seed(export)
    )
    moves: list[dict[str, Any]] = []
    made: list[dict[str, Any]] = []  # the engine's automatic actions the record has not shown yet
    owed: Counter[str] = Counter()  # those the record showed no copy of before moving on
    for action in export_actions(export):
        record.replay_action(action)
        move = _move(action)
        if str(move.get("type", "")).startswith("program_"):
            pass  # a standing order is nothing at a table: the moves it made are
        elif made and move == made[0]:
            made.pop(0)  # recorded by hand, taken by the engine at the table
        elif move.get("type") == "message":
            _made(game, move)  # (a chat line between the engine's step and the record's)
            moves.append(move)
        else:
            owed.update(json.dumps(a, sort_keys=True) for a in made)
            key = json.dumps(move, sort_keys=True)
            try:
                made = _made(game, move)
            except GameError:
                if not owed[key]:
                    raise
                # a pass recorded later than the engine took it (another move came between): the
                # engine's own pass was this one
                owed[key] -= 1
                made = []
                continue
            moves.append(move)
        for sub in action.get("auto_actions") or []:
            wanted = _move(sub)
            if made and made[0] == wanted:
                made.pop(0)
            elif wanted.get("type") in ENGINE_STEPS:
                raise GameError(
                    f"action {action.get('id')}: the record has an automatic step the engine does not "
                    f"take there ({wanted})"
                )
            elif not str(wanted.get("type", "")).startswith("program_"):
                made = _made(game, wanted)
                moves.append(wanted)
    ours, theirs = trace_entry(game, {}), trace_entry(record, {})
    if ours != theirs:
        first = diff_traces([ours], [theirs]) or "the game's state differs"
        raise GameError(f"the export does not end the same when played as a table records it: {first}")
    return moves, game


def _made(game: TableGame, move: dict[str, Any]) -> list[dict[str, Any]]:
    """Apply a player's move at the table; the automatic actions the engine took after it."""
    try:
        game.replay_action(move)
    except GameError as err:
        raise GameError(f"{move.get('type')} by {move.get('entity')}: {err}") from err
    return [_move(a) for a in game.actions[-1].get("auto_actions") or []]


def with_auto_actions(game: TableGame, log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A table's log (``undo`` and ``redo`` records included, no automatic actions) as 18xx.games
    records it: each action with the ``auto_actions`` the engine took after it, then (the engine of
    18xx.games, loading the export, takes none itself and needs them all).  ``game`` is the game
    before the first action, at the table (it generates its automatic actions); it is played on."""
    out = [dict(a) for a in log]
    position = {id(a): i for i, a in enumerate(out)}
    applied: list[int] = []  # the log positions of the actions in effect, in order
    for i, action in enumerate(out):
        action.pop("auto_actions", None)
        if action.get("type") in ("undo", "redo"):
            wanted = [position[id(a)] for a in effective_actions(out[: i + 1])]
            keep = 0
            while keep < min(len(applied), len(wanted)) and applied[keep] == wanted[keep]:
                keep += 1
            while len(game.actions) > keep:
                game.undo()
            for j in wanted[keep:]:
                game.replay_action({k: v for k, v in out[j].items() if k != "auto_actions"}, auto=True)
            applied = wanted
            continue
        game.replay_action(action, auto=True)
        applied.append(i)
        made = game.actions[-1].get("auto_actions")
        if made:
            action["auto_actions"] = [dict(a) for a in made]
    return out
