"""What the map carries from one state to the next gives the answers of a fresh walk.

A tile lay or a token changes one hex: a corporation's walk that never read that hex is kept
(``GameMap._changed``), and so are a token's "has track" answer (``has_chain``) and the tile
indexes of the other hexes; the new-track check of an upgrade and the checks asked right after a
lay continue the connection check's walk from just before it came to the hex
(``graph.reaches_any(..., after=...)``, ``graph.after_lay``) instead of walking the new map from
the start.  Each is checked against fresh walks (on a copy with no cache) on every map state of a
real game of each title with reference games (1870, 1867, 1861)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from companion.engine import graph
from companion.engine.map import GameMap, MapError, SimplePhase
from companion.interop.replay import iter_replay, load_export, states_before
from tests.support.paths import TESTS

FIXTURES = TESTS / "fixtures" / "18xx.games"
GAMES = ["1870/34110", "1867/hs_ahjzadkh_19792", "1861/29683"]
#: the games among them where a second lay's hex was come to by the walk of the lay before
#: (``hs_ahjzadkh_19792`` has no such lay)
SECOND_LAYS = ["1870/34110", "1861/29683"]
EVERY_COLOUR = SimplePhase("every colour", ("yellow", "green", "brown", "gray"))


def _uncached(game_map: GameMap) -> GameMap:
    """A copy of the map that knows nothing derived: every answer on it is walked afresh."""
    other = game_map.copy()
    other._graph_cache.clear()
    return other


def _maps(game: str) -> Iterator[GameMap]:
    """The live map after each action of a replay of ``game``."""
    for _action, table_game in iter_replay(load_export(FIXTURES / f"{game}.json")):
        yield table_game.map


def _fresh(game_map: GameMap, corp: str) -> graph.Connectivity:
    return graph.connectivity(_uncached(game_map), corp)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_a_walk_kept_across_a_change_is_the_walk_of_the_changed_map(game: str) -> None:
    kept = 0
    for game_map in _maps(game):
        for corp in game_map.corporations:
            if not game_map.tokens_of(corp):
                continue
            carried = graph.cached_connectivity(game_map, corp) is not None
            walk = graph.connectivity(game_map, corp)  # kept from an earlier state, or walked now
            if not carried:
                continue
            kept += 1
            fresh = _fresh(game_map, corp)
            assert walk.nodes == fresh.nodes, corp
            assert walk.paths == fresh.paths, corp
            assert walk.reachable_hexes == fresh.reachable_hexes, corp
            assert walk.hex_edges == fresh.hex_edges, corp
            assert walk.touched == fresh.touched and walk.entries == fresh.entries, corp
    assert kept > 100


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_the_new_track_check_continued_from_the_connection_check_answers_as_a_fresh_walk(
    game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers: list[bool] = []
    plain = graph.reaches_any

    def compared(
        game_map: GameMap, corp: str, targets: set[tuple[str, int]], after: graph.LayCheckWalk | None = None
    ) -> bool:
        answer = plain(game_map, corp, targets, after)
        if after is not None:
            fresh = _uncached(game_map)
            assert answer == plain(fresh, corp, targets), (corp, after.hex_id, targets)
            answers.append(answer)
        return answer

    monkeypatch.setattr(graph, "reaches_any", compared)
    _try_lays(game)
    assert len(answers) > 100 and any(answers) and not all(answers), _summary(answers)


def _try_lays(game: str, *, keep_cache: bool = False) -> None:
    """Check, on a map with no cache (``keep_cache``: on a copy of the live map, which knows what
    the lay before left), the recorded lays of ``game`` at every rotation and (every other lay)
    every upgrade of a few of the corporation's reached hexes."""
    lays = states_before(load_export(FIXTURES / f"{game}.json"), ("lay_tile",))
    for n, (action, table_game) in enumerate(lays):
        if action.get("entity_type") != "corporation":
            continue
        corp, hex_id, tile = action["entity"], action["hex"], action["tile"]
        # the recorded lay at every rotation, and (every other lay) every upgrade of a few of the
        # corporation's reached hexes
        trials: list[tuple[str, str]] = [(hex_id, tile)]
        game_map = table_game.map
        reached = _fresh(game_map, corp).reachable_hexes if n % 2 == 0 or game.startswith("1867") else set()
        for other in sorted(reached)[:4]:
            colour = game_map.state[other].spec.color
            for tile_id, (spec, _count) in game_map.supply.items():
                names = game_map.available_tiles(tile_id)
                if names and spec.color != colour and spec.color in EVERY_COLOUR.tiles:
                    trials.append((other, names[0]))
        for trial_hex, trial_tile in trials:
            for rotation in range(6):
                board = game_map.copy() if keep_cache else _uncached(game_map)
                with contextlib.suppress(MapError):  # a refused lay was checked all the same
                    board.validate_lay(corp, trial_hex, trial_tile, rotation, EVERY_COLOUR)


@pytest.mark.slow
@pytest.mark.parametrize("game", SECOND_LAYS)
def test_the_new_track_check_of_a_second_lay_answers_as_a_fresh_walk(
    game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Right after a lay, a second one's connection check goes on from the first one's walk; when
    that walk came to the second lay's hex, the new-track check knows the edge it came in by
    (``graph.LayEntry``) and answers yes when new track starts there."""
    answers: list[bool] = []
    plain = graph.reaches_any

    def compared(
        game_map: GameMap,
        corp: str,
        targets: set[tuple[str, int]],
        after: graph.LayCheckWalk | graph.LayEntry | None = None,
    ) -> bool:
        answer = plain(game_map, corp, targets, after)
        if after is not None:
            assert answer == plain(_uncached(game_map), corp, targets), (corp, after.hex_id, targets)
            if isinstance(after, graph.LayEntry):
                answers.append(answer)
        return answer

    monkeypatch.setattr(graph, "reaches_any", compared)
    _try_lays(game, keep_cache=True)
    assert len(answers) > 30 and any(answers) and not all(answers), _summary(answers)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_new_track_at_a_token_is_reached_as_the_whole_walk_reaches_it(
    game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The new-track check answers yes without walking when new track touches the corporation's
    token (``graph._touches_token``): the whole walk on that map must reach that track."""
    answers: list[bool] = []
    plain = graph._touches_token

    def compared(game_map: GameMap, tokens: list[tuple[str, int]], targets: set[tuple[str, int]]) -> bool:
        answer = plain(game_map, tokens, targets)
        corps = {c for c in game_map.corporations if game_map.tokens_of(c) == tokens}
        for corp in corps:
            walked = graph.connectivity(_uncached(game_map), corp).paths
            assert answer <= (not targets.isdisjoint(walked)), (corp, targets)
        answers.append(answer)
        return answer

    monkeypatch.setattr(graph, "_touches_token", compared)
    _try_lays(game)
    assert sum(answers) > 20 and not all(answers), _summary(answers)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_a_lay_next_to_a_token_is_connected_as_the_whole_walk_finds_it(
    game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The connection check of a lay on a hex without track answers yes without walking when a
    path at one of the corporation's tokens leads straight into one of the new tile's exits
    (``graph._faces_token``): the whole walk on that map must reach that edge of the hex."""
    answers: list[bool] = []
    plain = graph._faces_token

    def compared(
        game_map: GameMap, tokens: list[tuple[str, int]], hex_id: str, edges: frozenset[int]
    ) -> bool:
        answer = plain(game_map, tokens, hex_id, edges)
        corps = {c for c in game_map.corporations if game_map.tokens_of(c) == tokens}
        for corp in corps:
            reached = graph.connectivity(_uncached(game_map), corp).hex_edges.get(hex_id, set())
            assert answer <= (not edges.isdisjoint(reached)), (corp, hex_id, edges)
        answers.append(answer)
        return answer

    monkeypatch.setattr(graph, "_faces_token", compared)
    _try_lays(game)
    assert sum(answers) > 20 and not all(answers), _summary(answers)


def _summary(answers: list[Any]) -> str:
    return f"{len(answers)} continued checks, {sum(answers)} answered yes"


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_a_check_right_after_a_lay_continued_from_its_connection_check_answers_as_a_fresh_walk(
    game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers: list[bool] = []
    plain_node, plain_edges = graph.reaches_node, graph.reaches_edges

    def continued(game_map: GameMap, corp: str) -> bool:
        return graph.after_lay(game_map, corp, game_map.tokens_of(corp)) is not None

    def node_compared(game_map: GameMap, corp: str, accept: Callable[[tuple[str, int]], bool]) -> bool:
        check = continued(game_map, corp)
        answer = plain_node(game_map, corp, accept)
        if check:
            assert answer == plain_node(_uncached(game_map), corp, accept), corp
            answers.append(answer)
        return answer

    def edges_compared(game_map: GameMap, corp: str, hex_id: str, edges: frozenset[int]) -> bool:
        check = continued(game_map, corp)
        answer = plain_edges(game_map, corp, hex_id, edges)
        if check:
            assert answer == plain_edges(_uncached(game_map), corp, hex_id, edges), (corp, hex_id, edges)
            answers.append(answer)
        return answer

    monkeypatch.setattr(graph, "reaches_node", node_compared)
    monkeypatch.setattr(graph, "reaches_edges", edges_compared)
    for game_map in _maps(game):
        # as the token step and a second lay would ask: could this city take a token, is it
        # reached, would track on this hex's edges be connected
        for corp in game_map.corporations:
            if continued(game_map, corp):
                for n, (hex_id, st) in enumerate(sorted(game_map.state.items())[::7]):
                    for node in st.spec.city_indices:
                        graph.reaches_node(game_map, corp, (hex_id, node).__eq__)
                    graph.reaches_edges(game_map, corp, hex_id, frozenset({n % 6, (n + 2) % 6}))
    assert len(answers) > 50 and any(answers) and not all(answers), _summary(answers)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_a_chain_answer_kept_across_a_change_is_the_board_graphs(game: str) -> None:
    kept = 0
    for game_map in _maps(game):
        nodes = [t for corp in game_map.corporations for t in game_map.tokens_of(corp)]
        carried = [
            n
            for n in nodes
            if isinstance(game_map._graph_cache.get(f"has_chain:{n[0]}:{n[1]}"), graph.ChainAnswer)
        ]
        if carried and "board" not in game_map._graph_cache:
            fresh = _uncached(game_map)
            chains = graph.board_graph(fresh).chains
            assert [graph.has_chain(game_map, n) for n in carried] == [bool(chains.get(n)) for n in carried]
            kept += len(carried)
        for node in nodes:  # asked at every state, so the answers are carried to the next
            graph.has_chain(game_map, node)
    assert kept > 100


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_the_token_table_carried_across_a_change_is_found_again_alike(game: str) -> None:
    """A token placed, removed or moved by a lay on one hex updates the remembered table of every
    corporation's tokens for that hex alone (``GameMap._tokens_after``): the same nodes in the same
    order as a table found afresh from the whole map."""
    carried = 0
    for game_map in _maps(game):
        if "tokens" in game_map._graph_cache:
            carried += 1
        fresh = _uncached(game_map)
        for corp in game_map.corporations:
            assert game_map.tokens_of(corp) == fresh.tokens_of(corp), corp
    assert carried > 100


def _named(chains: list[graph.Chain], memo: graph.ChainMemo) -> list[tuple[Any, ...]]:
    """The chains with their track pieces named by what they are (an edge by the lesser of its two
    sides, an intra-hex path by its hex and index) instead of by ``memo``'s numbers."""
    names: dict[int, tuple[Any, ...]] = {}
    for side, number in memo.edge_id.ids.items():
        names[number] = min(names.get(number, ("edge", *side)), ("edge", *side))
    for path, number in memo.intra.items():
        names[number] = ("path", *path)
    return [
        (c.a, c.b, c.hexes, c.terminal_a, c.terminal_b, sorted(names[r] for r in c.resources)) for c in chains
    ]


@pytest.mark.slow
@pytest.mark.parametrize("game", [*GAMES, "1861/bank_breaks_then_final_phase"])
def test_chains_along_a_route_remembered_from_an_earlier_state_are_a_fresh_walks(
    game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run check's chains along a connection's hexes, remembered by the tiles on them
    (``graph.ChainMemo``, carried across changes and shared by copies), are those a map with no
    cache walks, in the same order and over the same track, numbered alike within one run."""
    along = graph.ChainsByHex.along
    asked: list[tuple[bool, list[tuple[Any, ...]], list[tuple[Any, ...]]]] = []

    def checked(self: graph.ChainsByHex, hexes: tuple[str, ...]) -> list[graph.Chain]:
        key = self._along_key(hexes)
        remembered = key is not None and key in self._memo.along
        found = along(self, hexes)
        fresh = graph.ChainsByHex(_uncached(self.map))
        walked = along(fresh, hexes)
        asked.append((remembered, _named(found, self._memo), _named(walked, fresh._memo)))
        return found

    monkeypatch.setattr(graph.ChainsByHex, "along", checked)
    for _ in _maps(game):
        pass
    for _remembered, found, walked in asked:
        assert found == walked
    assert sum(remembered for remembered, _, _ in asked) >= 10
    assert any(found for _, found, _ in asked)
