"""The table on the simulated serial path: a fake reader board on a pty, the real SerialReader, the service."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from companion.table.script import demo_uid
from companion.table.tags import find_item
from devtools.bench.table import measure, serial_table


def wait_until(cond: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def uid(item: str) -> str:
    return demo_uid(find_item("1870", item))


def test_corrupt_serial_lines_make_no_proposal(tmp_path: Path) -> None:
    with serial_table(tmp_path) as t:
        board, reader, service = t.board, t.reader, t.service
        tag, removed = board.tap_lines(0, uid("SLSF_1"))
        code = uid("SLSF_1").encode()
        other = code[:-1] + (b"0" if code[-1:] != b"0" else b"1")
        corrupt = tag.replace(code, other)  # one digit of the UID changed, the checksum left as it was
        board.write(corrupt)
        board.write(b"\x00\xff garbage without a newline then one\n")
        board.write(tag[: len(tag) // 2] + b"\n")  # a truncated line
        wait_until(lambda: reader.stats.corrupt >= 3)
        assert t.proposals == [] and t.results == []
        before = service.game.share("SLSF_1").owner
        # the valid line that follows is read, and proposes exactly once
        good, _ = board.tap_lines(0, uid("SLSF_1"))
        board.write(good)
        wait_until(lambda: len(t.proposals) == 1)
        proposal = t.proposals[0][1]
        assert proposal is not None and proposal.text == "Player 3 buys 10% SLSF from the IPO for $100"
        assert service.game.share("SLSF_1").owner is before  # only proposed
        assert service.confirm().ok
        assert service.game.share("SLSF_1").owner.name == "Player 3"
        assert t.store.effective_actions(service.game_id)[-1]["shares"] == ["SLSF_1"]


def test_unknown_tag_on_the_serial_path_is_refused(tmp_path: Path) -> None:
    with serial_table(tmp_path) as t:
        tag, _ = t.board.tap_lines(1, "04DEADBEEF0001")
        t.board.write(tag)
        wait_until(lambda: len(t.results) == 1)
        result = t.results[0][1]
        assert (
            not result.ok
            and result.text == "unknown tag 04DEADBEEF0001: enroll it with companion tags enroll"
        )
        assert t.proposals == []
        # the refusal was signalled to the reader board (its LED/buzzer feedback command)
        wait_until(lambda: any(b"feedback" in c for c in t.board.commands))


def test_tap_to_state_change_measure_runs_the_whole_path() -> None:
    figures = measure(taps=3)
    assert {k: len(v) for k, v in figures.items()} == {"proposal": 3, "confirm": 3, "total": 3}
    for proposal, confirm, total in zip(
        figures["proposal"], figures["confirm"], figures["total"], strict=True
    ):
        assert 0 < proposal < total and 0 < confirm < total
