"""Replay 18xx.games exports through our engine and compare with their results and reference traces."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.engine import GameError, TableGame, new_game
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
    try:
        data: dict[str, Any] = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise ExportError(f"{path}: cannot read the export ({err})") from None
    if not isinstance(data, dict):
        raise ExportError(f"{path}: not an 18xx.games export (not a JSON object)")
    for key in ("title", "players", "actions"):
        if key not in data:
            raise ExportError(f"{path}: not an 18xx.games export (no {key!r})")
    return data


def game_for_export(export: dict[str, Any]) -> TableGame:
    """A new game of the export's title, players, optional rules and seed, as 18xx.games reads them."""
    return new_game(
        str(export["title"]), export_players(export["players"]), export_rules(export), export_seed(export)
    )


def export_rules(export: dict[str, Any]) -> frozenset[str]:
    rules = (export.get("settings") or {}).get("optional_rules") or []
    if not isinstance(rules, list) or not all(isinstance(r, str) for r in rules):
        raise ExportError("the export's optional_rules must be a list of rule names")
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
            game._process(action)
        except GameError as err:
            raise GameError(f"action {action.get('id')} ({action.get('type')}): {err}") from err
        yield action, game


def states_before(
    export: dict[str, Any], kinds: tuple[str, ...] = ("run_routes",)
) -> Iterator[tuple[dict[str, Any], TableGame]]:
    """Yield (action, game just before it) for each effective action of the given types."""
    game = game_for_export(export)
    for action in export_actions(export):
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
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


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
