"""Several frames of the table: combining observations, the board watch, and checking photos of a
live game of the database from the command line."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.interop.actions import effective_actions, remap_players
from companion.store import Store
from companion.table.camera import BoardWatch, board_from_game, check_frames
from companion.ui.scenario import strip_action
from tests.support.engine import FIXTURES, actions, export, game_at
from vision.perturb import Perturbation, simulate_frame
from vision.pipeline import FrameResult, HexObservation, Recognizer
from vision.reconcile import combine

NAME = "34110"
LAY = 66  # ATSF lays #8 on A8, rotation 5, in its first operating round


def seen(hex_id: str, tile: str | None = None, rotation: int = 0, confidence: float = 0.9) -> HexObservation:
    if tile is None:
        return HexObservation(hex_id, "empty", confidence=confidence)
    return HexObservation(hex_id, "tile", tile, rotation, "yellow", confidence)


UNSEEN = HexObservation("A8", "unseen")

# ---------------------------------------------------------------- combine


def test_frames_that_agree_are_one_observation_and_the_latest_is_kept() -> None:
    frames = [{"A8": seen("A8", "9", 0, 0.7)}, {"A8": UNSEEN}, {"A8": seen("A8", "9", 3, 0.95)}]
    out = combine(frames, "1870")
    assert out["A8"].placed == ("9", 3)  # a straight track turned 180° is the same placement
    assert out["A8"].confidence == 0.95
    assert combine(frames, "1870", min_seen=3)["A8"].status == "unseen"  # seen twice only


def test_frames_that_disagree_are_cant_see_until_two_agree_again() -> None:
    for later in (seen("A8"), seen("A8", "8", 0), seen("A8", "9", 1)):
        out = combine([{"A8": seen("A8", "9", 0)}, {"A8": later}], "1870")
        assert out["A8"].status == "unseen", later
        out = combine([{"A8": seen("A8", "9", 0)}, {"A8": later}, {"A8": UNSEEN}, {"A8": later}], "1870")
        assert out["A8"].status == later.status and out["A8"].placed == later.placed
    # an unsure reading does not count, for or against
    out = combine([{"A8": seen("A8", "9", 0)}, {"A8": seen("A8", confidence=0.2)}], "1870")
    assert out["A8"].placed == ("9", 0)
    with pytest.raises(ValueError):
        combine([], "1870", min_seen=0)


def test_a_hand_moving_over_the_board_hides_less_in_several_frames() -> None:
    game = game_at(NAME, 120)
    board = board_from_game(game)
    rec = recognizer()
    frames = [
        simulate_frame(board, Perturbation(fill=0.9, hand=True, cards=1, noise_sigma=2.0, seed=s)).image
        for s in (3, 4, 5)
    ]
    single = [check_frames(game, [f], rec) for f in frames]
    both = check_frames(game, frames, rec)
    assert all(c.clean for c in single), [c.summary() for c in single]
    assert both.clean and both.frames == 3, both.summary()
    hidden = [set(c.cant_see) for c in single]
    assert set(both.cant_see) <= set.intersection(*hidden)
    assert len(both.cant_see) < min(len(h) for h in hidden)


# ---------------------------------------------------------------- the board watch


@cache
def recognizer() -> Recognizer:
    return Recognizer(board_from_game(game_at(NAME, 0)))


class Scripted:
    """A recogniser that reads what the test says (one set of observations per frame)."""

    def __init__(self, real: Recognizer, readings: list[dict[str, HexObservation]]) -> None:
        self.board = real.board
        self.readings = readings
        self.real = real

    def recognise(self, frame: Any) -> FrameResult:
        result = self.real.recognise(frame)
        base = dict(result.observations)
        base.update(self.readings.pop(0))
        return FrameResult(base, result.homography, result.markers, result.seconds)


def test_the_watch_reports_a_new_tile_once_two_frames_agree_and_ignores_a_blip() -> None:
    idx = next(i for i, a in enumerate(actions(NAME)) if a["id"] == LAY)
    game = game_at(NAME, idx)
    board = board_from_game(game)
    frame = simulate_frame(board, Perturbation(fill=0.95)).image
    eight = seen("A8", "8", 5)
    readings = [{}, {"A8": eight}, {}, {}, {"A8": eight}, {"A8": eight}]
    watch = BoardWatch(Scripted(recognizer(), readings), window=3, min_seen=2)  # type: ignore[arg-type]
    verdicts = []
    for n in range(len(readings)):
        watch.add(frame)
        assert watch.ready == (n >= 2)  # a full window of three frames
        check = watch.check(game)
        verdicts.append([(d.kind, d.hex) for d in check.differences])
        assert check.image is not None and check.image.shape == frame.shape
    # frame 2 alone sees a tile: one frame is a blip; frames 5 and 6 agree: a real new tile
    assert verdicts == [[], [], [], [], [], [("unexpected_tile", "A8")]]
    proposals = watch.check(game).proposals
    assert [(p["entity"], p["hex"], p["rotation"]) for p in proposals] == [("ATSF", "A8", 5)]


def test_the_watch_without_the_board_says_so() -> None:
    game = game_at(NAME, 120)
    watch = BoardWatch(recognizer())
    result = watch.add(np.full((480, 640, 3), 200, np.uint8))
    assert not result.ok
    check = watch.check(game)
    assert check.error and "cannot see the board" in check.error and not check.clean
    with pytest.raises(ValueError):
        BoardWatch(recognizer(), window=2, min_seen=3)


# ---------------------------------------------------------------- vision check --game


def test_vision_check_against_a_live_game_proposes_the_lay(tmp_path: Path, capsys: Any) -> None:
    data = export(NAME)
    seats = {p["id"]: i + 1 for i, p in enumerate(data["players"])}
    names = [str(p["name"]) for p in data["players"]]
    played = [remap_players(strip_action(a), seats) for a in effective_actions(data["actions"])]
    idx = next(i for i, a in enumerate(actions(NAME)) if a["id"] == LAY)
    settings = data.get("settings") or {}
    db = tmp_path / "companion.sqlite3"
    with Store.open(db) as store:
        game_id = store.create_game(
            "1870", names, list(settings.get("optional_rules") or []), int(settings.get("seed") or 0)
        )
        store.append_many(game_id, played[:idx])
    real = played[idx]
    board = board_from_game(game_at(NAME, idx))
    table = board.with_tiles({**board.tiles, "A8": ("8", 5)})
    photos = []
    for k in range(2):
        path = tmp_path / f"photo{k}.jpg"
        cv2.imwrite(str(path), simulate_frame(table, Perturbation(fill=0.9, noise_sigma=2.0, seed=k)).image)
        photos.append(str(path))
    out = tmp_path / "marked.png"
    code = main(["vision", "check", *photos, "--game", str(game_id), "--db", str(db), "--out", str(out)])
    text = capsys.readouterr().out
    assert code == 1, text
    assert "2 photo(s)" in text
    assert "A8: unexpected tile" in text
    assert f"proposed: {real['entity']} lays #{real['tile']} on A8, rotation 5" in text
    assert cv2.imread(str(out)) is not None
    # bad input: no such game, no database, --action with --game
    assert main(["vision", "check", photos[0], "--game", "99", "--db", str(db)]) == 2
    assert "cannot load game 99" in capsys.readouterr().err
    assert main(["vision", "check", photos[0], "--game", "1", "--db", str(tmp_path / "none.db")]) == 2
    assert "no game database" in capsys.readouterr().err
    assert main(["vision", "check", photos[0], "--game", "1", "--db", str(db), "--action", "3"]) == 2
    assert FIXTURES.exists()


def test_the_background_watch_proposes_a_tile_just_laid_on_the_table(tmp_path: Path) -> None:
    """Lay the tile, confirm: the watch's verdict with one legal new tile becomes the proposal."""
    from companion.table.service import Proposal
    from companion.ui.session import UISession
    from tests.support.table import private_table

    idx = next(i for i, a in enumerate(actions(NAME)) if a["id"] == LAY)
    table = private_table(tmp_path, idx)
    try:
        service = table.service
        session = UISession(service)
        board = board_from_game(service.game)
        on_table = board.with_tiles({**board.tiles, "A8": ("8", 5)})
        frames = [
            simulate_frame(on_table, Perturbation(fill=0.9, noise_sigma=2.0, seed=s)).image for s in (1, 2, 3)
        ]
        check = check_frames(service.game, frames, recognizer(), min_seen=2)
        assert [(p["hex"], p["rotation"]) for p in check.proposals] == [("A8", 5)], check.summary()
        session.record_check(check, quiet_if_unchanged=True, offer=True)
        proposal = service.proposal
        assert isinstance(proposal, Proposal) and proposal.action["type"] == "lay_tile"
        assert (proposal.action["entity"], proposal.action["hex"], proposal.action["rotation"]) == (
            "ATSF",
            "A8",
            5,
        )
        assert any(
            e.startswith("[camera] proposes what it sees: ATSF lays tile") and "on A8" in e
            for e in session.events
        ), session.events
        # cancelled: the same verdict again is not proposed again
        session.cancel()
        written = len(session.events)
        session.record_check(check, quiet_if_unchanged=True, offer=True)
        assert service.proposal is None
        # ... nor written again: the watch writes a line only when what the camera says changes
        assert len(session.events) == written, session.events[written:]
        # the Check button's path shows the lay as a button instead of proposing it
        fresh = UISession(service)
        fresh.record_check(check)
        assert service.proposal is None
        assert service.confirm().ok is False  # nothing was proposed, nothing changes
    finally:
        table.store.close()
        table.registry.close()
