"""tools/random_games.py plays 1867 and 1861 games to their end, and their exports replay."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.interop.replay import replay
from tests.support.tools import load_tool


@pytest.mark.slow
@pytest.mark.parametrize(("title", "seed"), [("1867", 4), ("1861", 2)])
def test_a_random_game_ends_and_its_export_replays(title: str, seed: int, tmp_path: Path) -> None:
    tool = load_tool()
    from companion.interop.replay import export_game

    game = tool.play(seed, 3 if title == "1861" else 4, frozenset(), 3000, title)
    assert game.finished and game.game_end_reason in ("bank", "final_phase")
    path = tmp_path / f"{title}-{seed}.json"
    path.write_text(json.dumps(export_game(game, game_id=seed)))
    result = replay(path)
    assert result.ok, result.divergence
    assert result.game is not None and result.game.result() == game.result()
