"""1833NE's two special stations: the token St. Lawrence & Atlantic and Atlantic & St. Lawrence
share in Sherbrooke (placed free as soon as anyone lays Sherbrooke's yellow tile), and Boston &
Providence's reserved slot in Boston (from Boston's green tile until phase IV)."""

from __future__ import annotations

import pytest

from companion.engine import GameError
from companion.engine.entities import Corporation
from companion.engine.map import MapError, SpecialLay
from companion.engine.operating import Track
from companion.titles.g1833ne import Game1833NE
from companion.titles.g1833ne import takeover as tk
from companion.titles.g1833ne.game import BOSTON, SHERBROOKE
from tests.support.g1833ne import example_game, index_of

PAIR = ("StL&A", "A&StL")


def lay(game: Game1833NE, corp: Corporation, hex_id: str, tile: str) -> None:
    """``corp`` lays ``tile`` on ``hex_id`` in its track step, wherever its track is (the rule under
    test is what the lay brings, not reaching the hex)."""
    step = next(s for s in game.round.steps if isinstance(s, Track))
    for rotation in range(6):
        try:
            trial = game.clone()
            trial_step = next(s for s in trial.round.steps if isinstance(s, Track))
            trial.lay_tile_for(trial_step, trial.corporation(corp.sym), trial.corporation(corp.sym),
                               {"hex": hex_id, "tile": tile, "rotation": rotation},
                               special=SpecialLay(check_connection=False), count_lay=False)  # fmt: skip
        except GameError:
            continue
        game.lay_tile_for(step, corp, corp, {"hex": hex_id, "tile": tile, "rotation": rotation},
                          special=SpecialLay(check_connection=False), count_lay=False)  # fmt: skip
        return
    raise AssertionError(f"{tile} fits {hex_id} in no rotation")


def sherbrooke(game: Game1833NE) -> tuple[list[str | None], list[str]]:
    st = game.map.state[SHERBROOKE]
    node = st.spec.city_indices[0]
    return st.tokens[node], st.extra_tokens.get(node, [])


def founded_pair_game() -> tuple[Game1833NE, Corporation]:
    """The worked example's stock round 2: H2 founds StL&A and H3 A&StL at $40, everyone passes into
    operating round 2.1; the first corporation to operate (B&W) is at its track step, and neither
    of the two has operated yet."""
    game = example_game()
    for player, sym in ((2, "StL&A"), (3, "A&StL")):
        while game.round.current_entity() is not game.player(player):
            game.apply({"type": "pass", "entity": game.round.current_entity().id, "entity_type": "player"})
        par = next(
            la.action
            for la in game.legal_actions()
            if la.type == "par"
            and la.action["corporation"] == sym
            and la.action["share_price"].startswith("40,")
        )
        game.apply(par)
    while game.round.name == "Stock Round":
        game.apply({"type": "pass", "entity": game.round.current_entity().id, "entity_type": "player"})
    corp = game.round.current_entity()
    assert isinstance(corp, Corporation)
    while "lay_tile" not in game.legal_action_types():
        game.apply({"type": "pass", "entity": corp.sym, "entity_type": "corporation"})
    return game, corp


def test_no_variable_start_corporation_starts_in_sherbrooke_before_the_shared_token() -> None:
    game = example_game()  # Takeover game, stock round 2, phase II: variable starts may be founded
    node = game.map.state[SHERBROOKE].spec.city_indices[0]
    ref = game.map.city_ref(SHERBROOKE, node)
    assert ref not in tk.home_cities(game, game.corporation("V1"))
    assert game.map.city_ref("D21", 0) in tk.home_cities(game, game.corporation("V1"))  # a plain city is
    offered = {la.action.get("city") for la in game.legal_actions() if la.type == "par"}
    assert ref not in offered
    par = next(
        la.action for la in game.legal_actions() if la.type == "par" and la.action["corporation"] == "V1"
    )
    with pytest.raises(GameError, match="cannot start"):
        game.apply({**par, "city": ref})


def test_sherbroookes_yellow_tile_brings_the_pairs_shared_token_free() -> None:
    game = example_game(index_of("lay_tile", "HR"))  # OR 1.1: Hartford lays track
    hr = game.corporation("HR")
    assert game.map.state[SHERBROOKE].spec.city_indices and not any(sherbrooke(game)[0])
    cash = hr.cash
    lay(game, hr, SHERBROOKE, "N11-0")
    slots, beside = sherbrooke(game)
    assert slots == ["StL&A"] and beside == ["A&StL"]  # one token in the slot, counting for both
    node = game.map.state[SHERBROOKE].spec.city_indices[0]
    for sym in PAIR:  # a station of each (routes, passage), though neither is founded yet
        assert (SHERBROOKE, node) in game.map.tokens_of(sym)
        assert not game.map.state[SHERBROOKE].blocks(node, sym)
    assert game.map.state[SHERBROOKE].blocks(node, "HR")  # the city is full for everyone else
    with pytest.raises(MapError):
        game.map.validate_token("HR", game.map.city_ref(SHERBROOKE, node))
    assert hr.cash == cash  # the token costs nobody anything (and this lay is a free one)
    assert any("shared station token" in line for line in game.log)


def test_the_pair_still_place_their_home_tokens_and_the_token_follows_takeovers_and_closings() -> None:
    game, corp = founded_pair_game()
    stla, astl = (game.corporation(s) for s in PAIR)
    assert corp not in (stla, astl) and game.map.tokens_of("StL&A") == game.map.tokens_of("A&StL") == []
    lay(game, corp, SHERBROOKE, "N11-0")
    assert sherbrooke(game) == (["StL&A"], ["A&StL"])
    for holder, home in ((stla, "B3"), (astl, "I14")):  # their first turns: home tokens all the same
        game.place_home_token(holder)
        assert {h for h, _n in game.map.tokens_of(holder.sym)} == {home, SHERBROOKE}
    assert sherbrooke(game) == (["StL&A"], ["A&StL"])
    # the operating corporation takes over StL&A: it holds the shared token in StL&A's place
    deal = tk.proposed_terms(game, corp, stla, "cash")
    assert deal is not None
    game.bank.spend(deal.total_cash, corp)
    tk.take_over(game, corp, stla, deal)
    slots, beside = sherbrooke(game)
    assert len(slots) == 1 and sorted([*filter(None, slots), *beside]) == sorted(["A&StL", corp.sym])
    assert SHERBROOKE in {h for h, _n in game.map.tokens_of(corp.sym)}
    # A&StL closes: the buyer's is the token in the slot
    game.close_corporation(astl)
    assert sherbrooke(game) == ([corp.sym], [])


def test_boston_and_providence_has_a_reserved_slot_in_boston_from_its_green_tile_to_phase_four() -> None:
    game, corp = founded_pair_game()
    bp = game.corporation("B&P")
    assert game.phase.name == "II"
    lay(game, corp, BOSTON, "N23-0")  # Boston's green tile: three slots
    st = game.map.state[BOSTON]
    reserved = [(n, i) for n in st.spec.city_indices for i, r in enumerate(st.reservations[n]) if r == bp.sym]
    assert len(reserved) == 1
    node, slot = reserved[0]
    assert st.tokens[node][slot] is None
    ref = game.map.city_ref(BOSTON, node)
    with pytest.raises(MapError, match="reserved for B&P"):  # nobody else may take it
        game.map.validate_token("HR", ref, slot, home=True)
    assert ref not in tk.home_cities(game, game.corporation("V1"))  # nor found a corporation there
    game.map.validate_token(bp.sym, ref, None, home=True)  # B&P may
    assert any("reserved for Boston & Providence" in line for line in game.log)
    # phase IV ends the reservation
    game.phase_index = 3
    game.on_phase_change()
    assert bp.sym not in [r for n in st.spec.city_indices for r in st.reservations[n]]
    game.map.validate_token("HR", ref, slot, home=True)
