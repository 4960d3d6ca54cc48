import json

import pytest

from companion.interop.actions import ExportError, effective_actions
from tests.support.paths import TESTS

FIXTURES = TESTS / "fixtures" / "18xx.games"


def a(i: int, kind: str = "pass", **kw: object) -> dict[str, object]:
    return {"id": i, "type": kind, **kw}


def ids(actions: list[dict[str, object]]) -> list[object]:
    return [x["id"] for x in actions]


def test_undo_cancels_last_and_redo_restores() -> None:
    acts = [a(1), a(2), a(3, "undo"), a(4, "redo"), a(5)]
    assert ids(effective_actions(acts)) == [1, 2, 5]
    assert ids(effective_actions(acts[:3])) == [1]


def test_undo_to_action_id_and_new_action_clears_redo() -> None:
    acts = [a(1), a(2), a(3), a(4, "undo", action_id=1), a(5), a(6, "undo"), a(7, "undo")]
    assert ids(effective_actions(acts)) == []
    with pytest.raises(ExportError):
        effective_actions([a(1), a(2, "undo"), a(3), a(4, "redo")])


def test_messages_are_never_undone() -> None:
    acts = [a(1), a(2, "message"), a(3, "undo")]
    assert ids(effective_actions(acts)) == [2]


def test_fixture_effective_ids_match_reference_trace() -> None:
    for path in sorted(FIXTURES.glob("*/*.json")):
        export = json.loads(path.read_text())
        trace = [json.loads(line) for line in path.with_suffix(".trace.jsonl").read_text().splitlines()]
        got = [x["id"] for x in effective_actions(export["actions"]) if x["type"] != "message"]
        assert got == [t["id"] for t in trace if t["type"] != "message"], path.name
