"""1861's offboards end a route: the checker and the optimiser agree that no route runs on
through the Caucasus (J20), whose track is not tapered, as the 18xx.games engine checks a route
("Route is not connected": an offboard blocks)."""

from __future__ import annotations

import pytest

from companion.data import load_title
from companion.engine.graph import board_graph
from companion.engine.map import SimplePhase
from companion.engine.route_optimizer import best_routes, enumerate_routes
from companion.engine.routes import check_route, trains_from_names
from companion.titles.g1867.map import Map1867
from tests.support.routes import exhaustive

GREEN = SimplePhase("4", ("yellow", "green"))


def rostov_to_the_caucasus() -> Map1867:
    """Rostov (I19, V's home) with track on to the Caucasus (J20), and J18 on the Caucasus's
    other side: Rostov–J20–J18 would pass through the offboard."""
    title = load_title("1861")
    gm = Map1867.for_title(title)
    gm.lay_tile("V", "I19", "57-0", 2, GREEN, check=False)  # exits 2 and 5 (5 toward J20)
    gm.lay_tile("V", "J18", "4-0", 0, GREEN, check=False)  # exits 0 (toward J20) and 3
    gm.place_home_token("V")
    return gm


def test_a_route_does_not_run_on_through_an_offboard() -> None:
    gm = rostov_to_the_caucasus()
    graph = board_graph(gm)
    into = next(c for c in graph.chains[("I19", 0)] if c.b == ("J20", 0))
    beyond = next(c for c in graph.chains[("J20", 0)] if c.b[0] == "J18")
    assert not (into.terminal_b or beyond.terminal_a)  # plain track, not tapered
    train = trains_from_names(load_title("1861"), ["8-0"])[0]
    with pytest.raises(ValueError, match="cannot pass through the offboard J20"):
        check_route(gm, "V", train, [("I19", 0), ("J20", 0), beyond.b], [into, beyond], GREEN)
    # the route that ends there is legal
    assert check_route(gm, "V", train, [("I19", 0), ("J20", 0)], [into], GREEN).revenue > 0


def test_the_optimiser_agrees_with_the_checker_at_the_caucasus() -> None:
    gm = rostov_to_the_caucasus()
    trains = trains_from_names(load_title("1861"), ["8-0", "2-0"])
    candidates = enumerate_routes(gm, "V", 8, GREEN)
    assert candidates and all(("J20", 0) not in c.stops[1:-1] for c in candidates)
    result = best_routes(gm, "V", trains, GREEN)
    assert result.optimal and result.total > 0
    assert result.total == exhaustive(gm, "V", trains, GREEN)  # every route check_route accepts
