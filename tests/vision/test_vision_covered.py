"""Hexes beside a hand or a card: a change there waits for a clear view.

A hand or a card is larger than a hex.  What covers a whole hex reaches over its neighbours, and a
pale hand over a tile can look like the bare map (a missing tile told to the players); the edge of
a card on a hex can look like a curve of track (a new tile).  The recogniser lists, per hex, the
neighbours it saw covered; the reconciliation reports a change on a hex beside two of them only
when the reading is very sure, and "no tile" beside three of them never (vision.reconcile.beside_cover)."""

from __future__ import annotations

import functools
from dataclasses import replace

from vision.board import board_from_title
from vision.perturb import Perturbation, simulate_frame
from vision.pipeline import HexObservation, Recognizer
from vision.reconcile import COVERED_NEIGHBOURS, SURE_BESIDE_COVERED, WHOLLY_COVERED_NEIGHBOURS, reconcile

#: 1870's I16 and its six neighbours
NEIGHBOURS = ("H15", "H17", "I14", "I18", "J15", "J17")


def _obs(
    hex_id: str, tile: str | None = None, rotation: int = 0, near: int = 0, sure: float = 0.99
) -> HexObservation:
    status = "tile" if tile else "empty"
    return HexObservation(
        hex_id,
        status,
        tile,
        rotation if tile else None,
        confidence=sure,
        covered_near=NEIGHBOURS[:near],
    )


def test_no_tile_beside_three_covered_hexes_is_never_a_missing_tile() -> None:
    """A pale hand lying over a whole tile reads as the bare map, and reaches over three neighbours."""
    assert WHOLLY_COVERED_NEIGHBOURS == 3
    recon = reconcile({"I16": _obs("I16", near=3, sure=1.0)}, {"I16": ("8", 4)}, "1870")
    assert recon.differences == () and recon.cant_see == ("I16",)
    assert recon.cant_see_why["I16"] == (
        "missing tile? but beside covered hexes (H15, H17, I14): it may be covered too"
    )


def test_a_change_beside_two_covered_hexes_needs_a_sure_reading() -> None:
    """A card's corner on an empty hex read as a curve of track (0.97) waits; a tile laid beside a
    card and read without doubt, or a tile removed there, is reported."""
    assert COVERED_NEIGHBOURS == 2 and 0.99 < SURE_BESIDE_COVERED < 1
    cases = (
        (_obs("I16", "8", 4, near=2, sure=0.97), {}, "unexpected_tile"),
        (_obs("I16", "8", 4, near=2, sure=0.97), {"I16": ("9", 0)}, "wrong_tile"),
        (_obs("I16", near=2, sure=0.98), {"I16": ("8", 4)}, "missing_tile"),
    )
    for obs, expected, kind in cases:
        recon = reconcile({"I16": obs}, expected, "1870")
        assert recon.differences == () and recon.cant_see == ("I16",), kind
        why = recon.cant_see_why["I16"]
        assert why.startswith(kind.replace("_", " ") + "? but beside covered hexes (H15, H17), read with 0.9")
        assert why.endswith("not sure enough there")
        sure = replace(obs, confidence=0.999)
        assert [d.kind for d in reconcile({"I16": sure}, expected, "1870").differences] == [kind]
        one = replace(obs, covered_near=obs.covered_near[:1])
        assert [d.kind for d in reconcile({"I16": one}, expected, "1870").differences] == [kind]


def test_what_agrees_with_the_game_is_read_beside_covered_hexes() -> None:
    """Only changes wait: a tile the game has, read beside a hand, is simply read."""
    recon = reconcile(
        {"I16": _obs("I16", "8", 4, near=6), "G18": _obs("G18", near=6)}, {"I16": ("8", 4)}, "1870"
    )
    assert recon.clean and recon.cant_see == ()


@functools.cache
def _hand_photo() -> tuple[Recognizer, dict[str, HexObservation]]:
    board = board_from_title("1870", {"I16": ("8", 4), "G12": ("7", 2), "H13": ("57", 1)})
    rec = Recognizer(board)
    image = simulate_frame(board, Perturbation(fill=0.9, hand=True, cards=1, noise_sigma=2.0, seed=3)).image
    result = rec.recognise(image)
    assert result.ok, result.error
    return rec, result.observations


def test_the_recogniser_lists_each_hexs_covered_neighbours() -> None:
    rec, observations = _hand_photo()
    covered = {h for h, o in observations.items() if o.status == "unseen" and o.why.startswith("hidden")}
    assert len(covered) >= 3  # the photo has a hand and a card over the board
    geometry = rec.board.geometry
    for hex_id, obs in observations.items():
        if obs.why == "not wholly in the photo":
            continue
        x, y = geometry.center(hex_id)
        near = {
            h
            for h in covered
            if 0.5 < ((geometry.center(h)[0] - x) ** 2 + (geometry.center(h)[1] - y) ** 2) ** 0.5 < 1.5
        }
        assert set(obs.covered_near) >= near, (hex_id, obs.covered_near, near)
        assert all(h in rec.hex_ids and h != hex_id for h in obs.covered_near)
    assert any(len(o.covered_near) >= 2 for o in observations.values())
