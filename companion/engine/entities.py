"""The things a game is made of: bank, players, corporations, certificates, companies, trains.

Plain mutable dataclasses compared by identity (two players with the same cash
are still two players).  Money is integer dollars.  Only the engine mutates
them, and only while it applies an action.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from companion.engine.errors import GameError

if TYPE_CHECKING:
    from companion.engine.market import Cell


class Holder:
    """Anything that holds cash and certificates (bank, share pool, player, corporation)."""

    name: str
    cash: int
    shares: list[Share]

    def spend(self, amount: int, receiver: Holder, *, allow_negative: bool = False) -> None:
        """Pay ``amount`` to ``receiver``; nobody but the bank may go below zero."""
        if amount < 0:
            raise GameError(f"cannot pay a negative amount ({amount})")
        if amount > self.cash and not allow_negative and not isinstance(self, Bank):
            raise GameError(f"{self.name} has ${self.cash} and cannot pay ${amount}")
        if isinstance(self, Bank) and self.cash - amount < 0:
            self.broken = True
        self.cash -= amount
        receiver.cash += amount

    def shares_of(self, corporation: Corporation) -> list[Share]:
        return [s for s in self.shares if s.corporation is corporation]

    def percent_of(self, corporation: Corporation) -> int:
        return sum(s.percent for s in self.shares if s.corporation is corporation)

    def num_shares_of(self, corporation: Corporation) -> int:
        return self.percent_of(corporation) // corporation.share_percent


@dataclass(eq=False)
class Bank(Holder):
    cash: int
    name: str = "The Bank"
    broken: bool = False
    shares: list[Share] = field(default_factory=list)


@dataclass(eq=False)
class SharePool(Holder):
    """The open market: certificates sold by players wait here."""

    name: str = "the market"
    cash: int = 0
    shares: list[Share] = field(default_factory=list)


@dataclass(eq=False)
class Share:
    """One certificate: ``percent`` of ``corporation`` (the president's is the double one)."""

    corporation: Corporation
    index: int
    percent: int
    president: bool
    owner: Holder
    buyable: bool = True

    @property
    def id(self) -> str:
        return f"{self.corporation.sym}_{self.index}"

    @property
    def price(self) -> int:
        """What this certificate costs now: the par price in the IPO/treasury, else the share price."""
        corp = self.corporation
        cell = corp.par_price if self.owner is corp and not corp.always_market_price else corp.share_price
        return 0 if cell is None else cell.price * self.percent // corp.share_percent


@dataclass(eq=False)
class Player(Holder):
    id: Any
    name: str
    cash: int = 0
    shares: list[Share] = field(default_factory=list)
    companies: list[Company] = field(default_factory=list)
    bankrupt: bool = False
    passed: bool = False

    def __repr__(self) -> str:
        return f"<Player {self.name}>"


@dataclass(eq=False)
class Company:
    """A private company: bought by players, income every operating round."""

    sym: str
    name: str
    value: int
    revenue: int
    abilities: list[dict[str, Any]]
    owner: Player | Corporation | None = None
    closed: bool = False
    discount: int = 0
    max_price: int | None = None

    @property
    def min_bid(self) -> int:
        return self.value - self.discount

    def ability(self, kind: str) -> dict[str, Any] | None:
        return next((a for a in self.abilities if a.get("type") == kind), None)


@dataclass(eq=False)
class Token:
    """A station token on a corporation's charter (``used`` once it is on the map)."""

    price: int
    used: bool = False


@dataclass(eq=False)
class Train:
    id: str
    name: str
    distance: int
    price: int
    rusts_on: str | None = None
    owner: Corporation | None = None
    operated: bool = False
    rusted: bool = False
    discount: dict[str, int] | None = None
    events: list[dict[str, Any]] = field(default_factory=list)


@dataclass(eq=False)
class Corporation(Holder):
    sym: str
    name: str
    float_percent: int
    coordinates: str
    color: str
    abilities: list[dict[str, Any]]
    cash: int = 0
    shares: list[Share] = field(default_factory=list)
    companies: list[Company] = field(default_factory=list)
    trains: list[Train] = field(default_factory=list)
    tokens: list[Token] = field(default_factory=list)
    owner: Player | None = None
    share_price: Cell | None = None
    par_price: Cell | None = None
    ipoed: bool = False
    floated: bool = False
    operated: bool = False
    closed: bool = False
    capitalization: str = "full"
    always_market_price: bool = False
    """Certificates in the treasury cost the share price, not the par price (e.g. 1867)."""
    share_percent: int = 10
    all_shares: list[Share] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"<Corporation {self.sym}>"

    @property
    def total_shares(self) -> int:
        return 100 // self.share_percent

    @property
    def president_share(self) -> Share:
        return self.all_shares[0]

    def next_token(self) -> Token | None:
        return next((t for t in self.tokens if not t.used), None)

    def tokens_left(self) -> int:
        return sum(1 for t in self.tokens if not t.used)
