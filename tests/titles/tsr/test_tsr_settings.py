"""Trans-Siberian Railroad's dividends track (issue 15, item 1): no source we hold gives its
length, so the players choose it when the game is created (``dividends_track=N`` among the
game's optional rules, the data's placeholder by default).  The engine ends the game at the
chosen length, refuses a bad value with a clear error, and the store, the export, a replay, the
New game screen, ``companion table --setting`` and the configuration keep it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.config import ConfigError, parse_config
from companion.engine import GameError, new_game, title_info
from companion.interop.replay import export_game, replay
from companion.store import Store
from companion.table.exchange import export_table_game, import_export
from companion.table.service import TableService
from companion.table.tags import TagRegistry
from companion.titles.tsr import table as tsr_table
from companion.titles.tsr.game import DIVIDENDS_TRACK, GameTSR
from tests.support.tsr import act, companion_table, nobody_bids, win_auction

NAMES = ["Ann", "Bob", "Cy"]


def red_only(rules: list[str]) -> GameTSR:
    """Ann wins red; nobody bids for blue, green or yellow: Ann to act, red private."""
    game = new_game("TSR", NAMES, rules)
    assert isinstance(game, GameTSR)
    win_auction(game, "red", "Ann", 20, "moscow-stpetersburg", 8)
    for _ in range(3):
        nobody_bids(game)
    return game


def dividends(game: GameTSR, times: int) -> None:
    """Everyone passes until ``times`` more dividends have been paid (five passes each)."""
    for _ in range(times * game.timing_length):
        act(game, "pass")


def test_the_setting_is_the_titles_with_the_placeholder_as_default() -> None:
    (setting,) = title_info("TSR").settings
    assert setting.sym == DIVIDENDS_TRACK == "dividends_track"
    assert setting.label == "Dividend phases on your board's dividends track"
    assert setting.default == 10 and (setting.low, setting.high) == (1, 40)
    assert "no source" in setting.note
    assert new_game("TSR", NAMES).dividends_to_end == 10  # type: ignore[attr-defined]
    assert new_game("TSR", NAMES, ["dividends_track=12"]).dividends_to_end == 12  # type: ignore[attr-defined]


@pytest.mark.parametrize("length", [1, 2, 3])
def test_the_game_ends_at_the_chosen_length(length: int) -> None:
    game = red_only([f"dividends_track={length}"])
    dividends(game, length - 1)
    assert not game.finished and game.dividends_paid == length - 1
    dividends(game, 1)
    assert game.finished and game.game_end_reason == "dividends" and game.dividends_paid == length


def test_the_default_length_goes_on_where_a_shorter_one_ends() -> None:
    game = red_only([])
    dividends(game, 3)
    assert not game.finished and game.dividends_paid == 3


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        (["dividends_track=0"], "must be a whole number from 1 to 40, not 0"),
        (["dividends_track=41"], "must be a whole number from 1 to 40, not 41"),
        (["dividends_track=ten"], "must be a whole number from 1 to 40, not 'ten'"),
        (["dividends_track="], "must be a whole number from 1 to 40, not ''"),
        (["dividends_track=3", "dividends_track=4"], "chosen twice"),
        (["dividend_track=3"], "TSR has no setting 'dividend_track' (its settings: dividends_track=N)"),
        (["column_market"], "TSR has no optional rule 'column_market' (its settings: dividends_track=N)"),
    ],
)
def test_a_bad_value_is_refused_with_a_clear_error(rules: list[str], message: str) -> None:
    with pytest.raises(GameError) as info:
        new_game("TSR", NAMES, rules)
    assert message in str(info.value)


def test_a_refused_setting_stores_no_game(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    with Store.open(db) as store, TagRegistry.open(db) as registry:
        with pytest.raises(GameError, match="Dividend phases on your board's dividends track must be"):
            TableService.new(store, registry, "TSR", NAMES, ["dividends_track=0"])
        assert store.games() == []


def test_the_panels_show_the_chosen_length() -> None:
    game = red_only(["dividends_track=3"])
    dividends(game, 1)
    tracks = next(p for p in tsr_table.panels(game) if p.heading == "Tracks")
    assert tracks.rows[0][3] == "1 of 3"
    assert "dividends paid: 1 of 3 (the dividend phases on your board's dividends track" in tracks.note
    assert dict(tsr_table.counters(game))["Dividends paid"] == "1 of 3"


def test_the_store_the_export_and_a_replay_keep_it(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    with Store.open(db) as store, TagRegistry.open(db) as registry:
        service = TableService.new(store, registry, "TSR", NAMES, ["dividends_track=2"])
        for action in red_only(["dividends_track=2"]).actions:
            service.propose(dict(action))
            assert service.press("confirm").ok  # type: ignore[union-attr]
        game_id = service.game_id
        reopened = TableService.open(store, game_id, registry).game
        assert reopened.dividends_to_end == 2  # type: ignore[attr-defined]
        export = export_table_game(store, game_id)
        assert export["settings"]["optional_rules"] == ["dividends_track=2"]
        imported_id, imported = import_export(store, export)
        assert imported.dividends_to_end == 2  # type: ignore[attr-defined]
    # a game played to its end under the setting replays to the same end
    game = red_only(["dividends_track=2"])
    dividends(game, 2)
    assert game.finished
    path = tmp_path / "tsr.json"
    path.write_text(json.dumps(export_game(game, 1)))
    result = replay(path)
    assert result.ok, result.error
    assert result.game is not None and result.game.finished
    assert result.game.dividends_to_end == 2  # type: ignore[attr-defined]
    # without the setting the same actions would not have ended the game: the replay read it
    loose = json.loads(path.read_text())
    loose["settings"]["optional_rules"] = []
    path.write_text(json.dumps(loose))
    assert not replay(path).ok


def test_companion_table_takes_the_setting(tmp_path: Path) -> None:
    proc = companion_table(tmp_path, "help\n", "--setting", "dividends_track=7")
    assert proc.returncode == 0, proc.stderr
    assert "Dividend phases on your board's dividends track: 7" in proc.stdout
    with Store.open(tmp_path / "t.sqlite3") as store:
        (record,) = store.games()
        assert record.optional_rules == ["dividends_track=7"]


def test_companion_table_refuses_a_bad_setting_and_stores_nothing(tmp_path: Path) -> None:
    proc = companion_table(tmp_path, "help\n", "--setting", "dividends_track=99")
    assert proc.returncode == 1
    assert "must be a whole number from 1 to 40, not 99" in proc.stderr
    with Store.open(tmp_path / "t.sqlite3") as store:
        assert store.games() == []


def test_the_configuration_takes_the_setting_and_refuses_a_bad_one() -> None:
    config = parse_config('[game]\ntitle = "TSR"\nrules = ["dividends_track=12"]\n')
    assert config.game.rules == ("dividends_track=12",)
    with pytest.raises(ConfigError) as info:
        parse_config('[game]\ntitle = "TSR"\nrules = ["dividends_track=0"]\n')
    assert any("dividends track must be a whole number from 1 to 40, not 0" in p for p in info.value.problems)
