"""A first launch under Xvfb at 800×480: the New game screen, names typed on the on-screen
keyboard, nothing stored until the table starts the game; start-up failures are heard."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from companion.engine import playable_titles, title_info
from companion.store import Store
from tests.support.ui import companion_run, drive


def test_a_first_launch_opens_on_new_game_and_stores_nothing(tmp_path: Path, display: str) -> None:
    (tmp_path / "c.toml").write_text('[game]\ntitle = "1870"\ndatabase = "db.sqlite3"\n')
    proc = companion_run(
        ["--config", "c.toml", "--exit-after", "2", "--screenshot", "first.png"], display, tmp_path
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    texts = (tmp_path / "first.txt").read_text().split("what happened:")[0].splitlines()
    assert "New game" in texts and "Start the new game" in texts
    assert not any(t.startswith("Bank $") for t in texts)  # no game, so no bank and no actions
    assert not any("Player 1 to act" in t for t in texts)
    with Store.open(tmp_path / "db.sqlite3") as store:
        assert store.games() == []
    assert cv2.imread(str(tmp_path / "first.png")).shape[:2] == (480, 800)


NEW_GAME = """
def make_app():
    return CompanionApp(None, store=store, registry=registry)


def steps(app):
    setup = app.screens["setup"]
    yield "new-game"
    assert store.games() == []
    setup.title_spinner.text = "1870"  # 1833NE (playable, not complete) sorts first
    yield ""
    # the table taps a name field: the on-screen keyboard docks at the bottom of the window
    field = setup.names[0]
    field.focus = True
    yield ""
    from kivy.uix.vkeyboard import VKeyboard

    keyboards = [w for w in app.root_window.children if isinstance(w, VKeyboard)]
    assert keyboards, "no on-screen keyboard"
    keyboard = keyboards[0]
    field.text = ""
    for letter in "Ann":
        keyboard.dispatch("on_textinput", letter)
    yield ""
    yield "keyboard"
    assert field.text == "Ann", field.text
    # the field stays above the keyboard, where the player can see what is typed
    assert field.to_window(*field.pos)[1] >= keyboard.top - 1, (field.to_window(*field.pos), keyboard.top)
    field.focus = False
    for w, name in zip(setup.names[1:], ["Bob", "Cy"]):
        w.text = name
    setup.count_spinner.text = "3"
    yield ""
    assert [w.text for w in setup.names] == ["Ann", "Bob", "Cy"]
    assert store.games() == []
    setup.start()
    yield "started"
    (game,) = store.games()
    assert game.players == ["Ann", "Bob", "Cy"]
"""


def test_new_game_with_the_on_screen_keyboard(tmp_path: Path, display: str) -> None:
    shots = drive(NEW_GAME, tmp_path, display)
    first = shots["new-game"]
    assert "New game" in first["texts"] and first["labelled"]["new-game"]["text"] == "New game"
    assert "Who is playing?" in first["texts"]
    started = shots["started"]["texts"]
    assert "Ann to act" in started and "Bank $9,900" in started  # 1870, 3 players: $12,000 less 3 × $700
    with Store.open(tmp_path / "db.sqlite3") as store:
        (game,) = store.games()
        assert game.players == ["Ann", "Bob", "Cy"] and game.action_count == 0


def test_a_playable_title_without_a_touchscreen_is_refused_in_one_clear_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every playable title has a touchscreen today; one whose table module is missing (a title
    without a map whose rules came first) is refused by name, with the titles that are served."""
    import companion.table.titles as table_titles
    from companion.commands.run import title_refusal

    assert all(title_refusal(t) is None for t in playable_titles())
    unserved = next(t for t in playable_titles() if not title_info(t).has_map)
    real = table_titles.table_module
    monkeypatch.setattr(table_titles, "table_module", lambda t: None if t == unserved else real(t))
    at_table = ", ".join(t for t in playable_titles() if t != unserved)
    assert (
        title_refusal(unserved) == f"game.title {unserved} has no touchscreen yet (at the table: {at_table})"
    )


def test_a_bad_configuration_file_is_heard_too(tmp_path: Path, display: str) -> None:
    (tmp_path / "bad.toml").write_text('[game]\ntitle = "1870"\nplayers = ["Ann"]\n')
    env_home = tmp_path / "home"
    proc = companion_run(
        ["--config", "bad.toml", "--exit-after", "1"], display, tmp_path, XDG_DATA_HOME=str(env_home)
    )
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("error: ") and "players" in line
    assert "players" in (env_home / "companion" / "logs" / "companion.log").read_text()


KNOWN_NAMES = """
store.create_game("1870", ["Ann", "Bob", "Cy"], [], 0)
store.create_game("1870", ["Di", "Player 2", "Ann"], [], 0)


def make_app():
    return CompanionApp(None, store=store, registry=registry)


def steps(app):
    setup = app.screens["setup"]
    chips = {w.name_chip: w for w in setup.grid.walk() if getattr(w, "name_chip", None)}
    assert list(chips) == ["Di", "Ann", "Bob", "Cy"], list(chips)  # latest game first, placeholders out
    for name in ("Bob", "Di", "Bob", "Cy"):  # Bob twice: seated once
        chips[name].dispatch("on_press")
    yield "names-by-touch"
    assert [w.text for w in setup.names] == ["Bob", "Di", "Cy", ""], [w.text for w in setup.names]
    assert setup.player_names() == ["Bob", "Di", "Cy", "Player 4"]  # the empty seat's default
"""


def test_names_of_earlier_games_are_seated_by_touch(tmp_path: Path, display: str) -> None:
    shots = drive(KNOWN_NAMES, tmp_path, display)
    assert "Players of earlier games (touch to seat them):" in shots["names-by-touch"]["texts"]
