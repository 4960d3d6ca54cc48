"""The suggested routes in words, and the routes run this turn."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from companion.engine import Game, GameError
from companion.engine.entities import Corporation
from companion.engine.route_optimizer import RouteResult, TrainRoute
from companion.ui.viewmodels.common import money

# --------------------------------------------------------------------------------------------- routes


@dataclass(frozen=True)
class RouteLine:
    train: str
    revenue: int
    stops: tuple[str, ...]
    """Hex ids of the stops, in route order."""
    names: tuple[str, ...] = ()
    """The stops' city names ("" for a stop without one), as printed on the map."""
    currency: str = "${}"

    @property
    def text(self) -> str:
        """``3-train: Dallas (H13) - Springfield, MO (E12)  $60``: by city name, hex beside it."""
        names = self.names or ("",) * len(self.stops)
        stops = [
            f"{name} ({hex_id})" if name else hex_id for hex_id, name in zip(self.stops, names, strict=True)
        ]
        return (
            f"{self.train.rsplit('-', 1)[0]}-train: {' - '.join(stops)}  {money(self.revenue, self.currency)}"
        )


def location_names(game: Game) -> dict[str, str]:
    """The map's city and town names by hex (``H13``: ``Dallas``)."""
    return dict(game.data.get("map", {}).get("location_names", {}))


@dataclass(frozen=True)
class RoutesView:
    status: str
    """``none`` (no trains / nothing to run), ``computing``, ``done``, ``error``."""
    lines: tuple[RouteLine, ...] = ()
    total: int = 0
    optimal: bool = True
    progress: float = 0.0
    message: str = ""
    currency: str = "${}"

    @property
    def computing(self) -> bool:
        return self.status == "computing"

    @property
    def summary(self) -> str:
        if self.status == "computing":
            return f"Finding the best routes… {int(self.progress * 100)}%"
        if self.status == "done":
            best = "best" if self.optimal else "best found"
            return f"Suggested routes ({best}): {money(self.total, self.currency)}"
        return self.message


def suggest_routes(
    game: Game,
    corp: Corporation,
    *,
    progress: Callable[[float], None] | None = None,
    cancel: Callable[[], bool] | None = None,
    time_limit: float | None = None,
) -> RouteResult:
    """The optimiser's best routes for ``corp``'s trains now (call it off the UI thread)."""
    game_map = getattr(game, "map", None)
    if game_map is None:
        raise GameError(f"{game.title} has no map to run routes on")
    return game.suggest_routes(corp, progress=progress, cancel=cancel, time_limit=time_limit)


def routes_view(
    result: RouteResult | None,
    *,
    computing: bool = False,
    progress: float = 0.0,
    names: dict[str, str] | None = None,
    currency: str = "${}",
) -> RoutesView:
    """The suggested routes in words; ``names`` (:func:`location_names`) names the stops."""
    if computing:
        return RoutesView("computing", progress=progress)
    if result is None:
        return RoutesView("none", message="")
    if result.cancelled and not result.routes:
        return RoutesView("error", message="Route search was stopped before it found a route")
    if not result.routes:
        return RoutesView("none", message="No route earns money")
    names = names or {}
    lines = tuple(
        RouteLine(
            r.train,
            r.revenue,
            tuple(h for h, _ in r.stops),
            tuple(names.get(h, "") for h, _ in r.stops),
            currency,
        )
        for r in result.routes
    )
    return RoutesView("done", lines, result.total, result.optimal, 1.0, currency=currency)


def routes_run(game: Game) -> list[TrainRoute]:
    """The routes the operating corporation has run this turn (from its ``run_routes``), for drawing."""
    out = []
    for r in getattr(game.round, "routes", None) or []:
        try:
            stops = tuple((h, int(n)) for h, _, n in (str(x).rpartition("-") for x in r.get("nodes") or []))
        except ValueError:
            continue
        connections = tuple(tuple(str(h) for h in c) for c in r.get("connections") or [])
        out.append(TrainRoute(str(r.get("train", "")), stops, (), int(r.get("revenue", 0)), connections, ()))
    return out
