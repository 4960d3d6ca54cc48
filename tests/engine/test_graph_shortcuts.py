"""The replay path's shortcuts give the answers of the full computations they stand in for.

Tiles derive their rotated paths once; a lay's connection check (``reaches_edges``) stops its walk
early; ``has_chain`` walks from one node instead of building the whole board graph.  Each is
checked against the full computation on every map state of a real 1870 game."""

from __future__ import annotations

import random

import pytest

from companion.data import load_title
from companion.engine import graph
from companion.engine.map import GameMap
from companion.engine.tiles import NODE
from companion.interop.replay import iter_replay, load_export
from tests.support.paths import TESTS

FIXTURE = TESTS / "fixtures" / "18xx.games" / "1870" / "34110.json"


def test_rotated_paths_and_their_index_match_rotating_each_path() -> None:
    game_map = GameMap.for_title(load_title("1870"))
    specs = [spec for spec, _ in game_map.supply.values()] + [h.preprinted for h in game_map.hexes.values()]
    for spec in specs:
        for rotation in range(6):
            paths = spec.paths_at(rotation)
            assert paths == tuple(p.rotated(rotation) for p in spec.paths)
            assert paths is spec.paths_at(rotation)  # computed once
            for p in paths:
                assert p.edges == tuple(e for e in (p.a, p.b) if e < NODE)
                assert p.nodes == tuple(e - NODE for e in (p.a, p.b) if e >= NODE)
            touching = spec.paths_touching(rotation)
            for end in {e for p in paths for e in (p.a, p.b)}:
                assert touching[end] == tuple(i for i, p in enumerate(paths) if end in (p.a, p.b))


def _states() -> list[GameMap]:
    return [game.map.copy() for _action, game in iter_replay(load_export(FIXTURE))]


@pytest.fixture(scope="module")
def states() -> list[GameMap]:
    return _states()


def test_a_lays_connection_check_answers_as_the_whole_walk(states: list[GameMap]) -> None:
    rng = random.Random(17)
    checked = reached = 0
    for game_map in states[::3]:
        for corp in game_map.corporations:
            if not game_map.tokens_of(corp):
                continue
            game_map._graph_cache.clear()
            whole = graph.connectivity(game_map, corp)
            for hex_id in rng.sample(sorted(game_map.hexes), 8) + sorted(whole.hex_edges)[:4]:
                if hex_id not in game_map.hexes:
                    continue
                edges = frozenset(rng.sample(range(6), rng.randint(1, 3)))
                want = not edges.isdisjoint(whole.hex_edges.get(hex_id, ()))
                game_map._graph_cache.clear()
                assert graph.reaches_edges(game_map, corp, hex_id, edges) == want, (corp, hex_id, edges)
                checked += 1
                reached += want
    assert checked > 500 and 0 < reached < checked


def test_a_tokens_chain_is_found_as_the_board_graph_finds_it(states: list[GameMap]) -> None:
    found = 0
    for game_map in states[::2]:
        game_map._graph_cache.clear()
        nodes = [t for corp in game_map.corporations for t in game_map.tokens_of(corp)]
        answers = [graph.has_chain(game_map, node) for node in nodes]
        game_map._graph_cache.clear()
        chains = graph.board_graph(game_map).chains
        assert answers == [bool(chains.get(node)) for node in nodes]
        found += sum(answers)
    assert found > 0


def test_a_runs_chains_from_one_hex_are_the_board_graphs(states: list[GameMap]) -> None:
    """``ChainsByHex`` (checking a run before the board graph is built) finds the same chains as the
    board graph, in its order, with its track pieces numbered another way but shared alike."""
    compared = 0
    for game_map in states[::4]:
        game_map._graph_cache.clear()
        walked = graph.ChainsByHex(game_map)
        assert walked.graph is None
        hexes = sorted(game_map.state)
        mine = {h: walked.starting_in(h) for h in hexes}
        whole = graph.board_graph(game_map)
        assert graph.ChainsByHex(game_map).graph is whole  # read from the graph once it is built
        for h in hexes:
            theirs = [c for node in whole.nodes if node[0] == h for c in whole.chains.get(node, [])]
            assert [(c.a, c.b, c.hexes, c.terminal_a, c.terminal_b) for c in mine[h]] == [
                (c.a, c.b, c.hexes, c.terminal_a, c.terminal_b) for c in theirs
            ], h
            assert [len(c.resources) for c in mine[h]] == [len(c.resources) for c in theirs], h
            compared += len(theirs)
        # a piece of track two chains share in one numbering they share in the other
        theirs_all = [
            c for h in hexes for node in whole.nodes if node[0] == h for c in whole.chains.get(node, [])
        ]
        assert _shared_pairs([c for h in hexes for c in mine[h]]) == _shared_pairs(theirs_all)
    assert compared > 100


def _shared_pairs(chains: list[graph.Chain]) -> set[tuple[int, int]]:
    """Which chains (by position) share a piece of track."""
    holders: dict[int, list[int]] = {}
    for i, c in enumerate(chains):
        for r in c.resources:
            holders.setdefault(r, []).append(i)
    return {(i, j) for ids in holders.values() for i in ids for j in ids if i < j}


def _tokens_by_scan(game_map: GameMap, corp: str) -> list[tuple[str, int]]:
    """A corporation's tokens found by looking at every hex for that one corporation."""
    out = []
    for hex_id, st in game_map.state.items():
        for node, slots in st.tokens.items():
            if corp in slots or corp in st.extra_tokens.get(node, ()):
                out.append((hex_id, node))
        for node, extra in st.extra_tokens.items():
            if corp in extra and corp not in (st.tokens.get(node) or ()) and (hex_id, node) not in out:
                out.append((hex_id, node))
    return out


def test_tokens_and_token_spots_answer_as_the_whole_search() -> None:
    """Every corporation's tokens, found for all of them in one pass, are those a search for each
    finds, in its order; whether a corporation has anywhere to place a token (a walk that stops at
    the first spot) is whether ``token_spots`` lists any, on every state of a real 1870 game."""
    checked = spots = 0
    for _action, game in iter_replay(load_export(FIXTURE)):
        game_map = game.map
        for corp in game.corporations:
            assert game_map.tokens_of(corp.sym) == _tokens_by_scan(game_map, corp.sym), corp.sym
            if not game_map.tokens_of(corp.sym):
                continue
            game_map._graph_cache.clear()
            has = game.has_token_spot(corp)
            game_map._graph_cache.clear()
            assert has == bool(game.token_spots(corp)), corp.sym
            assert game.has_token_spot(corp) == has  # from the cached whole walk
            checked += 1
            spots += has
    # extra (destination) tokens beside the slots are among those searched
    game_map = game.map
    hex_id = next(h for h, st in game_map.state.items() if st.tokens)
    node = next(iter(game_map.state[hex_id].tokens))
    game_map.state[hex_id].extra_tokens.setdefault(node, []).append("ZZ")
    game_map.state[hex_id].extra_tokens[99] = ["ZZ", "ZZ"]
    game_map._graph_cache.clear()
    assert game_map.tokens_of("ZZ") == _tokens_by_scan(game_map, "ZZ") == [(hex_id, node), (hex_id, 99)]
    assert checked > 500 and 0 < spots < checked


def test_the_chains_along_a_routes_hexes_are_those_of_the_whole_search(states: list[GameMap]) -> None:
    compared = 0
    for game_map in states[::2]:
        game_map._graph_cache.clear()
        every = graph.ChainsByHex(game_map)
        wanted = {c.hexes for h in game_map.state for c in every.starting_in(h)}
        wanted |= {hexes[:-1] for hexes in wanted if len(hexes) > 2}  # track that ends short of a stop
        for hexes in sorted(wanted):
            along = graph.ChainsByHex(game_map)
            chains = along.along(hexes)  # walked first; the whole search then numbers the track alike
            assert chains == [c for c in along.starting_in(hexes[0]) if c.hexes == hexes], hexes
            compared += bool(chains)
    assert compared > 1000
