"""View models: exactly what each touchscreen screen shows, computed from a :class:`Game`.

Plain Python (no Kivy), frozen dataclasses, tested without a window.  The screens in
:mod:`companion.ui.screens` only lay these out; every number and every sentence on the
screen comes from here.

* :func:`table_view` — bank cash, players (cash, certificates, count against the limit,
  priority deal), corporations, the acting entity;
* :func:`market_view` — the stock market grid: price, zone colour, par flag, tokens;
* :func:`operating_view` — operating order, the operating corporation's treasury, trains,
  tokens, suggested routes (from :func:`suggest_routes`) and a payout/withhold preview;
* :func:`log_view` — the game log in words ("SLSF pays $40 ($4 per share)");
* :func:`setup_view` — titles, player counts and optional rules for a new game;
* :func:`action_choices` — one button per concrete legal action of the acting entity,
  so every common action can be done by touch alone (the table service words and previews
  what a button proposes, as it does for a tap).
"""

from __future__ import annotations

from companion.table.g18xx import run_routes_action
from companion.table.titles import ActionChoice
from companion.ui.viewmodels.actions import Proposal, action_choices, choices_on_hex
from companion.ui.viewmodels.board import (
    BoardView,
    board_state,
    board_view,
    network_view,
    own_table,
)
from companion.ui.viewmodels.common import ZONE_COLORS, currency, entity_label, money, round_label
from companion.ui.viewmodels.history import Series, Story, story
from companion.ui.viewmodels.log import LogEntry, LogView, company_label, log_marks, log_view
from companion.ui.viewmodels.market import MarketCell, MarketView, market_view
from companion.ui.viewmodels.operating import (
    DividendOption,
    OperatingView,
    OrderEntry,
    dividend_options,
    operating_area,
    operating_view,
    preview_dividends_after_run,
)
from companion.ui.viewmodels.routes import (
    RouteLine,
    RoutesView,
    location_names,
    routes_run,
    routes_view,
    suggest_routes,
)
from companion.ui.viewmodels.setup import SetupView, TitleChoice, is_placeholder_name, known_names, setup_view
from companion.ui.viewmodels.table import (
    AuctionRow,
    CorporationRow,
    PlayerRow,
    SheetRow,
    Spreadsheet,
    TableView,
    auction_rows,
    last_revenues,
    spreadsheet,
    table_view,
)

__all__ = [
    "routes_view",
    "preview_dividends_after_run",
    "network_view",
    "dividend_options",
    "currency",
    "ActionChoice",
    "AuctionRow",
    "BoardView",
    "CorporationRow",
    "DividendOption",
    "LogEntry",
    "LogView",
    "MarketCell",
    "MarketView",
    "OperatingView",
    "OrderEntry",
    "PlayerRow",
    "Proposal",
    "RouteLine",
    "RoutesView",
    "Series",
    "SetupView",
    "Story",
    "SheetRow",
    "Spreadsheet",
    "TableView",
    "TitleChoice",
    "ZONE_COLORS",
    "action_choices",
    "auction_rows",
    "board_state",
    "board_view",
    "choices_on_hex",
    "entity_label",
    "last_revenues",
    "company_label",
    "log_marks",
    "location_names",
    "is_placeholder_name",
    "known_names",
    "log_view",
    "market_view",
    "money",
    "operating_area",
    "operating_view",
    "round_label",
    "routes_run",
    "run_routes_action",
    "setup_view",
    "own_table",
    "spreadsheet",
    "story",
    "suggest_routes",
    "table_view",
]
