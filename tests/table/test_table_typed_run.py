"""A run typed by its stops at the table (the terminal's ``run``): proposed as the engine's run with
the money it brings, stored and applied on confirm; a run that cannot be made is refused with the
engine's reason and changes nothing."""

from __future__ import annotations

from pathlib import Path

from tests.support.table import at, snapshot

#: Missouri Pacific (two 2-trains) to run in the fixture game, after its 86th action
STATE = ("1870_game_end_bank.json", 86)


def test_a_typed_run_is_proposed_then_confirmed(tmp_path: Path) -> None:
    t = at(tmp_path, *STATE)
    logged = len(t.store.actions(t.service.game_id))
    outcome = t.service.run_trains([(None, ["B19", "A22"]), ("2-2", ["C18", "A22"])])
    proposal = t.service.proposal
    assert proposal is not None and proposal is outcome
    assert proposal.text == "MP runs 2 trains for $120"
    result = t.service.confirm()
    assert result.ok and result.applied, result.text
    stored = t.store.actions(t.service.game_id)
    assert len(stored) == logged + 1 and stored[-1]["type"] == "run_routes"
    assert [r["revenue"] for r in stored[-1]["routes"]] == [60, 60]


def test_a_typed_run_that_cannot_be_made_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    t = at(tmp_path, *STATE)
    before, logged = snapshot(t.service.game), len(t.store.actions(t.service.game_id))
    result = t.service.run_trains([(None, ["B19", "E12"])])
    assert not result.ok
    assert result.text.startswith("train 2-1: no track joins B19 to E12 directly"), result.text
    assert t.service.proposal is None
    t.unchanged(before, logged)


def test_no_run_is_typed_outside_a_corporation_s_run(tmp_path: Path) -> None:
    t = at(tmp_path, "1870_game_end_bank.json", 3)
    result = t.service.run_trains([(None, ["B19", "A22"])])
    assert not result.ok and result.text.startswith("no trains run now:"), result.text
