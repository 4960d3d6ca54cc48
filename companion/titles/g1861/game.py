"""1861 as 18xx.games plays it: 1867's rules with the Russian map and these differences.

* The grid market is the default (the column market is the ``column_market`` option).
* Minors have fixed home cities (placed when they start); majors choose an unconnected city.
* There are no neutral tokens and no train export.
* The national railway (RSR) operates last in every operating round of phases 4 to 7, run by
  the player holding the priority deal: it runs its trains (entered by that player), withholds
  everything, pays interest (it may take any number of loans), and buys the cheapest train if
  it has none and then every train it can afford.  It places its home token in St Petersburg
  the first time it operates.
* A nationalised corporation's trains, companies and cash go to the RSR; its share price
  moves left once per loan (not twice).
* If the first 8 train comes in the first OR of a set, that set (extended to three ORs) is the
  last; otherwise the next set is, also of three ORs.
"""

from __future__ import annotations

from companion.engine.entities import Corporation
from companion.engine.game import Game
from companion.engine.market import StockMarket
from companion.engine.rounds import Round
from companion.titles.g1861 import steps as s1861
from companion.titles.g1867.game import Game1867
from companion.titles.g1867.market import Market1867


class Game1861(Game1867):
    title = "1861"
    NUM_LOANS = 172
    GREEN_CORPORATIONS = ("MB", "Y", "V", "TR", "SV", "E")
    BONUS_CAPITALS = ("H8",)
    BONUS_REVENUE = "Q3"
    NATIONAL_RESERVATIONS = ("E1", "H8")
    NATIONAL_HOME = "E1"
    NATIONAL_START_PHASE = 4
    NATIONAL_END_PHASE = 8

    def make_market(self) -> StockMarket:
        if "column_market" in self.optional_rules:
            return Market1867(self.data["constants"]["COLUMN_MARKET"])
        return Market1867(self.data["market"])

    def add_neutral_tokens(self) -> None:
        self.neutral_slots = []

    def maximum_loans(self, corp: Corporation) -> int:
        return 100 if corp is self.national else super().maximum_loans(corp)

    def operating_order(self) -> list[Corporation]:
        return [*super().operating_order(), self.national]

    def national_operates(self) -> bool:
        return self.NATIONAL_START_PHASE <= int(self.phase.name) < self.NATIONAL_END_PHASE

    # -- rounds --------------------------------------------------------------------------------------
    SHARE_STEP = s1861.BuySellParShares1861
    OPERATING_ROUND = s1861.Operating1861
    BUY_COMPANY_STEP = s1861.BuyCompany1861
    PRELOAN_BUY_COMPANY_STEP = s1861.BuyCompanyPreloan1861
    TRACK_STEP = s1861.Track1861
    TOKEN_STEP = s1861.Token1861
    DIVIDEND_STEP = s1861.Dividend1861
    BUY_TRAIN_STEP = s1861.BuyTrain1861

    def operating_round(self, round_num: int) -> Round:
        self.national.owner = self.priority_deal()
        self.log.append(
            f"{self.national.name} is run by {self.national.owner.name}, who has the priority deal"
        )
        return super().operating_round(round_num)

    def or_round_finished(self) -> None:
        """1861 exports no trains."""

    def set_final_turn(self, timing: str) -> None:
        if timing != "one_more_full_or_set":
            return
        if getattr(self.round, "round_num", 1) != 1:
            super().set_final_turn(timing)
            return
        # the 8 train came in the first OR of a set: this set, made three ORs, is the last
        self.operating_rounds = self.final_operating_rounds = 3
        self.final_turn = self.turn

    # -- home tokens -------------------------------------------------------------------------------------
    def need_home_token(self, corp: Corporation) -> None:
        if any(t.used for t in corp.tokens):
            return
        if corp.coordinates:
            Game.place_home_token(self, corp)  # a fixed home: placed at once, as in most 18xx
            return
        super().need_home_token(corp)

    def home_token_locations(self, corp: Corporation) -> list[str]:
        """1861: a major starts only in a city no track connects yet."""
        locations = super().home_token_locations(corp)
        return [h for h in locations if not self.connected_hex(h)]

    def place_rsr_home_token(self) -> None:
        """The first time the RSR operates its token goes to its St Petersburg city (the second)."""
        if self.NATIONAL_HOME in self.national_reservations:
            self.place_national_token(self.NATIONAL_HOME, -1)

    # -- nationalisation -----------------------------------------------------------------------------------
    def loan_moves_on_nationalization(self) -> int:
        return 1

    def nationalization_transfer_assets(self, corp: Corporation) -> None:
        self.hand_over_assets(corp, self.national)

    def train_limit(self, corp: Corporation) -> int:
        if corp is self.national:
            return 99
        return super().train_limit(corp)
