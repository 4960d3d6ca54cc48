"""The table on the simulated serial path: a fake reader board on a pty, the real SerialReader, the service."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from companion.engine import new_game
from companion.table.script import demo_uid
from companion.table.tags import find_item
from devtools.bench.table import measure, opening, serial_table


def wait_until(cond: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def uid(item: str, title: str = "1870") -> str:
    return demo_uid(find_item(title, item))


def test_the_bench_starts_at_the_demo_game_s_first_purchase_from_the_ipo() -> None:
    start = opening("1870")
    assert (start.certificate, start.buyer) == ("SLSF_1", "Player 2")
    game = new_game("1870", start.players, frozenset(start.rules), start.seed)
    for move in start.moves:
        game.apply(move)
    assert game.current_entity().name == start.buyer
    assert game.share("SLSF_1").owner is game.corporation("SLSF")


def test_corrupt_serial_lines_make_no_proposal(tmp_path: Path) -> None:
    with serial_table(tmp_path, opening("1870")) as t:
        board, reader, service = t.board, t.reader, t.service
        cert = uid(t.start.certificate)
        tag, removed = board.tap_lines(0, cert)
        code = cert.encode()
        other = code[:-1] + (b"0" if code[-1:] != b"0" else b"1")
        corrupt = tag.replace(code, other)  # one digit of the UID changed, the checksum left as it was
        board.write(corrupt)
        board.write(b"\x00\xff garbage without a newline then one\n")
        board.write(tag[: len(tag) // 2] + b"\n")  # a truncated line
        wait_until(lambda: reader.stats.corrupt >= 3)
        assert t.proposals == [] and t.results == []
        before = service.game.share(t.start.certificate).owner
        # the valid line that follows is read, and proposes exactly once
        good, _ = board.tap_lines(0, cert)
        board.write(good)
        wait_until(lambda: len(t.proposals) == 1)
        proposal = t.proposals[0][1]
        assert (
            proposal is not None and proposal.text == f"{t.start.buyer} buys 10% SLSF from the IPO for $100"
        )
        assert service.game.share(t.start.certificate).owner is before  # only proposed
        assert service.confirm().ok
        assert service.game.share(t.start.certificate).owner.name == t.start.buyer
        assert t.store.effective_actions(service.game_id)[-1]["shares"] == [t.start.certificate]


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
