"""Drive only the map from an 18xx.games 1870 export (a test and benchmark utility).

This is not a game model: it applies the map-changing actions (``lay_tile``,
``place_token``, ``assign``, destination ``choose``, home tokens, the 6-train token
removal) to a :class:`~companion.engine.map.GameMap`, takes the phase and each
corporation's trains from the reference trace beside the export (``.trace.jsonl``), and
yields every ``run_routes`` action with the map as it was just before it.  The engine's own
replay (``companion.interop``) supersedes it for anything beyond the map.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.data import load_title
from companion.engine.map import GameMap, MapError, MapRules, SimplePhase, SpecialLay
from companion.engine.routes import Train, trains_from_names
from companion.interop.actions import effective_actions

__all__ = ["RunState", "replay_map", "phase_for"]


@dataclass
class RunState:
    """The map just before a ``run_routes`` action, and what was run."""

    file: str
    action: dict[str, Any]
    corporation: str
    game_map: GameMap
    phase: SimplePhase
    trains: list[Train]
    played: list[int]
    lay_errors: list[str] = field(default_factory=list)

    @property
    def action_id(self) -> int:
        return int(self.action["id"])


def phase_for(title_data: dict[str, Any], name: str, optional_rules: frozenset[str]) -> SimplePhase:
    phases = title_data["phases"]
    if "diesels" in optional_rules and "DIESEL_VARIANT_PHASES" in title_data.get("constants", {}):
        phases = title_data["constants"]["DIESEL_VARIANT_PHASES"]
    for p in phases:
        if p["name"] == name:
            return SimplePhase(name, tuple(p["tiles"]))
    raise KeyError(f"unknown phase {name!r}")


def _load_trace(path: Path) -> dict[int, dict[str, Any]]:
    trace: dict[int, dict[str, Any]] = {}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                rec = json.loads(line)
                trace[int(rec["id"])] = rec
    return trace


def replay_map(export_path: str | Path, *, strict: bool = True) -> Iterator[RunState]:
    """Yield the map before every ``run_routes`` of an 1870 export.

    ``strict``: a tile lay or token our rules reject raises :class:`MapError`; otherwise it
    is applied without the checks and the reason is recorded in ``lay_errors``.
    """
    path = Path(export_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("title") != "1870":
        raise MapError(f"{path.name}: only 1870 exports can be replayed by the map walker")
    trace = _load_trace(path.with_suffix(".trace.jsonl"))
    settings = data.get("settings") or {}
    optional = frozenset(settings.get("optional_rules") or data.get("optional_rules") or [])
    title = load_title("1870")
    game_map = GameMap.for_title(title, optional)
    station_wars = bool({"original_rules", "station_wars"} & optional)
    companies = {c["sym"]: c for c in title["companies"]}
    mrbc_lay = next(a for a in companies["MRBC"]["abilities"] if a["type"] == "tile_lay")
    owner: dict[str, str] = {}
    river_blocked = True
    tokens_removed = False
    connection_pending: set[str] = set()
    errors: list[str] = []
    phase_name = "1"
    alive: set[str] = set()
    for action in effective_actions(data["actions"]):
        rec = trace.get(int(action["id"]))
        if rec is not None:
            phase_name = str(rec["phase"])
            now = set(rec.get("corporations", {}))
            for gone in alive - now:
                if gone in game_map.corporations:
                    game_map.close_corporation(gone)
            alive = now
        phase = phase_for(title, phase_name, optional)
        if phase_name not in ("1", "2", "3", "4"):
            river_blocked = False  # the 5 train closed the companies
        kind = action["type"]
        entity = str(action.get("entity"))
        corp = entity if action.get("entity_type") == "corporation" else owner.get(entity)
        operating = rec is not None and rec.get("round") == "Operating"
        needs_home = operating and corp in game_map.corporations and not game_map.tokens_of(str(corp))
        if needs_home and game_map.home_hex(str(corp)):
            game_map.place_home_token(str(corp))
        game_map.set_rules(MapRules(river_blocked=river_blocked))
        if kind == "buy_company":
            company = str(action["company"])
            owner[company] = entity
            if company == "MRBC":
                river_blocked = False
            if company in ("SCC", "GSC"):
                game_map.assign_corporation(entity, company)
        elif kind == "lay_tile" and corp:
            special = SpecialLay.from_ability(mrbc_lay) if entity == "MRBC" else None
            args = (corp, action["hex"], action["tile"], int(action["rotation"]), phase)
            try:
                game_map.lay_tile(*args, special=special)
            except MapError as exc:
                if strict:
                    raise MapError(f"{path.name} action {action['id']}: {exc}") from exc
                errors.append(f"{action['id']}: {exc}")
                game_map.lay_tile(*args, special=special, check=False)
        elif kind == "place_token" and corp:
            try:
                game_map.place_token(corp, str(action["city"]), action.get("slot"))
            except MapError as exc:
                if strict:
                    raise MapError(f"{path.name} action {action['id']}: {exc}") from exc
                errors.append(f"{action['id']}: {exc}")
                game_map.place_token(corp, str(action["city"]), None, home=True)
        elif kind == "assign":
            target = str(action["target"])
            holder = owner.get(entity, "")
            if entity == "GSC" and game_map.assigned(target, "GSC"):
                game_map.close_port(target, holder)
            else:
                game_map.assign(target, entity, holder)
        elif kind == "choose" and corp and action.get("choice") in ("Map", "Charter"):
            if action["choice"] == "Map":
                game_map.reach_destination(corp, station_wars=station_wars)
            else:
                game_map.forfeit_destination(corp)
            connection_pending.add(corp)
        elif kind == "buy_train" and str(action.get("train", "")).startswith("6-") and not tokens_removed:
            tokens_removed = True
            for marker in ("SCC", "GSC", "GSCᶜ"):
                game_map.remove_assignment(marker)
        elif kind == "run_routes" and corp:
            routes = action.get("routes") or []
            types = list((rec or {}).get("corporations", {}).get(corp, {}).get("trains", []))
            names = [str(r["train"]) for r in routes]
            all_names = list(names)
            for t in sorted(set(types)):
                have = sum(1 for n in names if n.rsplit("-", 1)[0] == t)
                for k in range(types.count(t) - have):
                    all_names.append(f"{t}-x{k}")
            trains = trains_from_names(title, all_names, optional)
            view = game_map.copy()
            if corp in connection_pending:
                view.set_rules(MapRules(river_blocked=river_blocked, connection_runs=frozenset({corp})))
                connection_pending.discard(corp)
            yield RunState(
                path.name,
                action,
                corp,
                view,
                phase,
                trains,
                [int(r.get("revenue", 0)) for r in routes],
                list(errors),
            )
