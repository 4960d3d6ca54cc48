"""Random games replayed by the 18xx.games reference engine: we agree on every state and refusal."""

from __future__ import annotations

import json

import pytest

from companion.engine import GameError
from companion.interop.actions import effective_actions
from companion.interop.replay import diff_traces, game_for_export, load_trace, trace_entry
from tests.support.paths import TESTS

REFERENCE = TESTS / "fixtures" / "reference"
#: 1870 games at the top, 1867 and 1861 games in their own folders ("1867/random-101")
GAMES = sorted(p.relative_to(REFERENCE).with_suffix("").as_posix() for p in REFERENCE.rglob("*.json"))


def test_there_are_reference_games() -> None:
    assert len(GAMES) >= 2


@pytest.mark.parametrize("name", GAMES)
def test_same_states_and_same_refusal_as_the_reference_engine(name: str) -> None:
    export = json.loads((REFERENCE / f"{name}.json").read_text())
    reference = load_trace(REFERENCE / f"{name}.trace.jsonl")
    refusal = export.get("reference_refusal")
    game = game_for_export(export)
    ours = []
    refused: tuple[int, str] | None = None
    for action in effective_actions(export["actions"]):
        try:
            game.replay_action(action)
        except GameError as err:
            refused = (int(action["id"]), str(err))
            break
        ours.append(trace_entry(game, action))
    assert diff_traces(ours, reference) is None
    if "reference_result" in export:
        assert game.finished
        assert {str(k): v for k, v in game.result().items()} == export["reference_result"]
        if "reference_game_end_reason" in export:
            assert game.game_end_reason == export["reference_game_end_reason"]
    if refusal is None:
        assert refused is None
    else:
        assert refused is not None and refused[0] == refusal["id"], refused
        if "new track" in refusal["error"]:
            assert "new track" in refused[1]
