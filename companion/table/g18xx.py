"""The shared table of the map titles: their certificates, private companies, trains, markers, tiles,
tokens and routes, worded and labelled in one place.

A tap on a card asks the engine which legal actions involve it (``game.actions_involving``) and
proposes them in the players' words: a certificate is bought from the IPO or the market, sold
(further certificates of the same corporation gather into one sale), parred (the par prices are
options), bid on (a minor's, where minors are auctioned); a private company is bid on or bought
within its price range; a train is bought (a double-sided card's sides are options), traded in or
discarded; a tagged marker is bought where it lies.  When no legal action involves the card, the
card's own checks say why.  :meth:`Table18xx.describe` is the one sentence of every action type and
:meth:`Table18xx.buttons` its touch buttons (the touchscreen's and the terminal's).

A title whose rules add action types of their own words them in its folder's ``table.py``: a
subclass of :class:`Table18xx` whose :meth:`~Table18xx.own_sentence`, :meth:`~Table18xx.own_buttons`
and :meth:`~Table18xx.certificate_actions` answer for its types (and ``GROUP_NAMES`` for their
popups), everything else falling back to the shared words here.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from companion.engine import Game, GameError, as_18xx
from companion.engine.core import Preview, TableGame
from companion.engine.entities import Company, Corporation, Player, Share, SharePool, Train
from companion.engine.operating import OperatingRound
from companion.engine.rounds import LegalAction, entity_fields
from companion.engine.stock import AuctionRound, StockRound
from companion.table.proposal import Action, Option, Outcome, Proposal, paid, plural
from companion.table.tags import Item, ItemKind
from companion.table.titles import ActionChoice, Choice, TableTitle

if TYPE_CHECKING:
    from companion.engine.route_optimizer import RouteResult, TrainRoute
    from companion.table.service import TableService

__all__ = ["TABLE_18XX", "Table18xx", "city_hex", "describe_18xx", "money_in", "run_routes_action"]

#: How much a second tap of the same card raises an adjustable price.
BID_STEP = 5
COMPANY_STEP = 5
TRAIN_STEP = 10


def money_in(game: TableGame, amount: object) -> str:
    """``amount`` in the currency of ``game``'s title (1861: ``1,000₽``): the titles' one format."""
    return TABLE_18XX.money(game, amount)


def _printed(name: object) -> str:
    """What is printed on a train or tile: its id without the copy number (``2-0`` → ``2``)."""
    text = str(name)
    return text.rpartition("-")[0] or text


def _share_index(share_id: str) -> int:
    """A certificate's number (``BW_3`` → 3)."""
    tail = share_id.rpartition("_")[2]
    return int(tail) if tail.isdigit() else 0


def _certificates(ids: Sequence[str]) -> str:
    """Certificates as their cards name them: "the president's certificate", "certificates 5, 6"."""
    numbers = [i.rpartition("_")[2] for i in ids]
    words = ["the president's certificate" if n == "0" else n for n in numbers]
    plain = [w for w in words if w.isdigit()]
    parts = [w for w in words if not w.isdigit()]
    if plain:
        parts.append(("certificate " if len(plain) == 1 else "certificates ") + ", ".join(plain))
    return " and ".join(parts)


def _treasury_change(game: Game, action: Action, word: str) -> str:
    """`` for $140``: what an issue brings or a redemption costs the corporation, by the engine's
    preview (the title prices them: 1833NE a column below or above the share price); "" when the
    engine refuses it."""
    try:
        preview = game.preview(action)
    except GameError:
        return ""
    change = sum(abs(m.after - m.before) for m in preview.money if m.who == action.get("entity"))
    return f" {word} {money_in(game, change)}" if change else ""


def _who(game: Game, action: Action) -> str:
    """Who does ``action``, as the screens name them (a corporation's or company's symbol, a
    player's name)."""
    try:
        entity = game.entity_of(action)
        return str(entity.sym if isinstance(entity, Corporation | Company) else entity.name)
    except GameError:
        return str(action.get("entity"))


def describe_18xx(game: Game, action: Action, *, applied: bool) -> str:
    """The shared sentence of ``action`` (a title's own types: its table's ``own_sentence``)."""
    kind = str(action.get("type"))
    who = _who(game, action)
    ids = [str(s) for s in action.get("shares") or []]
    if kind == "buy_shares":
        try:
            shares: list[Share] = [game.share(i) for i in ids]
        except GameError:
            return f"{who} buys {', '.join(ids)}"
        if not shares:
            return f"{who} buys nothing"
        corp, pct = shares[0].corporation, sum(s.percent for s in shares)
        if who == corp.sym:  # a corporation buying its own shares from the market redeems them
            detail = f" ({_certificates(ids)})" if applied else _treasury_change(game, action, "for")
            return f"{who} redeems {pct}% of its shares from the market" + detail
        if applied:
            return f"{who} buys {pct}% {corp.sym} ({_certificates(ids)})"
        owner = shares[0].owner
        where = "the IPO" if owner is corp else "the market" if isinstance(owner, SharePool) else owner.name
        return f"{who} buys {pct}% {corp.sym} from {where} for {money_in(game, sum(s.price for s in shares))}"
    if kind == "sell_shares":
        sym = ids[0].rpartition("_")[0] if ids else "?"
        pct = action.get("percent") or len(ids) * 10
        detail = f" ({_certificates(ids)})" if applied else ""
        if who == sym:  # a corporation selling its own treasury shares issues them
            detail = detail or _treasury_change(game, action, "for")
            return f"{who} issues {pct}% of its shares to the market" + detail
        return f"{who} sells {pct}% {sym}" + detail
    if kind == "par":
        price = str(action.get("share_price")).split(",")[0]
        home = f" with its home in {action['city']}" if action.get("city") else ""
        return f"{who} pars {action.get('corporation')} at {money_in(game, price)}{home}"
    if kind == "bid":
        target = action.get("company") or action.get("corporation")
        return f"{who} bids {money_in(game, action.get('price'))} for {target}"
    if kind == "buy_train":
        side = action.get("variant") or _printed(action.get("train"))
        return f"{who} buys a {side}-train for {money_in(game, action.get('price'))}"
    if kind == "discard_train":
        return f"{who} discards the {_printed(action.get('train'))}-train"
    if kind == "buy_company":
        return f"{who} buys {action.get('company')} for {money_in(game, action.get('price'))}"
    if kind == "choose":
        return f"{who} chooses {action.get('choice')}"
    if kind == "pass":
        return f"{who} passes"
    if kind == "lay_tile":
        number = _printed(action.get("tile"))
        return f"{who} lays tile {number} on {action.get('hex')} (rotation {action.get('rotation')})"
    if kind == "place_token":
        return f"{who} places a token in {_city_words(game, str(action.get('city')))}"
    if kind == "assign":
        does = game.assignment_words(action)
        return f"{who} {does}" if does else f"{who} places its token on {action.get('target')}"
    if kind == "run_routes":
        routes = action.get("routes") or []
        total = sum(int(r.get("revenue", 0)) for r in routes)
        return f"{who} runs {plural(len(routes), 'train')} for {money_in(game, total)}"
    if kind == "dividend":
        words = {"payout": "pays out", "withhold": "withholds", "half": "pays half"}
        return f"{who} {words.get(str(action.get('kind')), str(action.get('kind')))}"
    return f"{who}: {kind.replace('_', ' ')}"


def _price_text(game: Game, kind: str, action: Action, preview: Preview, *, purchase: bool = False) -> str:
    price = int(action["price"])
    if kind == "bid" and "corporation" in action:
        corp = game.corporation(str(action["corporation"]))
        player = game.player(action["entity"])
        return f"{player.name} bids {money_in(game, price)} for {corp.sym} ({corp.name})"
    if kind == "bid":
        player = game.player(action["entity"])
        company = game.company(action["company"])
        if purchase:
            return f"{player.name} buys {company.sym} ({company.name}) for {money_in(game, price)}"
        return f"{player.name} bids {money_in(game, price)} for {company.sym} ({company.name})"
    if kind == "buy_company":
        company = game.company(action["company"])
        buyer = game.entity_of(action)
        who = buyer.sym if isinstance(buyer, Corporation) else buyer.name
        seller = company.owner.name if company.owner is not None else "the bank"
        return f"{who} buys {company.sym} ({company.name}) from {seller} for {money_in(game, price)}"
    train = game.train(action["train"])
    source = "the bank" if train.owner is None else train.owner.sym
    side = str(action.get("variant") or train.name)
    text = f"{action['entity']} buys a {side}-train from {source} for {money_in(game, price)}"
    corp = game.corporation(str(action["entity"]))
    if corp.owner is not None:
        extra = paid(preview, corp.owner.id)
        if extra > 0:
            text += f" ({corp.owner.name} contributes {money_in(game, extra)})"
    return text


class Taps18xx:
    """What a tap on an 18xx card proposes, on the table ``t`` (its game, its pending proposal)."""

    def __init__(self, table: TableService, title: Table18xx) -> None:
        self.t = table
        self.title = title

    @property
    def game(self) -> Game:
        return as_18xx(self.t.game)

    @property
    def g18(self) -> Game:  # the moved code's name for the same game
        return self.game

    def interpret(self, item: Item) -> Outcome:
        """What a tap on a card means: one question to the engine, "which legal actions involve
        this card?" (``Game.actions_involving``).  When none does, the card's own checks say why
        in the players' words."""
        if item.kind is ItemKind.PLAYER:
            return self._player_card(item)
        legal = self.game.actions_involving(item.id)
        if item.kind is ItemKind.CERTIFICATE:
            return self._certificate(item, legal)
        if item.kind is ItemKind.COMPANY:
            return self._company(item, legal)
        if item.kind is ItemKind.MARKER:
            return self._marker(item, legal)
        return self._train(item, legal)

    @staticmethod
    def _of(legal: Sequence[LegalAction], kind: str) -> list[LegalAction]:
        return [la for la in legal if la.type == kind]

    def _round_name(self) -> str:
        rnd = self.game.round
        if isinstance(rnd, OperatingRound) and rnd.current_operator is not None:
            return f"the operating round ({rnd.current_operator.sym} operates)"
        return f"the {rnd.name.lower()}" if isinstance(rnd, StockRound | OperatingRound) else "the auction"

    # player card: the acting player passes / ends the turn
    def _player_card(self, item: Item) -> Outcome:
        player = self.t.seat(item)
        current = self.t.current()
        if isinstance(current, Corporation):
            if current.owner is not player:
                owner = current.owner.name if current.owner else "nobody"
                raise GameError(f"{current.sym} is operating and {owner} is its president, not {player.name}")
            entity: Any = current
        elif current is not player:
            raise GameError(f"it is {current.name}'s turn, not {player.name}'s")
        else:
            entity = player
        if "pass" not in self.game.legal_action_types(entity):
            raise GameError(f"{entity.name} cannot pass now: {self.t.step_description(entity)}")
        action = self._entity_action("pass", entity)
        preview = self.t.preview(action)
        return self.t.offer(Proposal("pass", self._pass_text(entity, preview), action, preview, entity.name))

    def _pass_text(self, entity: Any, preview: Preview) -> str:
        rnd = self.game.round
        step = rnd.active_step()
        drops = "; ".join(
            f"{sym} share price {self.t.money(a)} → {self.t.money(b)}"
            for sym, (a, b) in preview.share_prices.items()
        )
        meaning = self.g18.pass_meaning(entity)
        if meaning is not None:
            return meaning + (f": {drops}" if drops else "")
        if isinstance(entity, Corporation):
            return f"{entity.sym} passes ({self.t.step_description(entity).lower()})"
        if isinstance(rnd, StockRound) and rnd.current_actions:
            return f"{entity.name} ends their turn"
        auctioning = getattr(step, "auctioning", None)
        if isinstance(rnd, AuctionRound) and isinstance(auctioning, Company):
            return f"{entity.name} passes on {auctioning.sym}"
        return f"{entity.name} passes"

    def _entity_action(self, kind: str, entity: Any, **fields: Any) -> Action:
        if not isinstance(entity, Player | Corporation):
            raise GameError(f"{getattr(entity, 'name', entity)} cannot act here")
        return {"type": kind, **entity_fields(entity), **fields}

    # certificates: buy, sell (gathered), par, price protection
    def _acting_player(self, kind: str) -> Player:
        current = self.t.current()
        if isinstance(current, Player):
            return current
        if (
            isinstance(current, Corporation)
            and current.owner is not None
            and kind in self.game.legal_action_types(current.owner)
        ):
            return current.owner
        raise GameError(f"certificates are bought and sold in the stock round; it is {self._round_name()}")

    def _certificate(self, item: Item, legal: Sequence[LegalAction]) -> Outcome:
        share = self.g18.share(item.id)
        corp = share.corporation
        if corp.closed:
            raise GameError(f"{corp.sym} has closed; its certificates are out of the game")
        owner = share.owner
        bids = self._of(legal, "bid")
        if bids:  # 1867, 1861: a minor company's certificate is auctioned in the stock round
            p = self.t.proposal
            if p is not None and p.kind == "bid" and p.cards == (share.id,):
                return self.t.next_option()  # the same card again: the next price
            return self.t.offer(self._minor_bid(share, bids[0]))
        own_meaning = self.title.certificate_actions(self.game, share, legal)
        if own_meaning is not None:  # the title's own round (a merger, a takeover): its options
            kind, choices = own_meaning
            return self._choose_between(kind, choices, (share.id,))
        pars = self._of(legal, "par")
        if pars:
            return self._par(share, self.game.entity_of(pars[0].action), pars)
        own = [
            la
            for la in legal
            if la.type in ("sell_shares", "buy_shares")
            and la.action.get("entity_type") == "corporation"
            and la.action.get("entity") == corp.sym
        ]
        if own and (len(own) > 1 or own[0].type == "sell_shares"):
            return self._own_shares(share, own)
        if owner is corp or isinstance(owner, SharePool):
            self._own_shares_in_order(share)
        buys = self._of(legal, "buy_shares")
        if buys:
            buyer = self.game.entity_of(buys[0].action)
            shares = [self.g18.share(i) for i in buys[0].action["shares"]]
            if isinstance(buyer, Player) and len(shares) > 1:
                return self._price_protect(shares, buyer)
            if isinstance(buyer, Player):
                return self._buy(share, buyer, "the IPO" if owner is corp else "the market")
            return self.t.propose(buys[0].action)  # a corporation buys back its own share
        current = self.t.current()
        if isinstance(owner, Player) and (owner is current or isinstance(current, Corporation)):
            # a sale gathers the certificates tapped; the engine refuses a set it does not allow
            return self._sell(share, owner)
        player = self._acting_player("buy_shares" if not isinstance(owner, Player) else "sell_shares")
        if isinstance(owner, Player):
            raise GameError(
                f"{share.id} belongs to {owner.name}; it is {player.name}'s turn "
                f"(buy from the IPO or the market, sell your own certificates)"
            )
        if owner is corp:
            if not corp.ipoed:
                if not share.president:
                    raise GameError(
                        f"{corp.sym} has not been parred: tap its president's certificate to par it"
                    )
                return self._par(share, player)
            return self._buy(share, player, "the IPO")
        if isinstance(owner, SharePool):
            return self._buy(share, player, "the market")
        raise GameError(f"{share.id} is held by {owner.name} and cannot be bought")

    def _own_shares_in_order(self, share: Share) -> None:
        """``GameError`` naming the certificate to tap when the operating corporation may issue
        (or redeem) its shares now but the engine's choices begin with another one of them."""
        corp = share.corporation
        if self.game.current_entity() is not corp:
            return
        kind = "sell_shares" if share.owner is corp else "buy_shares"
        offered = self.game.legal_actions(corp, types={kind})
        ids = sorted({i for la in offered if la.type == kind for i in la.action["shares"]}, key=_share_index)
        if ids:
            verb = "issues" if kind == "sell_shares" else "redeems"
            raise GameError(f"{corp.sym} {verb} its certificates in order: tap {ids[0]}")

    def _own_shares(self, share: Share, legal: Sequence[LegalAction]) -> Outcome:
        """A corporation's own certificate tapped while it may issue (from its treasury) or redeem
        (from the market) that many shares at once: how many, each an option labelled with its
        count and money (1833NE: ``1 share $70``, ``2 shares $140``); the same card again takes
        the next."""
        p = self.t.proposal
        if p is not None and p.cards == (share.id,) and p.options and p.kind in ("sell_shares", "buy_shares"):
            return self.t.offer(self.t.with_option(p, (p.selected + 1) % len(p.options)))
        options = []
        corp = share.corporation
        for la in sorted(legal, key=lambda la: len(la.action["shares"])):
            preview = self.t.preview(la.action)
            money = abs(paid(preview, corp.sym))
            n = len(la.action["shares"])
            label = f"{plural(n, 'share')} {self.t.money(money)}"
            options.append(Option(label, la.action, preview, self.title.describe(self.game, la.action)))
        return self.t.propose_options(options, share.id, corp.sym)

    def _buy(self, share: Share, player: Player, source: str) -> Outcome:
        p = self.t.proposal
        if p is not None and p.kind == "buy" and p.cards == (share.id,):
            return self.t.offer(p)
        action = self._entity_action("buy_shares", player, shares=[share.id], percent=share.percent)
        preview = self.t.preview(action)
        cost = paid(preview, player.id)
        text = f"{player.name} buys {share.percent}% {share.corporation.sym} from {source} for {self.t.money(cost)}"
        return self.t.offer(Proposal("buy", text, action, preview, player.name, cards=(share.id,)))

    def _price_protect(self, shares: list[Share], player: Player) -> Outcome:
        corp = shares[0].corporation
        action = self._entity_action(
            "buy_shares", player, shares=[s.id for s in shares], percent=sum(s.percent for s in shares)
        )
        preview = self.t.preview(action)
        cost = paid(preview, player.id)
        text = (
            f"{player.name} price protects {sum(s.percent for s in shares)}% {corp.sym} "
            f"from the market for {self.t.money(cost)}"
        )
        return self.t.offer(
            Proposal("price_protect", text, action, preview, player.name, cards=tuple(s.id for s in shares))
        )

    def _sell(self, share: Share, player: Player) -> Outcome:
        corp = share.corporation
        p = self.t.proposal
        cards: list[str] = [share.id]
        if p is not None and p.kind == "sell" and p.actor == player.name:
            previous = [self.g18.share(c) for c in p.cards]
            if previous and previous[0].corporation is corp:
                if share.id in p.cards:
                    cards = [c for c in p.cards if c != share.id]
                    if not cards:
                        return self.t.drop(f"{player.name} sells nothing: the sale is dropped")
                else:
                    cards = [*p.cards, share.id]
        shares = sorted((self.g18.share(c) for c in cards), key=lambda s: s.index)
        percent = sum(s.percent for s in shares)
        action = self._entity_action("sell_shares", player, shares=[s.id for s in shares], percent=percent)
        preview = self.t.preview(action)
        gain = -paid(preview, player.id)
        text = f"{player.name} sells {percent}% {corp.sym} to the market for {self.t.money(gain)}"
        moves = [
            f"{sym} share price {self.t.money(a)} → {self.t.money(b)}"
            for sym, (a, b) in preview.share_prices.items()
        ]
        if moves:
            text += "; " + "; ".join(moves)
        return self.t.offer(
            Proposal(
                "sell",
                text,
                action,
                preview,
                player.name,
                cards=tuple(s.id for s in shares),
                hint=f"tap more {corp.sym} certificates to add them (again to take one out); confirm to sell",
            )
        )

    def _par(self, share: Share, player: Player, pars: Sequence[LegalAction] = ()) -> Outcome:
        """The par prices the engine allows for the corporation of this president's certificate."""
        corp = share.corporation
        p = self.t.proposal
        if p is not None and p.kind == "par" and p.cards == (share.id,) and p.options:
            return self.t.offer(self.t.with_option(p, (p.selected + 1) % len(p.options)))
        options: list[Option] = []
        for la in pars:
            preview = self.t.preview(la.action)
            price = int(str(la.action["share_price"]).split(",")[0])
            cost = paid(preview, player.id)
            text = (
                f"{player.name} pars {corp.sym} at {self.t.money(price)} and buys the president's certificate "
                f"({share.percent}%) for {self.t.money(cost)}"
            )
            options.append(Option(f"{self.t.money(price)}", la.action, preview, text))
        if not options:
            raise GameError(f"{player.name} cannot par {corp.sym} now")
        proposal = Proposal(
            "par",
            options[0].text,
            options[0].action,
            options[0].preview,
            player.name,
            options=tuple(options),
            cards=(share.id,),
            option_hint="par price {n} of {count} ({labels}); tap the certificate again for the next, confirm to par",
        )
        return self.t.offer(self.t.with_option(proposal, 0))

    def _choose_between(self, kind: str, legal: Sequence[LegalAction], cards: tuple[str, ...]) -> Outcome:
        """Several things a card may mean now (a company's token on one of its hexes, a train
        bought outright or traded in): each an option, tapped through, confirmed."""
        p = self.t.proposal
        if p is not None and p.kind == kind and p.cards == cards and p.options:
            return self.t.offer(self.t.with_option(p, (p.selected + 1) % len(p.options)))
        options = []
        for la in legal:
            preview = self.t.preview(la.action)
            text = self.title.describe(self.game, la.action)
            options.append(Option(text, la.action, preview, text))
        first = options[0]
        proposal = Proposal(
            kind,
            first.text,
            first.action,
            first.preview,
            str(first.action["entity"]),
            options=tuple(options),
            cards=cards,
        )
        return self.t.offer(self.t.with_option(proposal, 0))

    # private companies: auction bids, purchase by the operating corporation
    def _company(self, item: Item, legal: Sequence[LegalAction]) -> Outcome:
        company = self.g18.company(item.id)
        if company.closed:
            raise GameError(f"{company.sym} has closed")
        p = self.t.proposal
        if p is not None and p.kind in ("bid", "buy_company") and p.cards == (company.sym,):
            return self.t.next_option()  # the same card again: the next price
        for kind, build in (("bid", self._bid), ("buy_company", self._buy_company)):
            found = self._of(legal, kind)
            if found:
                return self.t.offer(build(company, self.game.entity_of(found[0].action), found[0]))
        abilities = [la for la in legal if la.type in ("assign", "lay_tile")]
        if abilities:
            return self._choose_between("ability", abilities, (company.sym,))
        rnd = self.game.round
        current = self.t.current()
        if isinstance(rnd, AuctionRound) and isinstance(current, Player):
            return self.t.offer(self._bid(company, current))
        if isinstance(rnd, OperatingRound) and isinstance(current, Corporation):
            return self.t.offer(self._buy_company(company, current))
        if isinstance(rnd, StockRound) and isinstance(current, Player):
            if "buy_company" not in self.game.legal_action_types(current):
                raise GameError(
                    f"{current.name} cannot buy a private company from another player now "
                    f"(not in this phase, or after buying this turn)"
                )
            return self.t.offer(self._buy_company(company, current))
        raise GameError(
            f"private companies are auctioned at the start, bought by corporations in operating rounds "
            f"and, from some phase on, by players from each other in stock rounds; it is {self._round_name()}"
        )

    def _bid(self, company: Company, player: Player, legal: LegalAction | None = None) -> Proposal:
        if company.owner is not None:
            raise GameError(f"{company.sym} already belongs to {company.owner.name}")
        if legal is None:
            raise GameError(
                f"{player.name} cannot bid on {company.sym} now: {self.t.step_description(player)}"
            )
        return self._bid_proposal(legal, player.name, company.sym)

    def _bid_proposal(self, legal: LegalAction, actor: str, card: str) -> Proposal:
        """An auction bid at the engine's first offer, raised by further taps of ``card``."""
        fixed = legal.price_range is None
        lo, hi = legal.price_range or (int(legal.action["price"]),) * 2
        action = dict(legal.action)
        preview = self.t.preview(action)
        return Proposal(
            "bid",
            _price_text(self.g18, "bid", action, preview, purchase=fixed),
            action,
            preview,
            actor,
            price_range=None if fixed else (lo, max(lo, hi)),
            price_step=BID_STEP,
            cards=(card,),
            hint="confirm to buy it"
            if fixed
            else f"tap again or press + to raise by {self.t.money(BID_STEP)}, confirm to bid",
        )

    def _minor_bid(self, share: Share, legal: LegalAction) -> Proposal:
        """A bid for a minor company's certificate (1867, 1861), raised as a private company's is."""
        return self._bid_proposal(legal, self.game.entity_of(legal.action).name, share.id)

    def _buy_company(
        self, company: Company, buyer: Corporation | Player, legal: LegalAction | None = None
    ) -> Proposal:
        """The operating corporation buys a private company within the title's price range, or (in a
        stock round) a player buys one from another player at any price they agree on."""
        name = buyer.sym if isinstance(buyer, Corporation) else buyer.name
        if company.owner is buyer:
            raise GameError(f"{name} already owns {company.sym}")
        if not isinstance(company.owner, Player):
            raise GameError(f"{company.sym} is not owned by a player and cannot be bought")
        agreed = "" if isinstance(buyer, Corporation) else "the price the players agree on: "
        if legal is None or legal.price_range is None:
            lo, _ = self.g18.company_price_range(company, buyer)
            if buyer.cash < lo:
                raise GameError(
                    f"{name} has {self.t.money(buyer.cash)} and cannot pay the {self.t.money(lo)} "
                    f"that {company.sym} costs at least"
                )
            raise GameError(f"{name} cannot buy {company.sym} now: {self.t.step_description(buyer)}")
        lo, hi = legal.price_range
        action = dict(legal.action)
        preview = self.t.preview(action)
        return Proposal(
            "buy_company",
            _price_text(self.g18, "buy_company", action, preview),
            action,
            preview,
            name,
            price_range=(lo, hi),
            price_step=COMPANY_STEP,
            cards=(company.sym,),
            hint=f"{agreed}tap again or press + to raise by {self.t.money(COMPANY_STEP)} "
            f"({self.t.money(lo)} to {self.t.money(hi)}), confirm to buy",
        )

    # trains: the operating corporation buys
    def _train(self, item: Item, legal: Sequence[LegalAction]) -> Outcome:
        train = self.g18.train(item.id)
        p = self.t.proposal
        if p is not None and p.kind == "buy_train" and p.cards == (train.id,) and p.price_range is not None:
            return self.t.next_option()
        discards = self._of(legal, "discard_train")
        if discards:
            return self.t.propose(discards[0].action)
        buys = [la for la in self._of(legal, "buy_train") if la.action["train"] == train.id]
        trade_ins = [la for la in buys if "exchange" in la.action]
        if trade_ins and len(buys) > 1:
            return self._choose_between("buy_train", buys, (train.id,))
        sides = [la for la in buys if la.action.get("variant") and la.price_range is None]
        if len({la.action["variant"] for la in sides}) > 1:
            return self._sides(train, sides)
        current = self.t.current()
        if not isinstance(self.game.round, OperatingRound) or not isinstance(current, Corporation):
            raise GameError(f"trains are bought by the operating corporation; it is {self._round_name()}")
        return self.t.offer(self._buy_train(train, current, buys[0] if buys else None))

    def _sides(self, train: Train, sides: Sequence[LegalAction]) -> Outcome:
        """A double-sided card (1833NE's 3/5 or 2+2): which side to buy, each side the engine
        allows an option labelled with its name and price; a further tap of the card turns it
        to the next side."""
        p = self.t.proposal
        if p is not None and p.kind == "buy_train" and p.cards == (train.id,) and p.options:
            return self.t.offer(self.t.with_option(p, (p.selected + 1) % len(p.options)))
        options = []
        for la in sides:
            action = dict(la.action)
            preview = self.t.preview(action)
            label = f"{action['variant']} {self.t.money(action['price'])}"
            options.append(
                Option(label, action, preview, _price_text(self.g18, "buy_train", action, preview))
            )
        return self.t.propose_options(options, train.id, str(options[0].action["entity"]))

    def _marker(self, item: Item, legal: Sequence[LegalAction]) -> Outcome:
        """A marker (1833NE's ferry): the legal actions that involve it (buying a ferry in each
        port the operating corporation reaches), each an option, tapped through."""
        if not legal:
            raise GameError(self.t.nothing_to_do(item))
        p = self.t.proposal
        if p is not None and p.cards == (item.id,) and p.options:
            return self.t.offer(self.t.with_option(p, (p.selected + 1) % len(p.options)))
        options = []
        for la in legal:
            preview = self.t.preview(la.action)
            text = self.title.describe(self.game, la.action)
            if la.cost:
                text += f" for {self.t.money(la.cost)}"
            where = la.action.get("city")  # a ferry's port names the option
            label = self.g18.map.place_name(str(where)) if isinstance(where, str) else text
            options.append(Option(label, la.action, preview, text))
        return self.t.propose_options(options, item.id, str(options[0].action["entity"]))

    def _buy_train(self, train: Train, corp: Corporation, legal: LegalAction | None = None) -> Proposal:
        if train.rusted:
            raise GameError(f"that {train.name}-train has rusted and is out of the game")
        if train.owner is corp:
            raise GameError(f"{corp.sym} already owns that {train.name}-train")
        if legal is None:
            if train.owner is None and train not in self.g18.depot_trains():
                for_sale = ", ".join(sorted({t.name for t in self.g18.depot_trains()})) or "none"
                raise GameError(
                    f"that {train.name}-train is not for sale yet; the bank sells: {for_sale}-trains"
                )
            if train.owner is not None and corp.cash < 1:
                raise GameError(f"{corp.sym} has no money to buy a train from {train.owner.sym}")
            raise GameError(
                f"{corp.sym} cannot buy that {train.name}-train now: {self.t.step_description(corp)}"
            )
        price_range = legal.price_range
        action = dict(legal.action)
        preview = self.t.preview(action)
        return Proposal(
            "buy_train",
            _price_text(self.g18, "buy_train", action, preview),
            action,
            preview,
            corp.sym,
            price_range=price_range,
            price_step=TRAIN_STEP,
            cards=(train.id,),
            hint=(
                "confirm to buy it"
                if price_range is None
                else f"tap again or press + to raise by {self.t.money(TRAIN_STEP)} "
                f"({self.t.money(1)} to {self.t.money(corp.cash)}), confirm to buy"
            ),
        )

    def priced(self, action: Action) -> Proposal | None:
        """The tap path's proposal for a priced action (a bid, a private company, a train: the
        same side of a double-sided card), at the action's price (``None``: not one)."""
        kind = action["type"]
        entity = self.game.entity_of(action)
        if entity is not self.game.current_entity():
            return None  # the engine's own refusal says why
        card = str(action.get("train") if kind == "buy_train" else action.get("company"))
        same = [
            la
            for la in self.game.actions_involving(card)
            if la.type == kind
            and la.action["entity"] == action["entity"]
            and la.action.get("exchange") == action.get("exchange")
            and la.action.get("variant") == action.get("variant")
        ]
        legal = same[0] if same else None
        if kind == "buy_train" and isinstance(entity, Corporation):
            out = self._buy_train(self.g18.train(card), entity, legal)
        elif kind == "bid" and isinstance(entity, Player) and isinstance(self.game.round, AuctionRound):
            out = self._bid(self.g18.company(card), entity, legal)
        elif kind == "buy_company" and isinstance(entity, Corporation | Player):
            out = self._buy_company(self.g18.company(card), entity, legal)
        else:
            return None
        return self.t.at_price(out, action["price"])


#: the action types whose price the players set on the toast (a tap's proposal, with its range)
_PRICED = ("bid", "buy_company", "buy_train")


#: the names of the popups holding a group of buttons
GROUP_NAMES = {
    "buy": "Buy share…",
    "sell": "Sell…",
    "par": "Par…",
    "bid": "Bid…",
    "tile": "Lay tile…",
    "token": "Token…",
    "train": "Buy train…",
    "discard": "Discard…",
    "choose": "Choose…",
    "dividend": "Dividend…",
    "company": "Private companies…",
}


class Table18xx(TableTitle):
    """The shared table of the 18xx titles: the map, market and operating screens, taps on
    certificates, private companies, trains and markers, and every action's words and button."""

    board_screen = False
    #: the names of the popups of the title's own button groups (beside the shared :data:`GROUP_NAMES`)
    own_groups: dict[str, str] = {}
    #: the title's own groups whose buttons stand on the screen, not in a popup
    inline_groups: frozenset[str] = frozenset()

    # -- what a title adds for action types of its own (none here) ---------------------------------
    def own_sentence(self, game: Game, action: Action, who: str, *, applied: bool) -> str | None:
        """The sentence of an action of a type the title's rules add (``who`` does it), or None for
        a type the shared words cover."""
        return None

    def own_buttons(self, game: Game, la: LegalAction) -> Iterator[tuple[Choice, Action]] | None:
        """The touch buttons of a legal action of a type the title's rules add (each with the
        action it proposes), or None for a type the shared buttons cover."""
        return None

    def certificate_actions(
        self, game: Game, share: Share, legal: Sequence[LegalAction]
    ) -> tuple[str, list[LegalAction]] | None:
        """What a tap of ``share`` means in a round of the title's own (a merger, a takeover): the
        proposal's kind and the legal actions it offers as options; None where the shared meaning
        (buy, sell, par, bid) applies."""
        return None

    # -- the shared words -----------------------------------------------------------------------------
    def group_name(self, group: str) -> str:
        return self.own_groups.get(group) or GROUP_NAMES.get(group) or super().group_name(group)

    def group_look(self, group: str) -> str:
        if group in ("run", "dividend"):
            return "go"
        return "inline" if group in self.inline_groups else super().group_look(group)

    def describe(self, game: TableGame, action: Action, *, applied: bool = False) -> str:
        g = as_18xx(game)
        own = self.own_sentence(g, action, _who(g, action), applied=applied)
        return own if own is not None else describe_18xx(g, action, applied=applied)

    def buttons(self, game: Game, la: LegalAction) -> Iterator[tuple[Choice, Action]]:
        """The touch buttons of one legal action, each with the action it proposes."""
        own = self.own_buttons(game, la)
        return own if own is not None else _buttons(game, la)

    def tap(self, table: TableService, item: Item) -> Outcome:
        return Taps18xx(table, self).interpret(item)

    def priced_text(self, game: TableGame, kind: str, action: Action, preview: Preview) -> str:
        return _price_text(as_18xx(game), kind, action, preview)

    def priced(self, table: TableService, action: Action) -> Proposal | None:
        if action.get("type") in _PRICED and "price" in action:
            return Taps18xx(table, self).priced(action)
        return None

    def suggested_routes(self, game: TableGame, time_limit: float | None = None) -> RouteResult | None:
        g = as_18xx(game)
        corp = g.current_entity()
        if not isinstance(corp, Corporation) or "run_routes" not in g.legal_action_types(corp):
            return None
        return g.suggest_routes(corp, time_limit=time_limit)

    def run_by_stops(self, game: TableGame, routes: Sequence[tuple[str | None, Sequence[str]]]) -> Action:
        g = as_18xx(game)
        corp = g.current_entity()
        if not isinstance(corp, Corporation) or "run_routes" not in g.legal_action_types(corp):
            who = getattr(corp, "name", "nobody")
            raise GameError(f"no trains run now: {who} is to act, not to run routes")
        return dict(g.run_by_stops(corp, routes))

    def hex_of(self, game: TableGame, action: Action) -> str | None:
        kind = action.get("type")
        if kind == "lay_tile":
            return str(action.get("hex"))
        if kind == "assign":
            return str(action.get("target"))
        if kind == "place_token":
            try:
                return str(as_18xx(game).map.city(str(action.get("city")))[0])
            except Exception:  # noqa: BLE001 - a city the map cannot place is on no hex
                return None
        return None

    def choice(self, game: TableGame, legal: LegalAction) -> Choice:
        g = as_18xx(game)
        for pick, _action in self.buttons(g, legal):
            return pick
        return Choice(legal.type, self.describe(g, legal.action))

    def choices(
        self, game: TableGame, entity: Any = None, routes: RouteResult | None = None
    ) -> list[ActionChoice]:
        """The engine's legal actions now, labelled for touch buttons.

        Without ``entity``: everything that may be done now (the acting entity, its private
        companies' abilities, its president's emergency sales, a player's corporations buying back
        shares).  The suggested ``routes`` become a "run" button.  Certificates and trains that
        differ only by their number share one button; a price the players choose starts at the
        engine's offer; a tile lay turned so that it lays the same track is shown once."""
        g = as_18xx(game)
        if g.finished:
            return []
        acting = entity if entity is not None else g.current_entity()
        if acting is None:
            return []
        legal = g.legal_actions(entity)
        out: list[ActionChoice] = []
        seen: set[tuple[Any, ...]] = set()
        lays = [la for la in legal if la.type == "lay_tile"]
        for la in [la for la in legal if la.type != "lay_tile"] + list(_distinct_lays(g, lays)):
            lay = la.action if la.type == "lay_tile" else None
            for pick, action in self.buttons(g, la):
                key = pick.same if pick.same is not None else (pick.label,)
                if key not in seen:
                    seen.add(key)
                    if lay is None:
                        out.append(ActionChoice(pick.group, pick.label, action))
                    else:
                        tile, rotation = _printed(lay["tile"]), int(lay["rotation"])
                        out.append(
                            ActionChoice(pick.group, pick.label, action, str(lay["hex"]), tile, rotation)
                        )
        if (
            isinstance(acting, Corporation)
            and routes is not None
            and routes.routes
            and "run_routes" in g.legal_action_types(acting)
        ):
            label = f"Run suggested routes {money_in(g, routes.total)}"
            out.append(ActionChoice("run", label, run_routes_action(acting, routes.routes)))
        return out


TABLE_18XX = Table18xx()


# -- what the 18xx screens ask of a corporation's turn and the auction (their one vocabulary) --------------
def awaits_dividend(game: Game, corp: Corporation) -> bool:
    """Whether ``corp`` has run and its dividend is to be chosen now."""
    return "dividend" in game.legal_action_types(corp)


def may_run(game: Game, corp: Corporation) -> bool:
    """Whether ``corp`` is to run its trains now."""
    return "run_routes" in game.legal_action_types(corp)


def dividend_choices(game: Game, corp: Corporation) -> list[LegalAction]:
    """The dividends ``corp`` may choose now (pay out, withhold, half)."""
    return game.legal_actions(corp, types={"dividend"})


def dividend_step(game: Game, corp: Corporation) -> Any:
    """The step that pays ``corp``'s dividend (its ``options`` say what each kind pays), or None."""
    return _step(game, corp, "dividend")


def standing_bids(game: Game, company: str) -> dict[Any, int]:
    """Each player's highest bid (by player id) for private company ``company`` so far."""
    bids: dict[Any, int] = {}
    for action in game.actions:
        if action.get("type") == "bid" and action.get("company") == company:
            who = action.get("entity")
            bids[who] = max(bids.get(who, 0), int(action.get("price", 0)))
    return bids


def run_routes_action(corp: Corporation, routes: Sequence[TrainRoute]) -> dict[str, Any]:
    """The ``run_routes`` action for suggested routes."""
    return {
        "type": "run_routes",
        "entity": corp.sym,
        "entity_type": "corporation",
        "routes": [r.as_action_route() for r in routes],
        "extra_revenue": 0,
    }


def _step(game: Game, entity: Any, kind: str) -> Any:
    finder = getattr(game.round, "step_for", None)
    return finder(entity, kind) if finder is not None else None


def _city_words(game: Game, city: str) -> str:
    """A city reference of an action as the players know it: ``C17 (Toronto)``, and which of the
    hex's cities when it has several (``D8 (Montreal), city 2``); never the reference itself."""
    with contextlib.suppress(Exception):  # a label only
        hex_id, node = game.map.city(city)
        name = dict(game.data.get("map", {}).get("location_names", {})).get(hex_id)
        words = f"{hex_id} ({name})" if name else hex_id
        cities = game.map.state[hex_id].spec.city_indices
        if len(cities) > 1:
            words += f", city {list(cities).index(node) + 1}"
        return words
    return city_hex(game, city)


def city_hex(game: Game, city: str) -> str:
    """The hex a city reference of an action lies on, for a label (the reference if none)."""
    with contextlib.suppress(Exception):  # a label only
        return str(game.map.city(city)[0])
    return city


def _distinct_lays(game: Game, lays: Sequence[LegalAction]) -> Iterator[LegalAction]:
    """Legal tile lays, leaving out a rotation that lays the same track as one already given (a
    straight track turned half way round is the same lay)."""
    from vision.board import title_tile_shapes
    from vision.tiles import equivalent_rotations

    shapes = title_tile_shapes(game.title)
    shown: set[tuple[str, str, str, frozenset[int]]] = set()
    for la in lays:
        a = la.action
        hex_id, tile, rotation = str(a["hex"]), str(a["tile"]), int(a["rotation"])
        tile_id = tile.rsplit("-", 1)[0]
        shape = shapes.get(tile_id)
        turns = equivalent_rotations(shape, rotation) if shape else frozenset({rotation})
        look = (str(a["entity"]), hex_id, tile_id, turns)
        if look in shown:
            continue
        shown.add(look)
        yield la


def _gain(game: Game, corp: Corporation, action: dict[str, Any]) -> int:
    """What ``action`` brings ``corp``'s treasury, by the engine's preview (0 if it cannot say)."""
    try:
        preview = game.preview(action)
    except GameError:
        return 0
    return sum(m.after - m.before for m in preview.money if m.who == corp.sym)


def _buttons(game: Game, la: LegalAction) -> Iterator[tuple[Choice, Action]]:
    """The touch buttons of one legal action (a bid has two: the engine's offer and $20 more),
    each with the action it proposes."""
    a, kind = la.action, la.type

    def money_(amount: int | float) -> str:
        return money_in(game, amount)

    def button(
        group: str, label: str, same: tuple[Any, ...] | None = None, action: Action | None = None
    ) -> tuple[Choice, Action]:
        return Choice(group, label, same), a if action is None else action

    who = game.entity_of(a)
    if kind == "pass":
        desc = str(getattr(_step(game, who, "pass"), "description", ""))
        yield button("pass", f"Pass ({desc.lower()})" if desc else "Pass", ("pass", a["entity"]))
    elif kind == "bid":
        # a private company's auction, or (1867, 1861) a minor company's auction in a stock round
        sym = str(a["company"]) if "company" in a else str(a["corporation"])
        price = int(a["price"])
        if la.price_range is None:
            yield button("bid", f"Buy {sym} {money_(price)}")
        else:
            yield button("bid", f"Bid {sym} {money_(price)}")
            if price + 20 <= la.price_range[1]:
                yield button("bid", f"Bid {sym} {money_(price + 20)}", action={**a, "price": price + 20})
    elif kind == "par":
        yield button("par", f"Par {a['corporation']} at {money_(int(str(a['share_price']).split(',')[0]))}")
    elif kind == "buy_shares":
        shares = [game.share(i) for i in a["shares"]]
        corp = shares[0].corporation
        owner = shares[0].owner
        price = sum(s.price for s in shares)
        if isinstance(who, Corporation) and who is corp and la.cost is not None:
            # 1833NE's redemption: its price is the engine's (one column above the share price)
            n = len(shares)
            yield button("buy", f"{who.sym} redeems {plural(n, 'share')} from the market {money_(la.cost)}")
        elif isinstance(who, Corporation):
            yield button(
                "buy", f"{who.sym} buys back {corp.sym} {a['percent']}% from {owner.name} {money_(price)}"
            )
        elif len(shares) > 1:
            yield button("buy", f"Price protect {corp.sym} {a['percent']}%")
        else:
            where = "IPO" if owner is corp else "market"
            label = f"Buy {corp.sym} {shares[0].percent}% from {where} {money_(shares[0].price)}"
            yield button("buy", label, ("buy", corp.sym, where, shares[0].percent, shares[0].president))
    elif kind == "sell_shares":
        shares = [game.share(i) for i in a["shares"]]
        corp = shares[0].corporation
        if isinstance(who, Corporation):
            # what the treasury gets for them, from the engine's preview (the price is the title's)
            gain = _gain(game, who, a)
            got = f" for {money_(gain)}" if gain else ""
            yield button("sell", f"{who.sym} issues {plural(len(shares), 'share')}{got}")
        else:
            price = game.bundle_price(shares, int(a["percent"]))
            yield button("sell", f"Sell {corp.sym} {a['percent']}% for {money_(price)}")
    elif kind == "buy_train":
        train = game.train(str(a["train"]))
        price = int(a["price"])
        if "exchange" in a:
            old = game.train(str(a["exchange"]))
            label = f"Trade in {old.name} for a {train.name}-train {money_(price)}"
            yield button("train", label, ("trade", old.name, train.name, price))
        elif train.owner is None:  # a double-sided card (1833NE) on the side the buyer picks
            side = str(a.get("variant") or train.name)
            yield button("train", f"Buy a {side}-train {money_(price)}", ("depot", side, price))
        else:
            label = f"Buy {train.owner.sym}'s {train.name}-train {money_(price)} (agree a price)"
            yield button("train", label, ("other", train.owner.sym, train.name))
    elif kind == "place_token":
        yield button("token", f"Token on {_city_words(game, str(a['city']))} {money_(la.cost or 0)}")
    elif kind == "dividend":
        words = {"payout": "Pay out", "withhold": "Withhold", "half": "Pay half"}
        yield button("dividend", words.get(str(a["kind"]), str(a["kind"])))
    elif kind == "discard_train":
        yield button(
            "discard", f"Discard a {game.train(str(a['train'])).name}-train", ("discard", a["train"])
        )
    elif kind == "choose":
        yield button("choose", f"Choose {a['choice']}")
    elif kind == "buy_company":
        company = game.company(str(a["company"]))
        seller = company.owner.name if company.owner else "nobody"
        if isinstance(who, Corporation) and la.price_range is not None:
            lo, hi = la.price_range
            label = f"Buy {company.sym} from {seller} {money_(int(a['price']))} ({money_(lo)}–{money_(hi)})"
        else:
            label = f"Buy {company.sym} from {seller} {money_(int(a['price']))} (agree a price)"
        yield button("company", label)
    elif kind == "assign":
        does = game.assignment_words(a)
        yield button("company", f"{a['entity']} {does}" if does else f"{a['entity']}: token on {a['target']}")
    elif kind == "lay_tile":
        hex_id, tile_id, rotation, cost = str(a["hex"]), _printed(a["tile"]), int(a["rotation"]), la.cost or 0
        if a.get("entity_type") == "company":
            extra = f" {money_(cost)}" if cost else " free"
            yield button("company", f"{a['entity']}: {hex_id} tile {tile_id} rotation {rotation}{extra}")
        else:
            extra = f" {money_(cost)}" if cost else ""
            yield button("tile", f"{hex_id}: tile {tile_id} rotation {rotation}{extra}")
