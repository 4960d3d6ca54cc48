"""``Game.audit()``: the one invariant check of a game (money conserved, certificates held once
and adding up, loans, limits), asked by the replays, the random games, the property tests and
``companion games check``.  It finds what is wrong, and nothing on a real game."""

from __future__ import annotations

from companion.engine import new_game
from companion.engine.game import Game


def _game(title: str = "1870") -> Game:
    game = new_game(title, ["Ann", "Bob", "Cy"], frozenset(), 0)
    assert isinstance(game, Game)
    return game


def test_a_new_game_of_every_title_is_sound() -> None:
    for title in ("1870", "1867", "1861", "1833NE", "TSR", "CoBS"):
        assert new_game(title, ["Ann", "Bob", "Cy"], frozenset(), 0).audit() == [], title


def test_money_that_appears_is_found() -> None:
    game = _game()
    game.players[0].cash += 10
    assert game.audit() == ["money is not conserved: 12010 in the game, 12000 at its start"]


def test_cash_below_zero_is_found() -> None:
    game = _game()
    game.players[1].cash -= 5000
    game.bank.cash += 5000
    assert game.audit() == ["Bob has -4300 in cash, below zero"]


def test_a_certificate_in_two_hands_is_found() -> None:
    game = _game()
    share = game.corporations[0].shares[1]
    game.players[0].shares.append(share)  # also still in the IPO
    problems = game.audit()
    assert f"{share.id} is held in 2 places" in problems
    assert f"{share.id} is in Ann's hands but names {share.owner.name}" in problems


def test_loans_that_vanish_are_found() -> None:
    game = new_game("1867", ["Ann", "Bob", "Cy"], frozenset(), 0)
    game.loans_left -= 1  # type: ignore[attr-defined]
    assert "71 loans are in the game, not 72" in game.audit()


def test_a_tsr_link_of_nobody_is_found() -> None:
    game = new_game("TSR", ["Ann", "Bob", "Cy"], frozenset(), 0)
    game.owner_of["no-such-link"] = "red"  # type: ignore[attr-defined]
    assert "a link is built twice, or by no railroad" in game.audit()


def test_games_check_and_replay_report_what_the_audit_finds(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``companion games check`` (``Store.check``) and ``companion replay`` ask every replayed
    game's audit and report what it finds (here an audit made to find something)."""
    from companion.engine.core import TableGame
    from companion.interop.replay import replay
    from companion.store import Store

    store = Store.open(tmp_path / "c.sqlite3")
    try:
        game_id = store.create_game("1870", ["Ann", "Bob", "Cy"], [], 0)
        assert store.check() == []
        monkeypatch.setattr(TableGame, "audit", lambda self: ["a certificate is held in 2 places"])
        assert store.check() == [f"game {game_id} in {store.path}: a certificate is held in 2 places"]
    finally:
        store.close()
    from tests.support.engine import FIXTURES

    fixture = sorted(FIXTURES.glob("*.json"))[0]
    result = replay(fixture)
    assert not result.ok and "the state at the end is unsound: a certificate is held in 2 places" in str(
        result.divergence
    )
