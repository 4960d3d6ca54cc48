"""What a map title adds to the shared 18xx screens (Table, Operating), through hooks.

The map titles share the Table, Shares, Market and Operating screens (``companion/ui/viewmodels/``,
``companion/ui/screens/``).  A title whose rules need more on them has a ``screens.py`` in its own
folder (``companion/titles/<package>/screens.py``), with any of these hooks (each optional):

``operating_panels(game, corp) -> tuple[Panel, ...]``
    Tables under the operating corporation's treasury on the Operating screen (1833NE: its
    treasury shares and the issue and redemption prices, its trains with the obsolete ones
    marked, the ferries, the connection bonuses of this phase, what each holder gets from a full
    or a half payout).
``table_panels(game) -> tuple[Panel, ...]``
    Tables on the Table screen above the players (1833NE's takeover offers in a takeover round).
``train_text(game, train) -> str``
    How a train is written on the screens: a corporation's ("2+1 (obsolete)") or one the bank
    sells ("3/5 $180 or 2+2 $140"), where the title's trains say more than their name and price.

A title without such a module is shown as the shared screens show it.  Nothing here decides a
rule: every number comes from the engine (its queries and previews), and every choice on the
screen is one of ``game.legal_actions()``.  (A title without a map answers for itself through
``companion/table/titles`` instead.)
"""

from __future__ import annotations

from functools import cache
from types import ModuleType
from typing import Any

from companion.table.titles import Panel
from companion.titles import title_module

__all__ = ["operating_panels", "screen_hooks", "table_panels", "train_text"]


@cache
def screen_hooks(title: str) -> ModuleType | None:
    """The screen hooks module of ``title`` (see the module docstring), or None; looked up once."""
    return title_module(title, "screens")


def _hook(game: Any, name: str) -> Any:
    module = screen_hooks(str(game.title))
    return getattr(module, name, None) if module is not None else None


def operating_panels(game: Any, corp: Any) -> tuple[Panel, ...]:
    """The title's tables for the operating corporation ``corp`` (none by default)."""
    hook = _hook(game, "operating_panels")
    return tuple(hook(game, corp)) if hook is not None else ()


def table_panels(game: Any) -> tuple[Panel, ...]:
    """The title's tables for the Table screen now (none by default)."""
    hook = _hook(game, "table_panels")
    return tuple(hook(game)) if hook is not None else ()


def train_text(game: Any, train: Any, default: str) -> str:
    """How ``train`` is written on the screens (``default`` unless the title says more)."""
    hook = _hook(game, "train_text")
    return str(hook(game, train)) if hook is not None else default
