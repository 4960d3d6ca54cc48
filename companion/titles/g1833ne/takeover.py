"""1833NE's Takeover variant (the optional rule ``takeover_game``).

What the rules summary's variant says, and how it is played here (the choices where it is
ambiguous are listed in docs/1833NE.md, "The Takeover variant"):

* five **variable-start corporations** join the nine; from phase II a player founds one in any
  free, unreserved city slot that is not the home of another corporation still available,
  choosing the city; the home station costs the new corporation $80 on a grey hex or a city hex
  without track, $120 elsewhere (then the share price must be at least $60, so that the treasury
  can pay it);
* a **takeover round** follows the second operating round of each pair from phase II: each
  corporation in operating order that has a train that is not obsolete may take over one
  corporation it has a track connection to (a station token of the target on its network),
  buying all the target's issued certificates (players' and the pool's) at the target's share
  price, in cash or in its own treasury shares; the target's president may refuse only when the
  target has no train or only obsolete ones.  The buyer inherits the target's trains, treasury,
  ferries, private companies and station tokens, and its train limit rises by one;
* **limits**: the certificate limit follows the number of corporations in the game (35 / 26 / 21
  for 3 / 4 / 5 players with all fourteen, one step lower for each one taken over or closed), and
  the train limit is 3 in phases I and II, 2 in phase III and 1 in phases IV and V, plus one per
  takeover the corporation made.

No I/O here: the engine's rules only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion.engine.entities import Corporation, Player, Share, Token
from companion.engine.errors import GameError
from companion.engine.map import CorporationInfo
from companion.engine.operating import DiscardTrain
from companion.engine.rounds import ActionDict, Entity, LegalAction, Round, Step, entity_fields

if TYPE_CHECKING:
    from companion.titles.g1833ne.game import Game1833NE

RULE = "takeover_game"
#: the five variable-start corporations (the summary does not name them, nor does the prealpha
#: data hold them: their charters are numbered)
VARIABLE_START: tuple[tuple[str, str, str], ...] = (
    ("V1", "Variable-Start Railroad 1", "#6d4c9f"),
    ("V2", "Variable-Start Railroad 2", "#b5651d"),
    ("V3", "Variable-Start Railroad 3", "#2e8b8b"),
    ("V4", "Variable-Start Railroad 4", "#9c2d41"),
    ("V5", "Variable-Start Railroad 5", "#556b2f"),
)
VARIABLE_START_SYMS = frozenset(sym for sym, _n, _c in VARIABLE_START)
#: a variable-start home station: on a grey hex or a city hex without track, elsewhere
HOME_PRICE_PLAIN, HOME_PRICE_TRACK = 80, 120
#: the takeover game's train limits by phase (I, II, III, IV, V), before takeovers
TRAIN_LIMITS = (3, 3, 2, 1, 1)
PHASE_II = 1
PAYMENTS = ("cash", "shares")


def variable_start_specs() -> list[dict[str, Any]]:
    """The five charters as corporation data (no home: their founder chooses it); the engine and
    the table's tag sheet read the same list."""
    return [
        {"sym": sym, "name": name, "tokens": [0, 80], "coordinates": "", "color": color, "float_percent": 20}
        for sym, name, color in VARIABLE_START
    ]


def variable_start_corporations(game: Game1833NE) -> list[Corporation]:
    """The five charters, without a home (their founder chooses it)."""
    return [game.make_corporation(spec) for spec in variable_start_specs()]


def add_to_map(game: Game1833NE) -> None:
    """Give the map the five charters (no home yet).  The map's corporation table is shared by its
    copies, so it is replaced, never changed in place."""
    infos = dict(game.map.corporations)
    for sym in VARIABLE_START_SYMS:
        infos[sym] = CorporationInfo(sym, None, None, None)
    game.map.corporations = infos


# -- founding a variable-start corporation ---------------------------------------------------------------
def home_price(game: Game1833NE, hex_id: str) -> int:
    """$80 on a grey hex or a city hex without track, $120 on any other."""
    st = game.map.tile_on(hex_id)
    if game.map.hex(hex_id).color == "gray" or (st.preprinted and not st.spec.paths):
        return HOME_PRICE_PLAIN
    return HOME_PRICE_TRACK


def min_price_for(home: int) -> int:
    """The lowest share price a founder may choose for a home station of ``home`` dollars (the
    treasury, twice the price, must pay for it)."""
    return (home + 1) // 2


def home_cities(game: Game1833NE, corp: Corporation) -> list[str]:
    """The city references a variable-start corporation may be founded in now: a free slot
    reserved for nobody, in a city that is not the home of a corporation still available (not yet
    founded), nor a city reserved for a corporation (Worcester for B&W until phase IV)."""
    taken_homes = {
        info.home
        for sym, info in game.map.corporations.items()
        if info.home and sym != corp.sym and _available(game, sym)
    }
    out = []
    for hex_id in sorted(game.map.state):
        if hex_id in taken_homes:
            continue
        st = game.map.state[hex_id]
        for node in st.spec.city_indices:
            slots, reservations = st.tokens.get(node, []), st.reservations.get(node, [])
            free = any(
                t is None and (i >= len(reservations) or reservations[i] is None) for i, t in enumerate(slots)
            )
            if not free:
                continue
            ref = game.map.city_ref(hex_id, node)
            if game.reserved_for_another(corp, ref) is not None:
                continue
            out.append(ref)
    return out


def _available(game: Game1833NE, sym: str) -> bool:
    corp = game.corporation(sym)
    return not corp.ipoed and not corp.closed


def founding_pars(game: Game1833NE, player: Player, corp: Corporation) -> list[LegalAction]:
    """Every (city, price) a player may found ``corp`` with now."""
    from companion.engine.stock import par_action

    out = []
    for city in home_cities(game, corp):
        low = min_price_for(home_price(game, game.map.city(city)[0]))
        for cell in game.market.par_prices():
            if cell.price >= low and player.cash >= 2 * cell.price:
                la = par_action(player, corp, cell)
                out.append(LegalAction({**la.action, "city": city}, la.cards))
    return out


def can_found(game: Game1833NE, player: Player, corp: Corporation) -> bool:
    """Whether :func:`founding_pars` lists anything (without listing it all)."""
    prices = [c.price for c in game.market.par_prices() if player.cash >= 2 * c.price]
    if not prices:
        return False
    top = max(prices)
    return any(min_price_for(home_price(game, game.map.city(c)[0])) <= top for c in home_cities(game, corp))


def check_founding(game: Game1833NE, corp: Corporation, action: ActionDict, price: int) -> tuple[str, int]:
    """The home city and its price for founding ``corp`` by ``action`` (refusals raise)."""
    if game.phase_index < PHASE_II:
        raise GameError(f"{corp.name} may be founded only from phase II")
    city = action.get("city")
    if not city:
        raise GameError(f"founding {corp.name} needs the city of its home station")
    if str(city) not in home_cities(game, corp):
        raise GameError(
            f"{corp.name} cannot start in {city}: it needs a free slot reserved for nobody, in a city that "
            "is not another available corporation's home"
        )
    cost = home_price(game, game.map.city(str(city))[0])
    if price < min_price_for(cost):
        raise GameError(
            f"a home station there costs ${cost}: the share price must be at least ${min_price_for(cost)}"
        )
    return str(city), cost


def place_variable_home(game: Game1833NE, corp: Corporation, city: str, cost: int) -> None:
    """The founder's chosen city becomes ``corp``'s home; its station is paid from the treasury."""
    hex_id, node = game.map.city(city)
    cities = game.map.state[hex_id].spec.city_indices
    infos = dict(game.map.corporations)
    infos[corp.sym] = CorporationInfo(corp.sym, hex_id, cities.index(node), None)
    game.map.corporations = infos
    corp.coordinates = hex_id
    game.map.place_token(corp.sym, city, None, home=True)
    token = corp.tokens[0]
    token.used, token.price = True, cost
    corp.spend(cost, game.bank)
    game.log.append(
        f"{corp.name} places its home station in {game.map.hex(hex_id).location_name or hex_id} for ${cost}"
    )


# -- takeovers --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Terms:
    """What a takeover pays each holder of the target: cash, and the buyer's treasury shares."""

    cash: tuple[tuple[str, int], ...]
    """(holder: a player id as text, or "pool") → dollars."""
    shares: tuple[tuple[str, tuple[str, ...]], ...]
    """(player id as text) → the buyer's certificates handed over."""

    @property
    def total_cash(self) -> int:
        return sum(c for _h, c in self.cash)


def issued(game: Game1833NE, target: Corporation) -> list[tuple[Player | None, int]]:
    """Who holds the target's issued certificates: (player, or None for the pool; percent)."""
    out: list[tuple[Player | None, int]] = [
        (p, p.percent_of(target)) for p in game.players if p.percent_of(target)
    ]
    if game.pool.percent_of(target):
        out.append((None, game.pool.percent_of(target)))
    return out


def terms(game: Game1833NE, buyer: Corporation, target: Corporation, payment: str) -> Terms | None:
    """The takeover's terms, or None when ``buyer`` cannot pay their cash part (or, paying in
    shares, would hand over none: that is a payment in cash)."""
    deal = proposed_terms(game, buyer, target, payment)
    if deal is None or deal.total_cash > buyer.cash or (payment == "shares" and not deal.shares):
        return None
    return deal


def proposed_terms(game: Game1833NE, buyer: Corporation, target: Corporation, payment: str) -> Terms | None:
    """The takeover's terms, affordable or not (None while either has no share price).

    Every issued certificate is bought at the target's share price.  In ``shares``, each player
    gets as many of the buyer's treasury shares (at the buyer's share price) as the value covers,
    never above 60 % of the buyer nor above its president's holding (the presidency never changes
    hands), and the rest in cash; the pool's certificates are always paid in cash to the bank."""
    if target.share_price is None or buyer.share_price is None:
        return None
    price, buyer_price = target.share_price.price, buyer.share_price.price
    treasury = sorted((s for s in buyer.shares_of(buyer) if not s.president), key=lambda s: s.index)
    president = buyer.owner
    holders = issued(game, target)
    if payment == "shares":  # the buyer's president first: the others' caps follow from his holding
        holders.sort(key=lambda h: h[0] is not president)
    cash: list[tuple[str, int]] = []
    shares: list[tuple[str, tuple[str, ...]]] = []
    pres_pct = president.percent_of(buyer) if president is not None else 0
    for holder, pct in holders:
        value = pct // target.share_percent * price
        key = "pool" if holder is None else str(holder.id)
        given: list[Share] = []
        if payment == "shares" and holder is not None and buyer_price > 0:
            cap = 60 if holder is president else min(60, pres_pct)
            room = max(0, cap - holder.percent_of(buyer)) // buyer.share_percent
            n = min(value // buyer_price, room, len(treasury))
            given, treasury = treasury[:n], treasury[n:]
            value -= n * buyer_price
            if holder is president:
                pres_pct += n * buyer.share_percent
        if given:
            shares.append((key, tuple(s.id for s in given)))
        if value:
            cash.append((key, value))
    return Terms(tuple(cash), tuple(shares))


def connected_targets(game: Game1833NE, buyer: Corporation) -> list[Corporation]:
    """The corporations with a station token on ``buyer``'s network.

    Only station tokens count, on both sides: the off-board "token" P4 (A6) and P6 (A12) give
    their corporation is for laying track and running routes only (docs/ENGINE.md), so it neither
    extends the buyer's reach here nor makes its holder a target."""
    from companion.titles.g1833ne.routes import Map1833NE

    gm = game.map
    assert isinstance(gm, Map1833NE)
    nodes = gm.station_reach(buyer.sym)
    out = []
    for corp in game.corporations:
        if corp is buyer or corp.closed or not corp.floated:
            continue
        if any(node in nodes for node in gm.station_tokens_of(corp.sym)):
            out.append(corp)
    return out


def may_take_over(game: Game1833NE, buyer: Corporation) -> bool:
    return buyer.floated and not buyer.closed and bool(game.counted_trains(buyer))


def may_refuse(game: Game1833NE, target: Corporation) -> bool:
    """The target may refuse only when it has no train, or only obsolete ones."""
    return not game.counted_trains(target)


def offers(game: Game1833NE, buyer: Corporation) -> list[tuple[Corporation, str, Terms]]:
    if not may_take_over(game, buyer):
        return []
    out = []
    for target in connected_targets(game, buyer):
        for payment in PAYMENTS:
            t = terms(game, buyer, target, payment)
            if t is not None:
                out.append((target, payment, t))
    return out


def take_over(game: Game1833NE, buyer: Corporation, target: Corporation, deal: Terms) -> None:
    """Pay the holders, then move everything of the target to the buyer; the target is gone."""
    for key, amount in deal.cash:
        buyer.spend(amount, game.bank if key == "pool" else _player(game, key))
    for key, ids in deal.shares:
        game.transfer_shares([game.share(i) for i in ids], _player(game, key), allow_president_change=False)
    game.hand_over_assets(target, buyer)
    for hex_id, owner in list(game.ferries.items()):
        if owner == target.sym:
            game.ferries[hex_id] = buyer.sym
    game.sync_map_rules()  # its ferries and P4's, P5's, P6's abilities are the buyer's on the map too
    game.shared_token_moves(target, buyer)  # Sherbrooke's shared token first (it is beside a slot)
    inherited = _move_stations(game, buyer, target)
    buyer.tokens.extend(Token(0, used=True) for _ in range(inherited))
    for share in target.all_shares:
        if share in share.owner.shares:
            share.owner.shares.remove(share)
    if target.share_price is not None and target in target.share_price.corporations:
        target.share_price.corporations.remove(target)
    target.closed, target.owner = True, None
    game.takeovers[buyer.sym] = game.takeovers.get(buyer.sym, 0) + 1
    game.log.append(
        f"{buyer.name} takes over {target.name} (${deal.total_cash} in cash"
        + (f", {sum(len(i) for _k, i in deal.shares)} of its shares" if deal.shares else "")
        + f"); its train limit is now {game.train_limit(buyer)}"
    )


def _move_stations(game: Game1833NE, buyer: Corporation, target: Corporation) -> int:
    """The target's stations become the buyer's (where the buyer already has one in that hex, the
    target's leaves the map); returns how many the buyer gained."""
    gained = 0
    for st in game.map.state.values():
        mine = buyer.sym in st.corporations()
        for slots in st.tokens.values():
            for i, t in enumerate(slots):
                if t == target.sym:
                    slots[i] = None if mine else buyer.sym
                    gained += 0 if mine else 1
                    mine = True
        for node, res in st.reservations.items():
            st.reservations[node] = [None if r == target.sym else r for r in res]
    game.map._changed()
    return gained


def _player(game: Game1833NE, key: str) -> Player:
    return next(p for p in game.players if str(p.id) == key)


# -- the round ------------------------------------------------------------------------------------------------
class TakeoverRound(Round):
    """After the second operating round of a pair, from phase II: each corporation, in operating
    order, may take over one other."""

    name = "Takeover Round"
    short = "TR"

    def __init__(self, game: Any, step_classes: list[Any], round_num: int = 1) -> None:
        self.pending: tuple[str, str, str] | None = None
        """An offer waiting for the target's answer: (buyer, target, payment)."""
        self.done = False
        super().__init__(game, step_classes, round_num)

    @property
    def gm(self) -> Game1833NE:
        return self.game  # type: ignore[return-value]

    def select_entities(self) -> list[Entity]:
        return list(self.game.operating_order())

    def setup(self) -> None:
        self.entity_index = 0
        self.settle()

    def settle(self) -> None:
        """Move on past the corporations that can take over nothing."""
        while self.entity_index < len(self.entities):
            corp = self.entities[self.entity_index]
            if not corp.closed and offers(self.gm, corp):
                return
            self.entity_index += 1
        self.done = True
        self.entity_index = max(0, len(self.entities) - 1)  # the round's index stays on an entity

    def current_buyer(self) -> Corporation | None:
        if self.done or self.entity_index >= len(self.entities):
            return None
        corp: Corporation = self.entities[self.entity_index]
        return corp

    def end_turn(self) -> None:
        self.entity_index += 1
        for step in self.steps:
            step.unpass()
        self.settle()

    def after_process(self, action: ActionDict, entity: Entity) -> None:
        self.game.close_queries()
        if (
            action["type"] in ("take_over", "refuse_takeover", "accept_takeover", "pass")
            and self.pending is None
        ):
            self.end_turn()


class TakeoverResponse(Step):
    """The target's president accepts or refuses (only a target without a train that is not
    obsolete may refuse; only then is it asked)."""

    description = "Accept or refuse the takeover"

    @property
    def trnd(self) -> TakeoverRound:
        return self.round  # type: ignore[return-value]

    def active(self) -> bool:
        return self.trnd.pending is not None

    def active_entities(self) -> list[Entity]:
        pending = self.trnd.pending
        return [self.game.corporation(pending[1])] if pending else []

    def actions(self, entity: Entity) -> list[str]:
        pending = self.trnd.pending
        if pending is None or not isinstance(entity, Corporation) or entity.sym != pending[1]:
            return []
        return ["accept_takeover", "refuse_takeover"]

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        return [LegalAction({"type": kind, **entity_fields(entity)}) for kind in self.actions(entity)]

    def process_accept_takeover(self, action: ActionDict) -> None:
        pending = self.trnd.pending
        assert pending is not None
        gm = self.trnd.gm
        buyer, target = gm.corporation(pending[0]), gm.corporation(pending[1])
        deal = terms(gm, buyer, target, pending[2])
        if deal is None:  # cannot happen: nothing changes while the offer waits
            raise GameError(f"{buyer.name} can no longer pay for {target.name}")
        self.trnd.pending = None
        take_over(gm, buyer, target, deal)

    def process_refuse_takeover(self, action: ActionDict) -> None:
        pending = self.trnd.pending
        assert pending is not None
        self.trnd.pending = None
        self.game.log.append(
            f"{self.game.corporation(pending[1]).name} refuses {self.game.corporation(pending[0]).name}'s takeover"
        )


class TakeOver(Step):
    """The buyer names a target it is connected to and how it pays, or passes."""

    description = "Take over a corporation"

    @property
    def trnd(self) -> TakeoverRound:
        return self.round  # type: ignore[return-value]

    def active(self) -> bool:
        return self.trnd.current_buyer() is not None and self.trnd.pending is None

    def active_entities(self) -> list[Entity]:
        buyer = self.trnd.current_buyer()
        return [buyer] if buyer is not None else []

    def actions(self, entity: Entity) -> list[str]:
        buyer = self.trnd.current_buyer()
        if buyer is None or entity is not buyer or self.trnd.pending is not None:
            return []
        return ["take_over", "pass"] if offers(self.trnd.gm, buyer) else []

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        out = super().legal_actions(entity)
        if "take_over" not in self.actions(entity):
            return out
        for target, payment, deal in offers(self.trnd.gm, entity):
            action = {
                "type": "take_over",
                **entity_fields(entity),
                "corporation": target.sym,
                "payment": payment,
            }
            out.append(LegalAction(action, cost=deal.total_cash))
        return out

    def process_take_over(self, action: ActionDict) -> None:
        gm = self.trnd.gm
        buyer = gm.entity_of(action)
        target = gm.corporation(str(action.get("corporation")))
        payment = str(action.get("payment") or "cash")
        if payment not in PAYMENTS:
            raise GameError(f"a takeover is paid in cash or in the buyer's shares, not {payment!r}")
        if not may_take_over(gm, buyer):
            raise GameError(
                f"{buyer.name} needs a train that is not obsolete to take over another corporation"
            )
        if target not in connected_targets(gm, buyer):
            raise GameError(f"{buyer.name} has no track connection to a station of {target.name}")
        deal = terms(gm, buyer, target, payment)
        if deal is None:
            proposed = proposed_terms(gm, buyer, target, payment)
            if proposed is not None and payment == "shares" and not proposed.shares:
                raise GameError(
                    f"{buyer.name} can hand over none of its shares for {target.name}: pay in cash"
                )
            cash = proposed.total_cash if proposed is not None else 0
            raise GameError(f"{buyer.name} has ${buyer.cash} and cannot pay ${cash} for {target.name}")
        if may_refuse(gm, target) and target.owner is not buyer.owner:
            self.trnd.pending = (buyer.sym, target.sym, payment)
            gm.log.append(
                f"{buyer.name} offers to take over {target.name}; {target.name}'s president decides"
            )
            return
        take_over(gm, buyer, target, deal)


def takeover_round(game: Game1833NE, discard: type[DiscardTrain] = DiscardTrain) -> TakeoverRound:
    """The round, with the title's ``discard`` step for a buyer left over its train limit."""
    return TakeoverRound(game, [discard, TakeoverResponse, TakeOver])
