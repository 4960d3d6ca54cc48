"""Batch commands report every file and go on after a bad one; ``replay --diff`` fails when the
reference trace stops before the game does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.interop.replay import diff_traces, load_trace
from tests.support.paths import TESTS

FIXTURES = TESTS / "fixtures" / "18xx.games" / "1870"
GAME = FIXTURES / "34110.json"
JUNK_WHY = "Expecting property name enclosed in double quotes at line 1 column 2"


def test_diff_fails_when_the_reference_stops_early(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reference = load_trace(GAME.with_suffix(".trace.jsonl"))
    short = tmp_path / "short.trace.jsonl"
    short.write_text("\n".join(json.dumps(e) for e in reference[:50]))
    assert main(["replay", str(GAME), "--diff", str(short)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("FAIL ")
    assert f"missing from the reference trace (it stops after action {reference[49]['id']})" in out
    # the whole trace still agrees, and an empty one is no agreement either
    assert main(["replay", str(GAME), "--diff", str(GAME.with_suffix(".trace.jsonl"))]) == 0
    assert diff_traces([{"id": 1, "type": "pass"}], []) == (
        "action 1 (pass): missing from the reference trace (it is empty)"
    )


def bad_files(tmp_path: Path) -> list[Path]:
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    unknown = tmp_path / "unknown.json"
    unknown.write_text(json.dumps({"title": "No Such Game", "players": ["A", "B"], "actions": []}))
    fields = tmp_path / "fields.json"
    fields.write_text(json.dumps({"title": "1870", "players": [{"id": 1}], "actions": []}))
    return [junk, unknown, fields]


def test_replay_batch_reports_each_file_and_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [*bad_files(tmp_path), GAME]
    junk = files[0]
    assert main(["replay", *map(str, files)]) == 3  # a file that is no JSON: the input-file code
    out = capsys.readouterr()
    lines = out.out.splitlines()
    assert out.err.splitlines() == [f"error: {junk}: is not JSON ({JUNK_WHY})"]
    for path in files[1:3]:
        assert any(line.startswith(f"FAIL {path}") for line in lines), path
    assert any(line.startswith(f"OK {GAME}") for line in lines)


def test_routes_bench_reports_each_file_and_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [*bad_files(tmp_path), GAME]
    junk = files[0]
    assert main(["routes", "bench", *map(str, files)]) == 3  # a file that is no JSON: the input-file code
    out = capsys.readouterr()
    lines = out.out.splitlines()
    assert out.err.splitlines() == [f"error: {junk}: is not JSON ({JUNK_WHY})"]
    for path in files[1:3]:
        assert any(line.startswith(f"FAIL {path}") for line in lines), path
    summary = lines[-1]
    assert summary.startswith("states=") and not summary.startswith("states=0 ")
