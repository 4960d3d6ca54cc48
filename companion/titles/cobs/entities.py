"""City of the Big Shoulders' own things: companies, their certificates and factories, players' partners."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.engine.entities import Holder, Player, Share

__all__ = ["CobsCompany", "CobsPlayer", "Certificate", "Factory", "Pool", "RESOURCES"]

RESOURCES = ("livestock", "steel", "coal", "wood")


@dataclass(eq=False)
class CobsPlayer(Player):
    """A player: cash, certificates (``certificates``), partners and the buildings they played."""

    partners: int = 2
    """Partners the player owns."""
    free_partners: int = 2
    """Partners not yet placed this decade."""
    buildings: list[str] = field(default_factory=list)
    first_company: str | None = None
    company_partner_gained: bool = False
    appeal_partner_gained: bool = False
    sold_this_decade: set[str] = field(default_factory=set)
    certificates: list[Certificate] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"<Player {self.name}>"


@dataclass(eq=False)
class Pool:
    """The bank pool: certificates players sold wait here (the bank's money is the core's bank)."""

    name: str = "the bank pool"
    certificates: list[Certificate] = field(default_factory=list)


@dataclass(eq=False)
class Factory:
    """One factory of a company: its workers (people and automation), manager, and whether it produced."""

    spec: dict[str, Any]
    number: int
    workers: int = 0
    automated: int = 0
    manager: bool = False
    produced: bool = False

    @property
    def required(self) -> int:
        return int(self.spec["workers"])

    @property
    def room(self) -> int:
        return self.required - self.workers - self.automated

    @property
    def staffed(self) -> bool:
        return self.room == 0

    @property
    def automation_left(self) -> int:
        return int(self.spec["automation"]) - self.automated

    @property
    def recipe(self) -> list[str]:
        return [str(r) for r in self.spec["resources"]]


@dataclass(eq=False)
class CobsCompany(Holder):
    """A company: charter, treasury, share value (a step on the share-value track), appeal, factories."""

    sym: str
    name: str
    kind: str
    """What it makes: ``food_and_dairy``, ``dry_goods``, ``meat_packing``, ``shoes``."""
    spec: dict[str, Any]
    share_values: list[int]
    owner: CobsPlayer | None = None
    """The director (holder of the director's certificate)."""
    cash: int = 0
    step: int = 0
    appeal: int = 0
    started: bool = False
    started_order: int = 0
    certificates: list[Certificate] = field(default_factory=list)
    """The company's own certificates still in its treasury."""
    all_certificates: list[Certificate] = field(default_factory=list)
    factories: list[Factory] = field(default_factory=list)
    salespeople: int = 0
    goods: int = 0
    bonus_goods: int = 0
    """Appeal bonus goods tokens: one more good each operating turn, once its factories have run."""
    resources: dict[str, int] = field(default_factory=dict)
    assets: list[str] = field(default_factory=list)
    exhausted: set[str] = field(default_factory=set)
    income: int = 0
    closed: bool = False
    shares: list[Share] = field(default_factory=list)
    """Unused (the core's 18xx shares); CoBS certificates are in ``certificates``."""

    @property
    def share_value(self) -> int:
        return self.share_values[self.step]

    @property
    def goods_value(self) -> int:
        """What one good sells for on a demand tile (the salesperson track)."""
        values = self.spec["goods_value_by_salespeople"]
        return int(values[min(self.salespeople, len(values) - 1)])

    @property
    def max_salespeople(self) -> int:
        return len(self.spec["goods_value_by_salespeople"]) - 1

    def __repr__(self) -> str:
        return f"<Company {self.sym}>"


@dataclass(eq=False)
class Certificate:
    """A stock certificate: the director's (3 shares), the preferred (2) or a common one (1)."""

    company: CobsCompany
    index: int
    kind: str
    shares: int
    owner: Any
    """A :class:`CobsPlayer`, the company itself (its treasury) or the :class:`Pool`."""

    @property
    def id(self) -> str:
        return f"{self.company.sym}_{self.index}"

    @property
    def price(self) -> int:
        return self.company.share_value * self.shares
