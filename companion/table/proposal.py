"""What the table proposes and what comes of it: the types every input path shares.

A tap, a touch, a typed command and a tile the camera sees all end in a :class:`Proposal` (an
action the engine accepted in a preview, worded for the players) or a :class:`Result` (what was
done, or why nothing was).  The table service (``companion/table/service.py``) makes and
confirms them; each title's table module (``companion/table/titles``) words them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.engine.core import Preview
from companion.hardware.panel import PanelButton

__all__ = [
    "REDO",
    "UNDO",
    "UNDO_TO",
    "Action",
    "Button",
    "Option",
    "Outcome",
    "Proposal",
    "Result",
    "paid",
    "plural",
]

Action = dict[str, Any]

#: the kinds of the proposals that take actions back or bring them back (no engine action: confirm
#: stores an undo or redo record and brings the game there)
UNDO, UNDO_TO, REDO = "undo", "undo_to", "redo"


#: the three panel buttons: confirm, cancel and undo (the panel's own, whether pressed on the panel or
#: on the screen)
Button = PanelButton


@dataclass(frozen=True)
class Option:
    """One choice of a proposal (a par price): its label, action and preview."""

    label: str
    action: Action
    preview: Preview
    text: str


@dataclass(frozen=True)
class Proposal:
    """A proposed action, checked by the engine, waiting for confirm or cancel.

    ``options``: the choices (par prices), ``selected`` the one ``action``
    and ``preview`` stand for.  ``price_range``: the lowest and highest price
    the UI may set with :meth:`TableService.set_price` (bids, trains bought
    from another corporation, private companies).  ``cards``: the tapped
    cards it is made of (a sale gathers several).
    """

    kind: str
    text: str
    action: Action
    preview: Preview
    actor: str
    options: tuple[Option, ...] = ()
    selected: int = 0
    price_range: tuple[int, int] | None = None
    price_step: int = 0
    cards: tuple[str, ...] = ()
    hint: str = "confirm to do it, cancel to drop it"
    option_hint: str = "option {n} of {count}; tap again for the next, confirm to accept"
    """The hint while an option is selected: ``{n}`` its number, ``{count}`` how many, ``{labels}``
    their labels."""
    rewind: bool = False
    """An undo, an undo back to a point or a redo (not an engine action: confirm rebuilds the game)."""

    @property
    def details(self) -> list[str]:
        """The engine's log lines for the action (what it would write)."""
        return list(self.preview.log)


@dataclass(frozen=True)
class Result:
    """What happened to a tap, button press or confirmation.

    ``ok`` False: refused, ``text`` says why, nothing changed.  ``applied``:
    an action was stored (``seq`` in the store) and applied to the engine.
    """

    ok: bool
    text: str
    action: Action | None = None
    seq: int | None = None
    applied: bool = False
    log: tuple[str, ...] = field(default_factory=tuple)


Outcome = Proposal | Result


def paid(preview: Preview, who: Any) -> int:
    """What ``who`` pays in the preview (negative: receives)."""
    for move in preview.money:
        if move.who == who:
            return move.before - move.after
    return 0


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def bare_amount(label: str) -> str:
    """A price label without its currency or separators (``"$1,000"``, ``"1000₽"`` → ``"1000"``)."""
    return "".join(ch for ch in label if ch.isdigit()) or label.strip()
