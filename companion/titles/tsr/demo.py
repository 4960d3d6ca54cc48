"""``companion demo`` for this title: a short game night in the ``companion table`` script grammar,
played on the simulated reader by the board demo (:class:`companion.ui.demo.titles.BoardDemoScript`)."""

from __future__ import annotations

#: ``companion demo --title TSR``: a short game night in the ``companion table`` script grammar
#: (taps of the certificates and player cards on the simulated reader, touch buttons, confirms),
#: in scenes; after each scene the demo takes a screenshot of that screen (``(script, shot, screen)``)
DEMO_PLAYERS = ("Ann", "Bob", "Cy")
DEMO_SCENES: tuple[tuple[str, str, str], ...] = (
    ("tap 0 @red_1\nprice 20", "tsr-auction-bid", "board"),
    (
        "confirm\ntap 0 @player-2\nconfirm\ntap 0 @player-3\nconfirm\n"
        "tap 0 @red_1\nchoose Moscow–St. Petersburg\nconfirm\ntouch Stock value $8\nconfirm",
        "tsr-red-started",
        "board",
    ),
    (
        # blue: Ann passes, Bob bids $12, Cy passes; green: nobody bids; yellow: Cy wins for $10
        "tap 0 @player-1\nconfirm\ntap 0 @blue_1\nprice 12\nconfirm\ntap 0 @player-3\nconfirm\n"
        "tap 0 @blue_1\nchoose Bryansk–Moscow\nconfirm\ntouch Stock value $8\nconfirm\n"
        "tap 0 @player-2\nconfirm\ntap 0 @player-3\nconfirm\ntap 0 @player-1\nconfirm\n"
        "tap 0 @player-2\nconfirm\ntap 0 @yellow_1\nprice 10\nconfirm\ntap 0 @player-1\nconfirm\n"
        "tap 0 @yellow_1\nchoose Moscow–Yaroslavl\nconfirm\ntouch Stock value $8\nconfirm\n"
        # Cy's turn: a red and a blue share in one turn, $4 more to red
        "tap 0 @red_2\ntap 0 @blue_2",
        "tsr-two-shares",
        "board",
    ),
    # Ann builds for red on the drawn map: Moscow, then Nizhny Novgorod
    ("confirm\nmap moscow nizhnynovgorod", "tsr-build-toast", "board"),
    (
        # Ann's build, then four passes: the timing token reaches the end, dividends are paid
        "confirm\ntap 0 @player-2\nconfirm\ntap 0 @player-3\nconfirm\ntap 0 @player-1\nconfirm\n"
        "tap 0 @player-2\nconfirm",
        "tsr-dividends",
        "board",
    ),
    ("", "tsr-camera", "camera"),
    ("", "tsr-log", "log"),
)
