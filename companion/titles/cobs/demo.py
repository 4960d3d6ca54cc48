"""``companion demo`` for this title: a short game night in the ``companion table`` script grammar,
played on the simulated reader by the board demo (:class:`companion.ui.demo.titles.BoardDemoScript`)."""

from __future__ import annotations

#: ``companion demo --title CoBS``: a short game night in the ``companion table`` script grammar
#: (the board entered by taps on the demand tiles and capital assets and touches for the resources
#: drawn, charters and certificates tapped, partners placed and factories run by touch, every
#: proposal confirmed), in scenes; after each scene the demo takes a screenshot of that screen
#: (``(script, shot, screen)``)
DEMO_PLAYERS = ("Ann", "Bob", "Cy")
#: the board at the start, entered as drawn: the demand tiles (top row first, the dry goods $50
#: tile takes one good), the capital assets (the four starting ones, then Brilliant Marketing),
#: three resources on each space of the supply chain ($10: wood, wood, steel); a tile that is the
#: only one the deck can give then (demand 1 and 12, the fourth starting asset and Brilliant
#: Marketing) is entered automatically, with no tap
_DEMO_TILES = (
    *(f"demand{n}" for n in (2, 3, 4, 5, 7, 8, 9, 10, 11, 13)),
    *("union_stockyards", "michigan_lumber", "pennsylvania_coal"),
)
_DEMO_RESOURCES = ("wood", "wood", "steel", "coal", "wood", "livestock", "steel", "coal", "livestock")
_DEMO_BOARD = "".join(
    [f"tap 0 @{tile}\nconfirm\n" for tile in _DEMO_TILES]
    + [f"touch {r}\nconfirm\n" for r in (*_DEMO_RESOURCES, "coal", "steel", "wood")]
)
DEMO_SCENES: tuple[tuple[str, str, str], ...] = (
    # the board entered; Ann taps Brunswick's charter and picks $40: the toast says what it costs
    (_DEMO_BOARD + "tap 0 @brunswick\nchoose Brunswick $40", "cobs-start-toast", "board"),
    (
        # Bob starts Swift by its director's certificate, Cy Libby by its charter; the first
        # stock phase: Ann buys a Swift certificate, Bob a Brunswick one, all pass; the buildings
        "confirm\ntap 0 @swift_0\nchoose Swift $40\nconfirm\ntap 0 @libby\nchoose Libby $35\nconfirm\n"
        "tap 0 @swift_2\nconfirm\ntap 0 @brunswick_2\nconfirm\n"
        "tap 0 @player-3\nconfirm\ntap 0 @player-1\nconfirm\ntap 0 @player-2\nconfirm\n"
        "tap 0 @building1\nconfirm\ntap 0 @building10\nconfirm\ntap 0 @building2\nconfirm",
        "cobs-action-phase",
        "board",
    ),
    ("touch Job market: Brunswick, factory 1", "cobs-partner-toast", "board"),
    (
        # partners placed (Bob's building 2 gives Brunswick a salesperson); Swift and Libby have
        # no workers and withhold; Brunswick buys wood, wood and steel, runs factory 1 and sells
        # its good to the dry goods demand tile of the $50 row, filling it
        "confirm\ntouch Fundraising $40: Swift\nconfirm\ntouch Advertising: Libby\nconfirm\n"
        "touch Bob's building 2: Brunswick\nconfirm\ntap 0 @player-2\nconfirm\ntap 0 @player-3\nconfirm\n"
        "touch Withhold (nothing sold)\nconfirm\ntouch Withhold (nothing sold)\nconfirm\n"
        "touch wood $10\nconfirm\ntouch wood $10\nconfirm\ntouch steel $10\nconfirm\n"
        "touch Factory 1: 1 good\nconfirm\ntouch Dry goods $50 row: $90\nconfirm",
        "cobs-operating",
        "board",
    ),
    ("touch Pay out", "cobs-payout-toast", "board"),
    ("confirm", "cobs-paid", "board"),
    ("", "cobs-camera", "camera"),
    ("", "cobs-log", "log"),
)
