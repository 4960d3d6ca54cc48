"""Replay 18xx.games exports through our engine and compare with their results and reference traces."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.engine import GameError, TableGame, new_game
from companion.inputfile import export_problem, read_json, read_json_lines
from companion.interop.actions import ExportError, effective_actions


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
    settings = export.get("settings") or {}
    # older exports name their players without an id: the name is then the id
    players = [(p.get("id", p["name"]), p["name"]) for p in export["players"]]
    return new_game(
        str(export["title"]),
        players,
        frozenset(settings.get("optional_rules") or []),
        export_seed(export),
    )


def export_seed(export: dict[str, Any]) -> int:
    """The game's seed: the export's ``settings.seed``, else (as 18xx.games does for games created
    without one) the first number in the game's id."""
    seed = (export.get("settings") or {}).get("seed")
    if seed is None or seed == "":
        digits = re.search(r"\d+", str(export.get("id", "")))
        return int(digits.group()) if digits else 0
    return int(seed)


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
    for action in effective_actions(export["actions"]):
        try:
            game._process(action)
        except GameError as err:
            raise GameError(f"action {action.get('id')} ({action.get('type')}): {err}") from err
        yield action, game


def states_before(
    export: dict[str, Any], kinds: tuple[str, ...] = ("run_routes",)
) -> Iterator[tuple[dict[str, Any], TableGame]]:
    """Yield (action, game just before it) for each effective action of the given types."""
    game = game_for_export(export)
    for action in effective_actions(export["actions"]):
        if action.get("type") in kinds:
            yield action, game
        game._process(action)


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
