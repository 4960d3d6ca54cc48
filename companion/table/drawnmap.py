"""A title's drawn network map at the table (Trans-Siberian Railroad's cities and links): a touch on
a place, then on another, proposes the legal builds of the line joining them; while a one-line
build is proposed, the lines that may follow it as its second line are marked."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from companion.engine import GameError
from companion.table.proposal import Outcome, Result
from companion.table.titles import Network

if TYPE_CHECKING:
    from companion.table.service import TableService


def drawn_network(table: TableService) -> Network | None:
    """The drawn map as the screen shows it: :meth:`network`, and while one link's build is
    proposed, that link marked (``proposed``) and the second links of the legal two-link builds
    going on from where it ended (``following``: touching a far end proposes that build)."""
    with table._lock:
        net = table.network()
        p = table._proposal
        if net is None or p is None or len(first := table.title.building(p.action)) != 1:
            return net
        second = table.title.second_links(table.game, net, p.action)
        following = tuple(dict.fromkeys(table.title.building(la.action)[1] for la in second))
        return replace(net, proposed=first, following=following)


def line_start(table: TableService, place: str) -> Result | None:
    """A first place touched on the drawn map: None when some legal build starts there (the map
    waits for the other end); otherwise refused, saying so (nothing changes)."""
    with table._lock:
        net = table.network()
        if net is None:
            return table._refuse(f"{table.game.title} has no drawn map")
        try:
            name = net.place(place).name
        except StopIteration:
            return table._refuse(f"there is no place {place!r} on the map")
        lit = net.lit()
        if any(place in ln.places for ln in lit):
            return None
        names = [ln.name for ln in lit]
        more = f" and {len(names) - 4} more" if len(names) > 4 else ""
        where = (
            f"{table.who_acts()} may build {', '.join(names[:4])}{more}"
            if names
            else "no link can be built now"
        )
        return table._refuse(f"no link from {name} can be built now: {where}")


def extend_line(table: TableService, place: str) -> Outcome | None:
    """A place touched on the drawn map while one link's build is proposed: the legal two-link
    builds (the second link from where the first ended) of that railroad whose second link
    reaches ``place``, proposed; None when there is no such build (the touch starts afresh)."""
    with table._lock:
        p = table._proposal
        net = table.network()
        if p is None or net is None or len(table.title.building(p.action)) != 1:
            return None
        legal = table.title.second_links(table.game, net, p.action, place)
        if not legal:
            return None
        table._set_proposal(None)
        try:
            return table.offer(table.title_proposal(legal, ()))
        except GameError as exc:
            return table._refuse(str(exc))


def propose_line(table: TableService, first: str, second: str) -> Outcome:
    """Two places touched on the drawn map: the legal builds of the line joining them, proposed
    (several, such as two railroads or two ways of jumping: options); refused with the reason
    when no legal build joins them."""
    with table._lock:
        net = table.network()
        if net is None:
            return table._refuse(f"{table.game.title} has no drawn map")
        try:
            a, b = net.place(first), net.place(second)
        except StopIteration:
            return table._refuse(f"there is no place {first!r} or {second!r} on the map")
        lines = net.joining(a.id, b.id)
        actions = [x for ln in lines for x in ln.actions]
        if not actions:
            ends = sorted(
                {net.place(p).name for ln in net.lit() if a.id in ln.places for p in ln.places} - {a.name}
            )
            why = (
                f"no link joins {a.name} and {b.name}"
                if not lines
                else f"{lines[0].name} cannot be built now"
            )
            more = (
                f"; from {a.name} {table.who_acts()} may build to {', '.join(ends)}"
                if ends
                else f"; nothing can be built from {a.name} now"
            )
            return table._refuse(why + more)
        legal = [la for la in table.game.legal_actions() if la.action in actions]
        table._set_proposal(None)
        try:
            return table.offer(table.title_proposal(legal, ()))
        except GameError as exc:
            return table._refuse(str(exc))
