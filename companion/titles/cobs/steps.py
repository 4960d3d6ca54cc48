"""The phases of a decade as steps on the core's rounds (docs/CoBS.md, "Rules as implemented").

Every step lists the exact actions it accepts (``legal_actions``) and refuses anything else with a
sentence, before it changes anything."""

from __future__ import annotations

from itertools import combinations, combinations_with_replacement
from typing import TYPE_CHECKING, Any

from companion.engine.errors import GameError
from companion.engine.rounds import ActionDict, LegalAction, Round, Step
from companion.engine.rounds import entity_fields as fields
from companion.titles.cobs.entities import RESOURCES, Certificate, CobsCompany, CobsPlayer

if TYPE_CHECKING:
    from companion.titles.cobs.game import CobsGame

__all__ = [
    "ActionStep",
    "AppealBonusStep",
    "BuildingStep",
    "CobsRound",
    "DrawStep",
    "OperatingStep",
    "StockStep",
]


class CobsRound(Round):
    """A phase of a decade: a named round whose steps keep their own turn order."""

    def __init__(self, game: CobsGame, name: str, step_classes: list[Any], **opts: Any) -> None:
        self.name = name
        specs = [(cls, opts) if cls is StockStep and opts else cls for cls in step_classes]
        super().__init__(game, specs)  # type: ignore[arg-type]

    def setup(self) -> None:
        self.cobs.prune_draws()

    @property
    def cobs(self) -> CobsGame:
        game: CobsGame = self.game  # type: ignore[assignment]
        return game


class CobsStep(Step):
    """A step that stays in its round until its work is done (no step is ever skipped past)."""

    game: CobsGame  # type: ignore[assignment]

    def active(self) -> bool:
        return True

    def skip(self) -> None:
        """Nothing to skip: a step with nothing to do simply does not block."""

    def actor(self) -> Any:
        return None

    def active_entities(self) -> list[Any]:
        who = self.actor()
        return [] if who is None else [who]

    def turn_check(self, entity: Any) -> None:
        if entity is not self.actor():
            raise GameError(f"it is not {entity.name}'s turn")

    def auto_actions(self, entity: Any) -> list[ActionDict]:
        """A forced single choice, taken by the rules themselves (docs/CoBS.md, "Automatic
        steps"): when whoever acts may do exactly one thing and it decides nothing, the engine does
        it right after the action before (written in that action's ``auto_actions``, so a replay
        does the same) and logs it as automatic."""
        if entity is None or entity is not self.actor():
            return []
        forced = self.forced(entity)
        if forced is None:
            return []
        self.game.forced_offer = forced
        return [forced]

    def forced(self, entity: Any) -> ActionDict | None:
        """The one action ``entity`` may take now, when there is exactly one and it names no price
        (a pass with nothing else possible, a withhold, $25 for an appeal bonus that cannot be
        used, the one building left to play); None when there is a choice."""
        legal = self.game.round.legal_actions(entity)
        if len(legal) != 1 or legal[0].price_range is not None:
            return None
        return dict(legal[0].action)


# -- random components entered as they are drawn ------------------------------------------------------------
class DrawStep(CobsStep):
    """The next random component drawn (a demand tile, a capital asset, a resource from the bag),
    entered by the player with the priority deal: the legal choices are what can be drawn."""

    description = "Enter what was drawn"

    def actor(self) -> Any:
        if not self.game.pending_draws:
            return None
        return self.game.players[self.game.priority]

    def actions(self, entity: Any) -> list[str]:
        return ["draw", "draw_all"] if entity is self.actor() else []

    def forced(self, entity: Any) -> ActionDict | None:
        """The next draw when the deck or the bag can give only one thing (the last demand tile of
        the lowest pips, Brilliant Marketing after the starting assets, the one resource left in the
        bag): nothing is left to chance or to choose, so it is entered automatically."""
        kind, slot = self.game.pending_draws[0]
        choices = self.game.draw_choices(kind)
        if len(choices) != 1:
            return None
        return {"type": "draw", **fields(entity), "kind": kind, "place": slot, "item": choices[0]}

    def legal_actions(self, entity: Any) -> list[LegalAction]:
        if "draw" not in self.actions(entity):
            return []
        kind, slot = self.game.pending_draws[0]
        one_by_one = [
            LegalAction(
                {"type": "draw", **fields(entity), "kind": kind, "place": slot, "item": item},
                () if kind == "supply" else (item,),  # a tile (demand, capital asset, goal) may be tagged
            )
            for item in self.game.draw_choices(kind)
        ]
        if len(self.game.pending_draws) < 2:
            return one_by_one
        # or the companion draws everything still pending for the players, who lay it out as shown
        every = LegalAction({"type": "draw_all", **fields(entity), "draws": self.game.random_draws()})
        return [*one_by_one, every]

    def process_draw(self, action: ActionDict) -> None:
        self.turn_check(self.game.entity_of(action))
        self.game.enter_draw(action.get("kind"), action.get("place"), action.get("item"))

    def process_draw_all(self, action: ActionDict) -> None:
        """Every pending draw at once, in order (the companion's random draws, or any the bag and
        the decks could give); nothing may be left pending."""
        self.turn_check(self.game.entity_of(action))
        draws = action["draws"]
        if len(draws) != len(self.game.pending_draws):
            raise GameError(
                f"{len(self.game.pending_draws)} components are waiting to be drawn, not {len(draws)}"
            )
        for draw in draws:
            self.game.enter_draw(draw["kind"], draw["place"], draw["item"])


# -- appeal bonuses ---------------------------------------------------------------------------------------
class AppealBonusStep(CobsStep):
    """A company that reached an appeal bonus takes it or $25 instead (its director decides)."""

    description = "Take the appeal bonus or $25"

    def actor(self) -> Any:
        if not self.game.pending_bonuses:
            return None
        return self.game.company(self.game.pending_bonuses[0][0])

    def actions(self, entity: Any) -> list[str]:
        return ["appeal_bonus"] if entity is self.actor() else []

    def bonus_possible(self, co: CobsCompany, bonus: str) -> bool:
        g = self.game
        if bonus == "worker":
            return g.worker_room(co) > 0
        if bonus == "salesperson":
            return co.salespeople < co.max_salespeople
        if bonus == "automation":
            return g.automatable(co) > 0
        if bonus == "good":
            return g.bonus_goods_left > 0
        if bonus == "partner":  # a player gains one partner from appeal, once
            return co.owner is not None and not co.owner.appeal_partner_gained
        return bonus == "bump"

    def legal_actions(self, entity: Any) -> list[LegalAction]:
        if "appeal_bonus" not in self.actions(entity):
            return []
        bonus = self.game.pending_bonuses[0][1]
        base = {"type": "appeal_bonus", **fields(entity), "bonus": bonus}
        out = [LegalAction({**base, "take": "cash"})]
        if bonus == "worker":
            for n in self.game.factory_choices(entity, bonus):
                out.append(LegalAction({**base, "take": "bonus", "factory": n}))
        elif bonus == "automation":
            for where in self.game.automation_choices(entity):
                out.append(LegalAction({**base, "take": "bonus", **where}))
        elif self.bonus_possible(entity, bonus):
            out.append(LegalAction({**base, "take": "bonus"}))
        return out

    def process_appeal_bonus(self, action: ActionDict) -> None:
        g = self.game
        co = g.entity_of(action)
        self.turn_check(co)
        bonus = g.pending_bonuses[0][1]
        take = action.get("take")
        if take == "cash" and ("factory" in action or "relocate" in action):
            raise GameError(f"{co.name} takes $25 instead of the bonus: no factory to name")
        if take == "cash":
            amount = int(g.data["appeal_track"]["cash_instead"])
            g.bank.spend(amount, co)
            g.log.append(f"{co.name} takes ${amount} instead of the appeal bonus ({bonus})")
        elif take == "bonus":
            if not self.bonus_possible(co, bonus):
                raise GameError(f"{co.name} cannot use the appeal bonus ({bonus}) now; take $25 instead")
            factory = action.get("factory")
            if bonus not in ("worker", "automation") and (factory is not None or "relocate" in action):
                raise GameError(f"the appeal bonus ({bonus}) goes to no factory")
            where = {k: action[k] for k in ("factory", "relocate") if k in action}
            if bonus == "automation" and where not in g.automation_choices(co):
                choices = "; ".join(
                    f"factory {c['factory']}"
                    + (f", its worker to factory {c['relocate']}" if "relocate" in c else "")
                    for c in g.automation_choices(co)
                )
                raise GameError(f"name the factory for the automation and where its worker goes: {choices}")
            if bonus == "worker" and ("relocate" in action or factory not in g.factory_choices(co, bonus)):
                choices = ", ".join(str(n) for n in g.factory_choices(co, bonus))
                raise GameError(f"name the factory for the {bonus}: one of {choices}, not {factory!r}")
            if bonus == "worker":
                co.factories[int(str(factory)) - 1].workers += 1
            elif bonus == "salesperson":
                co.salespeople += 1
            elif bonus == "automation":
                relocate = action.get("relocate")
                g.automate(co, int(str(factory)), relocate if isinstance(relocate, int) else None)
            elif (
                bonus == "good"
            ):  # a token: a good each operating turn (:meth:`OperatingStep.make_bonus_goods`)
                g.bonus_goods_left -= 1
                co.bonus_goods += 1
            elif bonus == "bump":
                g.move_share_value(co, 1)
            elif bonus == "partner" and co.owner is not None:
                co.owner.appeal_partner_gained = True
                co.owner.partners += 1
                co.owner.free_partners += 1
            g.log.append(f"{co.name} takes the appeal bonus: {bonus}")
        else:
            raise GameError(f"an appeal bonus is taken as 'bonus' or 'cash', not {take!r}")
        g.pending_bonuses.pop(0)


ADVANCED = "advanced"
FRIENDLY = "friendly_stock_sales"
GOALS = "public_goals"


# -- stock phase ------------------------------------------------------------------------------------------
class StockStep(CobsStep):
    """The stock phase: sell any number of certificates, then buy one (or start a company), or pass.
    With ``first``: each player in turn starts their first company."""

    description = "Stock phase"

    def __init__(self, game: CobsGame, round_: Round, *, first: bool = False) -> None:
        super().__init__(game, round_)  # type: ignore[arg-type]
        self.first = first
        self.order: list[CobsPlayer] = game.turn_order()
        self.index = 0
        self.passes = 0
        self.sold = False
        self.last_actor: CobsPlayer | None = None
        self.dropped: set[str] = set()
        """Companies whose share value a friendly sale moved this turn."""
        self.done = False

    def actor(self) -> Any:
        return None if self.done else self.order[self.index]

    def actions(self, entity: Any) -> list[str]:
        if entity is not self.actor():
            return []
        if self.first:
            return ["par"]
        out = ["sell_shares", "buy_shares"]
        if self.game.decade > 1:
            out.append("par")
        return [*out, "pass"]

    # -- what a player may hold
    def hold_refusal(self, player: CobsPlayer, cert: Certificate) -> str | None:
        g = self.game
        co = cert.company
        if len(player.certificates) + 1 > g.cert_limit():
            return f"{player.name} is at the certificate limit of {g.cert_limit()}"
        if g.shares_of(player, co) + cert.shares > int(g.data["max_shares_per_company"]):
            return f"{player.name} may hold at most {g.data['max_shares_per_company']} shares of {co.name}"
        kinds = {c.kind for c in player.certificates if c.company is co} | {cert.kind}
        if {"director", "preferred"} <= kinds:
            return (
                f"{player.name} may not hold both the director's and the preferred certificate of {co.name}"
            )
        if player.cash < cert.price:
            return f"{player.name} has ${player.cash} and cannot pay ${cert.price} for {cert.id}"
        return None

    def buy_refusal(self, player: CobsPlayer, cert: Certificate) -> str | None:
        co = cert.company
        if not co.started:
            return f"{co.name} has not been started"
        if cert.owner is player or isinstance(cert.owner, CobsPlayer):
            return f"{cert.id} belongs to {cert.owner.name}"
        if co.sym in player.sold_this_decade:
            return f"{player.name} sold {co.name} this decade and may not buy it again until the next"
        return self.hold_refusal(player, cert)

    def par_refusal(self, player: CobsPlayer, co: CobsCompany, value: Any) -> str | None:
        g = self.game
        starts = [int(v) for v in g.data["starting_share_values"]]
        if co.started:
            return f"{co.name} has already been started"
        if value not in starts:
            return f"a company starts at {', '.join(f'${v}' for v in starts)}, not {value!r}"
        director = co.all_certificates[0]
        if len(player.certificates) + 1 > g.cert_limit():
            return f"{player.name} is at the certificate limit of {g.cert_limit()}"
        if player.cash < director.shares * int(value):
            return f"{player.name} has ${player.cash} and cannot pay ${director.shares * int(value)} to start {co.name}"
        return None

    def legal_actions(self, entity: Any) -> list[LegalAction]:
        kinds = self.actions(entity)
        if not kinds:
            return []
        out: list[LegalAction] = []
        g = self.game
        if "par" in kinds:
            for co in g.companies:
                for v in g.data["starting_share_values"]:
                    if self.par_refusal(entity, co, int(v)) is None:
                        out.append(
                            LegalAction(
                                {
                                    "type": "par",
                                    **fields(entity),
                                    "corporation": co.sym,
                                    "share_price": int(v),
                                },
                                (co.all_certificates[0].id, co.sym),  # the certificate or the charter
                            )
                        )
        if "sell_shares" in kinds:
            for cert in entity.certificates:
                if self.sale_refusal(entity, cert) is None:
                    out.append(
                        LegalAction(
                            {"type": "sell_shares", **fields(entity), "shares": [cert.id]}, (cert.id,)
                        )
                    )
        if "buy_shares" in kinds:
            for co in g.started_companies():
                for cert in co.all_certificates:
                    if not isinstance(cert.owner, CobsPlayer) and self.buy_refusal(entity, cert) is None:
                        out.append(
                            LegalAction(
                                {"type": "buy_shares", **fields(entity), "shares": [cert.id]}, (cert.id,)
                            )
                        )
        if "pass" in kinds:
            out.append(LegalAction({"type": "pass", **fields(entity)}))
        return out

    def one_certificate(self, action: ActionDict) -> Certificate:
        shares = action.get("shares")
        if not isinstance(shares, list) or len(shares) != 1:
            raise GameError("name one certificate at a time (shares: [id])")
        return self.game.certificate(shares[0])

    def process_par(self, action: ActionDict) -> None:
        g = self.game
        player = g.entity_of(action)
        self.turn_check(player)
        if "par" not in self.actions(player):
            raise GameError("no company may be started in the first decade's stock phase")
        co = g.company(action.get("corporation"))
        value = action.get("share_price")
        reason = self.par_refusal(player, co, value)
        if reason:
            raise GameError(reason)
        director = co.all_certificates[0]
        co.started = True
        g.started_count += 1
        co.started_order = g.started_count
        co.owner = player
        co.step = g.share_values.index(int(str(value)))
        co.appeal = int(co.spec["initial_appeal"])  # the initial appeal earns no bonus
        director.owner = player
        player.certificates.append(director)
        co.certificates = list(co.all_certificates[1:])
        price = director.shares * int(str(value))
        player.spend(price, co)
        if self.first:
            player.first_company = co.sym
        g.log.append(f"{player.name} starts {co.name} at ${value} (pays ${price})")
        self.last_actor = player
        self.passes = 0
        self.end_turn()

    def certificate_turn(self, action: ActionDict) -> tuple[CobsPlayer, Certificate]:
        """The player whose turn it is and the one certificate a buy or a sale names."""
        player = self.game.entity_of(action)
        self.turn_check(player)
        if self.first:
            raise GameError("first each player starts a company")
        return player, self.one_certificate(action)

    def process_buy_shares(self, action: ActionDict) -> None:
        g = self.game
        player, cert = self.certificate_turn(action)
        reason = self.buy_refusal(player, cert)
        if reason:
            raise GameError(reason)
        co = cert.company
        price = cert.price
        if cert.owner is co:
            co.certificates.remove(cert)
            player.spend(price, co)
            source = f"{co.name}'s treasury"
        else:
            g.pool.certificates.remove(cert)
            player.spend(price, g.bank)
            source = "the bank pool"
        cert.owner = player
        player.certificates.append(cert)
        g.log.append(f"{player.name} buys {cert.id} ({cert.kind}) from {source} for ${price}")
        self.last_actor = player
        self.passes = 0
        self.end_turn()

    # -- the advanced rules' change of director
    def left_of(self, player: CobsPlayer) -> list[CobsPlayer]:
        ps = self.game.players
        i = ps.index(player)
        return [ps[(i + k) % len(ps)] for k in range(1, len(ps))]

    def new_director(self, player: CobsPlayer, cert: Certificate) -> CobsPlayer | None:
        """Who becomes director if ``player`` sells ``cert`` (advanced rules): for the director's
        certificate, the first player to the left with 3 shares; for another, the player (first to
        the left among equals) who then holds more shares than the director."""
        g = self.game
        co = cert.company
        if ADVANCED not in g.optional_rules or co.owner is not player:
            return None
        others = self.left_of(player)
        if cert.kind == "director":
            return next((p for p in others if g.shares_of(p, co) >= 3), None)
        left = g.shares_of(player, co) - cert.shares
        best = max(g.shares_of(p, co) for p in others)
        return next(p for p in others if g.shares_of(p, co) == best) if best > left else None

    def handover(self, new: CobsPlayer, co: CobsCompany) -> list[Certificate]:
        """What a new director gives for the director's certificate: 3 shares' worth, the preferred
        and a common if they hold the preferred, else three common certificates."""
        held = [c for c in new.certificates if c.company is co]
        preferred = [c for c in held if c.kind == "preferred"]
        common = [c for c in held if c.kind == "common"]
        return [*preferred[:1], *common[:1]] if preferred else common[:3]

    def sale_refusal(self, player: CobsPlayer, cert: Certificate) -> str | None:
        g = self.game
        co = cert.company
        if cert.owner is not player:
            return f"{player.name} does not hold {cert.id}"
        new = self.new_director(player, cert)
        if cert.kind == "director":
            if ADVANCED not in g.optional_rules:
                return f"the director's certificate of {co.name} is not sold (the advanced rules allow it)"
            if new is None:
                return f"no other player holds 3 shares of {co.name} to take over as its director"
        elif new is not None:
            count = len(player.certificates) - 1 + len(self.handover(new, co))
            if count > g.cert_limit():
                return (
                    f"selling {cert.id} would make {new.name} director of {co.name}, handing {player.name} "
                    f"certificates beyond the limit of {g.cert_limit()}"
                )
        return None

    @staticmethod
    def move(cert: Certificate, to: Any) -> None:
        cert.owner.certificates.remove(cert)
        cert.owner = to
        to.certificates.append(cert)

    def change_director(self, old: CobsPlayer, new: CobsPlayer, co: CobsCompany, sold: bool) -> None:
        """``new`` takes the director's certificate; for it they give 3 shares' worth to ``old``, or
        to the bank pool where ``old`` sold the director's certificate (then, where ``old`` still
        holds two shares, the preferred goes to ``old`` and ``old`` puts two common ones in the pool)."""
        g = self.game
        gives = self.handover(new, co)
        self.move(co.all_certificates[0], new)
        if not sold:
            for c in gives:
                self.move(c, old)
        elif gives[0].kind == "preferred" and g.shares_of(old, co) >= 2:
            self.move(gives[0], old)
            for c in [c for c in old.certificates if c.company is co and c.kind == "common"][:2]:
                self.move(c, g.pool)
            self.move(gives[1], g.pool)
        else:
            for c in gives:
                self.move(c, g.pool)
        co.owner = new
        if old.first_company == co.sym:
            old.first_company = None  # no more the first company's partner bonus
        g.log.append(f"{new.name} becomes director of {co.name}")

    def process_sell_shares(self, action: ActionDict) -> None:
        g = self.game
        player, cert = self.certificate_turn(action)
        reason = self.sale_refusal(player, cert)
        if reason:
            raise GameError(reason)
        co = cert.company
        price = cert.price
        new = self.new_director(player, cert)
        director = co.owner
        g.bank.spend(price, player)
        player.sold_this_decade.add(co.sym)
        g.log.append(f"{player.name} sells {cert.id} for ${price}")
        if cert.kind != "director":
            self.move(cert, g.pool)
        if new is not None:
            self.change_director(player, new, co, sold=cert.kind == "director")
        if g.has_price_protection(co) and director is not player:
            g.log.append(f"price protection keeps {co.name}'s share value")
        elif FRIENDLY in g.optional_rules and director is not player:
            if co.sym not in self.dropped:  # friendly stock sales: one step a turn, however many shares
                g.move_share_value(co, -1)
            self.dropped.add(co.sym)
        else:
            g.move_share_value(co, -cert.shares)
        self.sold = True
        self.last_actor = player

    def process_pass(self, action: ActionDict) -> None:
        player = self.game.entity_of(action)
        self.turn_check(player)
        if self.first:
            raise GameError(f"{player.name} must start a company first")
        self.passes = 0 if self.sold else self.passes + 1
        self.end_turn()

    def end_turn(self) -> None:
        g = self.game
        self.sold = False
        self.dropped = set()
        self.index = (self.index + 1) % len(self.order)
        if self.first:
            if self.index == 0:
                self.done = True
            return
        if self.passes >= len(self.order):
            self.done = True
            if self.last_actor is not None:
                g.priority = (g.players.index(self.last_actor) + 1) % len(g.players)
            for co in g.started_companies():
                if not co.certificates and not any(c.owner is g.pool for c in co.all_certificates):
                    g.log.append(f"{co.name} is wholly owned by players")
                    g.move_share_value(co, 1)


# -- building phase ---------------------------------------------------------------------------------------
class BuildingStep(CobsStep):
    """Each player enters the building they play (revealed together); the labour market fills."""

    description = "Building phase: enter the building each player plays"

    def __init__(self, game: CobsGame, round_: Round) -> None:
        super().__init__(game, round_)  # type: ignore[arg-type]
        self.order = game.turn_order()
        self.index = 0

    def actor(self) -> Any:
        return self.order[self.index] if self.index < len(self.order) else None

    def actions(self, entity: Any) -> list[str]:
        return ["play_building"] if entity is self.actor() and self.choices() else []

    def choices(self) -> list[str]:
        """The buildings a player may play: any not yet played of this decade's era, or of an earlier
        one (the building a player kept from an earlier decade's hand)."""
        g = self.game
        era = int(g.data["building_era_by_decade"][g.decade - 1])
        return [b for b in g.building_deck if int(g.data_of("buildings", b)["pips"]) <= era]

    def legal_actions(self, entity: Any) -> list[LegalAction]:
        if not self.actions(entity):
            return []
        return [
            LegalAction({"type": "play_building", **fields(entity), "building": b}, (b,))
            for b in self.choices()
        ]

    def process_play_building(self, action: ActionDict) -> None:
        g = self.game
        player = g.entity_of(action)
        self.turn_check(player)
        b = action.get("building")
        if b not in self.choices():
            raise GameError(f"{b!r} is not a building of this decade's deck still to be played")
        g.building_deck.remove(str(b))
        player.buildings.append(str(b))
        g.building_owner[str(b)] = player.id
        added = int(g.data_of("buildings", str(b))["workers"])
        g.labour_market = min(int(g.data["labour_market_max"]), g.labour_market + added)
        g.log.append(f"{player.name} plays {b}")
        self.index += 1


# -- action phase -----------------------------------------------------------------------------------------
GENERAL = "general_action_spaces"


class ActionStep(CobsStep):
    """Players in the turn-order track's order place a partner on an action space for one of the
    companies they direct, one each in a sequence; a sequence over, the next goes in the new order
    (players who took advertising's first place go first, the last to take it first of all)."""

    description = "Action phase: place a partner"

    def __init__(self, game: CobsGame, round_: Round) -> None:
        super().__init__(game, round_)  # type: ignore[arg-type]
        self.order = [game.player(pid) for pid in game.turn_track]
        self.index = 0
        self.next_order = list(self.order)

    def actor(self) -> Any:
        for p in [*self.order[self.index :], *self.order]:
            if p.free_partners > 0:
                return p
        return None

    def actions(self, entity: Any) -> list[str]:
        return ["place_partner", "use_asset", "pass"] if entity is self.actor() else []

    # -- the spaces
    def space(self, space: str) -> tuple[dict[str, Any], Any]:
        """The space's facts and who is paid for it (None: a general space; else the building's owner)."""
        g = self.game
        for s in g.data[GENERAL]:
            if s["id"] == space:
                return dict(s), None
        if space in g.building_owner:
            b = g.data_of("buildings", space)
            return b, g.player(g.building_owner[space])
        raise GameError(f"{space!r} is not an action space in play")

    def options(self, co: CobsCompany, space: str) -> list[dict[str, Any]]:
        """The choices a space offers ``co`` now (each an extra set of action fields); [] if none."""
        g = self.game
        facts, owner = self.space(space)
        occupied = g.occupied.get(space, 0)
        if (owner is not None or facts.get("limited")) and occupied:
            return []
        if g.decade < int(facts.get("from_decade", 1)):
            return []  # the $60 fundraising space opens in the third decade, the $80 one in the fifth
        effect: dict[str, Any] = dict(facts.get("effect") or {})
        cost = int(facts.get("cost", 0))
        pays = owner is not None and facts["payer"] == "company" or facts.get("payment") == "company_to_bank"
        need = cost if pays else 0
        if space == "job_market_worker":
            need = self.worker_cost()
            effect = {"workers": 1}
        if space == "extra_dividends":
            need = cost
        if "dividend" in effect:
            need += int(effect["dividend"])
        if co.cash < need:
            return []
        if effect.get("workers") and g.worker_room(co) < 1:
            return []
        if effect.get("managers") and g.manager_room(co) < 1:
            return []
        if effect.get("salespeople") and co.salespeople >= co.max_salespeople:
            return []
        if effect.get("automation") and g.automatable(co) < 1:
            return []
        if space == "capital_investment" or "asset_discount" in effect:
            discount = int(effect.get("asset_discount", 0))
            out: list[dict[str, Any]] = []
            for s, a in sorted(g.asset_slots.items()):
                if a is None or co.cash < need + max(0, s - discount):
                    continue
                bonus = str(g.data_of("capital_assets", a)["bonus"])
                where: list[dict[str, Any]] = []
                if "worker" in bonus:
                    where = [{"factory": n} for n in g.factory_choices(co, "worker")]
                elif "automation" in bonus:
                    where = list(g.automation_choices(co))
                out += [{"slot": s, **w} for w in where] if where else [{"slot": s}]
            return out
        if space == "advertising":
            return [{"first": True}, {"first": False}]
        if "like_resources" in effect:
            return [{"resource": r} for r in RESOURCES]
        if "unlike_resources" in effect:
            return [{"resources": [a, b]} for a, b in combinations(RESOURCES, 2)]
        if set(effect) == {"workers"} and int(effect["workers"]) == 1:
            return [{"factory": f.number} for f in co.factories if f.room > 0]
        if set(effect) == {"automation"} and int(effect["automation"]) == 1:
            return list(g.automation_choices(co))
        if set(effect) == {"automation"}:  # two at once: where each goes, in order
            return list(g.automation_orders(co, int(effect["automation"])))
        if set(effect) == {"managers"} and int(effect["managers"]) == 1:
            return [{"factory": f.number} for f in co.factories if not f.manager]
        if ("workers" in effect or "managers" in effect) and "automation" not in effect:
            return self.placements(co, effect)
        return [{}]

    @staticmethod
    def placements(co: CobsCompany, effect: dict[str, Any]) -> list[dict[str, Any]]:
        """Where the workers and managers of a building giving several (or a worker and a manager,
        or a worker and a salesperson) go: ``worker_factories`` (a factory twice for two workers
        where it has room for both) and ``manager_factories`` (different factories without one),
        as many as the company has room for."""
        rooms = {f.number: f.room for f in co.factories if f.room > 0}
        free = [f.number for f in co.factories if not f.manager]
        workers = min(int(effect.get("workers", 0)), sum(rooms.values()))
        managers = min(int(effect.get("managers", 0)), len(free))
        worker_sets = [
            list(ws)
            for ws in combinations_with_replacement(sorted(rooms), workers)
            if all(ws.count(n) <= rooms[n] for n in set(ws))
        ]
        manager_sets = [list(ms) for ms in combinations(free, managers)]
        out: list[dict[str, Any]] = []
        for ws in worker_sets:
            for ms in manager_sets:
                choice: dict[str, Any] = {}
                if "workers" in effect:
                    choice["worker_factories"] = ws
                if "managers" in effect:
                    choice["manager_factories"] = ms
                out.append(choice)
        return out

    def worker_cost(self) -> int:
        costs = self.game.data["job_market_cost"]
        return int(costs[min(self.game.labour_market, len(costs) - 1)])

    def spaces(self) -> list[str]:
        return [str(s["id"]) for s in self.game.data[GENERAL]] + list(self.game.building_owner)

    def legal_actions(self, entity: Any) -> list[LegalAction]:
        if not self.actions(entity):
            return []
        out: list[LegalAction] = []
        for co in self.game.started_companies():
            if co.owner is not entity:
                continue
            for space in self.spaces():
                for extra in self.options(co, space):
                    # a tap on the building (a tile on its owner's track) or on the capital asset means it
                    cards = (space,) if space in self.game.building_owner else ()
                    if "slot" in extra:
                        cards = (*cards, str(self.game.asset_slots[int(extra["slot"])]))
                    out.append(
                        LegalAction(
                            {
                                "type": "place_partner",
                                **fields(entity),
                                "space": space,
                                "corporation": co.sym,
                                **extra,
                            },
                            cards,
                        )
                    )
            for a in self.game.usable_assets(co, operating=False):
                out.append(
                    LegalAction(
                        {"type": "use_asset", **fields(entity), "corporation": co.sym, "asset": a}, (a,)
                    )
                )
        out.append(LegalAction({"type": "pass", **fields(entity)}))
        return out

    def directed(self, action: ActionDict) -> tuple[CobsPlayer, CobsCompany]:
        """The player whose turn it is and the company they act for (one they direct)."""
        player = self.game.entity_of(action)
        self.turn_check(player)
        co = self.game.company(action.get("corporation"))
        if co.owner is None or co.owner.id != player.id:
            raise GameError(f"{player.name} is not the director of {co.name}")
        return player, co

    def process_use_asset(self, action: ActionDict) -> None:
        """A company the player directs exhausts a capital asset in the player's turn (no partner)."""
        g = self.game
        _, co = self.directed(action)
        asset = action.get("asset")
        if asset not in g.usable_assets(co, operating=False):
            raise GameError(f"{co.name} cannot use the capital asset {asset!r} in the action phase")
        g.exhaust_asset(co, str(asset))

    def process_pass(self, action: ActionDict) -> None:
        player = self.game.entity_of(action)
        self.turn_check(player)
        self.game.log.append(f"{player.name} passes with {player.free_partners} partner(s) unplaced")
        player.free_partners = 0
        self.advance(player)

    def advance(self, player: CobsPlayer) -> None:
        """On to the next player in this sequence; after its last, a new sequence in the new order."""
        self.index = self.order.index(player) + 1
        if not any(p.free_partners > 0 for p in self.order[self.index :]):
            self.order = list(self.next_order)
            self.game.turn_track = [p.id for p in self.order]
            self.index = 0

    def process_place_partner(self, action: ActionDict) -> None:
        g = self.game
        player, co = self.directed(action)
        space = str(action.get("space"))
        facts, owner = self.space(space)
        choice: dict[str, Any] = {
            k: action[k]
            for k in (
                "slot",
                "resource",
                "resources",
                "factory",
                "first",
                "worker_factories",
                "manager_factories",
                "automation_factories",
                "relocate",
                "relocate_factories",
            )
            if k in action
        }
        if choice not in self.options(co, space):
            raise GameError(f"{co.name} cannot use {space} {self.describe(choice)}now")
        effect: dict[str, Any] = dict(facts.get("effect") or {})
        cost = int(facts.get("cost", 0))
        if owner is not None:
            if facts["payer"] == "company":
                co.spend(cost, owner)
            else:
                g.bank.spend(cost, owner)
        elif space == "job_market_worker":
            co.spend(self.worker_cost(), g.bank)
            g.labour_market = max(0, g.labour_market - 1)
            effect = {"workers": 1}
        elif facts.get("payment") == "company_to_bank":
            co.spend(cost, g.bank)
        elif facts.get("payment") == "bank_to_company":
            g.bank.spend(cost, co)
        elif space == "extra_dividends":
            g.pay_shareholders(co, cost, co)
        if space == "capital_investment" or "asset_discount" in effect:
            discount = int(effect.get("asset_discount", 0))
            self.buy_asset(co, int(action["slot"]), discount, action.get("factory"), action.get("relocate"))
        else:
            self.apply_effect(co, effect, action)
        if action.get("first") is True:  # first in the next sequence
            self.next_order.remove(player)
            self.next_order.insert(0, player)
            g.log.append(f"{player.name} will be first in the next action sequence")
        g.occupied[space] = g.occupied.get(space, 0) + 1
        player.free_partners -= 1
        g.log.append(f"{player.name} places a partner on {space} for {co.name}")
        self.advance(player)
        g.prune_draws()

    @staticmethod
    def describe(choice: dict[str, Any]) -> str:
        return "".join(f"({k} {v}) " for k, v in choice.items())

    def buy_asset(
        self, co: CobsCompany, slot: int, discount: int, factory: Any = None, relocate: Any = None
    ) -> None:
        """Buy the asset on ``slot``; its immediate bonus worker or automation goes to ``factory``
        (the worker an automation frees to ``relocate``)."""
        g = self.game
        asset = g.asset_slots[slot]
        assert asset is not None
        co.spend(max(0, slot - discount), g.bank)
        g.asset_slots[slot] = None
        co.assets.append(asset)
        g.log.append(f"{co.name} buys the capital asset {asset} for ${max(0, slot - discount)}")
        bonus = str(g.data_of("capital_assets", asset)["bonus"])
        if "worker" in bonus and isinstance(factory, int):
            co.factories[factory - 1].workers += 1
        if "automation" in bonus and isinstance(factory, int):
            g.automate(co, factory, relocate if isinstance(relocate, int) else None)
        if "appeal" in bonus:
            g.raise_appeal(co, 2)
        g.shift_assets()

    def apply_effect(self, co: CobsCompany, effect: dict[str, Any], action: ActionDict) -> None:
        g = self.game
        chosen = action.get("factory")
        if "workers" in effect and isinstance(chosen, int):
            co.factories[chosen - 1].workers += 1  # one worker, into the factory the player chose
        elif "workers" in effect:
            for n in action.get("worker_factories") or []:
                co.factories[int(n) - 1].workers += 1  # into the factories the player chose
        if "managers" in effect and isinstance(chosen, int):
            co.factories[chosen - 1].manager = True
        elif "managers" in effect:
            for n in action.get("manager_factories") or []:
                co.factories[int(n) - 1].manager = True
        if "salespeople" in effect:
            co.salespeople = min(co.max_salespeople, co.salespeople + int(effect["salespeople"]))
        if "automation" in effect and "automation_factories" in action:
            moves = [int(n) for n in action.get("relocate_factories") or []]
            for i, n in enumerate(action["automation_factories"]):
                g.automate(co, int(n), moves[i] if i < len(moves) else None)
        elif "automation" in effect and isinstance(chosen, int):
            relocate = action.get("relocate")
            g.automate(co, chosen, relocate if isinstance(relocate, int) else None)
        if "appeal" in effect:
            g.raise_appeal(co, int(effect["appeal"]))
        if "goods" in effect:
            co.goods += int(effect["goods"])
        if "resources" in effect:
            g.take_from_haymarket(co, [str(r) for r in effect["resources"]])
        if "like_resources" in effect:
            g.take_from_haymarket(co, [str(action["resource"])] * int(effect["like_resources"]))
        if "unlike_resources" in effect:
            g.take_from_haymarket(co, [str(r) for r in action["resources"]])
        if "dividend" in effect:
            g.pay_shareholders(co, int(effect["dividend"]), co)


# -- operating phase ---------------------------------------------------------------------------------------
class OperatingStep(CobsStep):
    """Companies from highest to lowest appeal: buy resources, run factories left to right, sell
    goods, then pay or withhold the operating revenue."""

    description = "Operating phase"

    def __init__(self, game: CobsGame, round_: Round) -> None:
        super().__init__(game, round_)  # type: ignore[arg-type]
        self.done: set[str] = set()
        self.stage = 0
        """0: buying resources, 1: producing, 2: selling (a stage, once left, is not returned to)."""
        self.began = False
        """The operating company has done something this turn (emergency fundraising comes first)."""
        game.refill_chain()  # before each company's turn

    def actor(self) -> Any:
        for co in self.game.operating_order():
            if co.sym not in self.done:
                return co
        return None

    def actions(self, entity: Any) -> list[str]:
        if entity is not self.actor():
            return []
        kinds = ["buy_resource", "produce", "sell_goods", "use_asset", "trade_resources", "dividend"]
        if ADVANCED in self.game.optional_rules:
            kinds.append("emergency_fundraise")
        return kinds

    def fundraise_options(self, co: CobsCompany) -> list[list[str]]:
        """The certificates the company may sell from its treasury (advanced rules), at the start of
        its turn: the preferred or not, and so many common ones (the first in the treasury)."""
        if ADVANCED not in self.game.optional_rules or self.began:
            return []
        preferred = [c.id for c in co.certificates if c.kind == "preferred"]
        common = [c.id for c in co.certificates if c.kind == "common"]
        out = []
        for pref in ([], preferred[:1]) if preferred else ([],):
            for k in range(len(common) + 1):
                if pref or k:
                    out.append([*pref, *common[:k]])
        return out

    def trade_options(self, co: CobsCompany) -> list[dict[str, str]]:
        """Two like resources of the company for one other from Haymarket Square."""
        return [
            {"give": a, "take": b}
            for a in RESOURCES
            for b in RESOURCES
            if a != b and co.resources[a] >= 2 and self.game.haymarket[b] > 0
        ]

    # -- what the company may do
    def buy_options(self, co: CobsCompany) -> list[dict[str, Any]]:
        if self.stage > 0:
            return []
        return [
            {"spot": spot, "resource": r}
            for spot, held in sorted(self.game.supply.items())
            for r in RESOURCES
            if held[r] > 0 and co.cash >= spot
        ]

    def produce_refusal(self, co: CobsCompany, number: Any) -> str | None:
        if self.stage > 1:
            return f"{co.name} has started selling and runs no more factories"
        if not isinstance(number, int) or not 1 <= number <= len(co.factories):
            return f"{co.name} has factories 1 to {len(co.factories)}, not {number!r}"
        f = co.factories[number - 1]
        if f.produced:
            return f"{co.name}'s factory {number} has already produced"
        if not all(x.produced for x in co.factories[: number - 1]):
            return f"{co.name}'s factory {number} runs only after every factory to its left has produced"
        if not f.staffed:
            return (
                f"{co.name}'s factory {number} needs {f.required} workers, it has {f.workers + f.automated}"
            )
        need: dict[str, int] = {}
        for r in f.recipe:
            need[r] = need.get(r, 0) + 1
        short = [r for r, k in need.items() if co.resources[r] < k]
        if short:
            return f"{co.name}'s factory {number} lacks {', '.join(short)}"
        return None

    def manager_resource_options(self, co: CobsCompany, number: int) -> list[dict[str, Any]]:
        """What a run of factory ``number`` may name: with a manager whose bonus is resources, the
        ``bonus_resources`` taken from Haymarket Square (any kinds there once the run's own resources
        are back in it, up to the bonus's number, fewer if the player likes); else nothing."""
        f = co.factories[number - 1]
        count = int(f.spec["manager_bonus"].get("resource", 0)) if f.manager else 0
        if not count:
            return [{}]
        there = dict(self.game.haymarket)
        for r in f.recipe:
            there[r] = there.get(r, 0) + 1
        out: list[dict[str, Any]] = []
        for size in range(count + 1):
            for pick in combinations_with_replacement(RESOURCES, size):
                if all(pick.count(r) <= there.get(r, 0) for r in set(pick)):
                    out.append({"bonus_resources": list(pick)})
        return out

    def goods_to_sell(self, co: CobsCompany) -> int:
        """The goods ``co`` may sell now: those it has and, until it starts selling, its appeal bonus
        goods tokens' goods (made when production ends: at the first sale or at the dividend)."""
        return co.goods + (co.bonus_goods if self.stage < 2 else 0)

    def make_bonus_goods(self, co: CobsCompany) -> None:
        """Production ends: each appeal bonus goods token makes a good (a token gained after this
        comes to the next operating turn)."""
        if self.stage < 2 and co.bonus_goods:
            co.goods += co.bonus_goods
            made = co.bonus_goods
            self.game.log.append(
                f"{co.name}'s appeal bonus goods tokens make {made} good{'s' if made != 1 else ''}"
            )

    def sell_options(self, co: CobsCompany) -> list[str]:
        if self.goods_to_sell(co) <= 0:
            return []
        g = self.game
        out = []
        for slot, entry in g.demand_slots.items():
            if slot.startswith(co.kind + "_") and entry["goods"] < g.demand_of(slot):
                out.append(slot)
        return [*out, "bank"]

    def asset_options(self, co: CobsCompany) -> list[str]:
        return self.game.usable_assets(co, operating=True)

    def legal_actions(self, entity: Any) -> list[LegalAction]:
        if not self.actions(entity):
            return []
        co: CobsCompany = entity
        f = fields(co)
        out = [LegalAction({"type": "buy_resource", **f, **o}) for o in self.buy_options(co)]
        out += [
            LegalAction({"type": "produce", **f, "factory": n, **extra})
            for n in range(1, len(co.factories) + 1)
            if self.produce_refusal(co, n) is None
            for extra in self.manager_resource_options(co, n)
        ]
        out += [LegalAction({"type": "sell_goods", **f, "demand": s}) for s in self.sell_options(co)]
        out += [LegalAction({"type": "use_asset", **f, "asset": a}, (a,)) for a in self.asset_options(co)]
        out += [LegalAction({"type": "trade_resources", **f, **o}) for o in self.trade_options(co)]
        out += [
            LegalAction({"type": "emergency_fundraise", **f, "shares": ids}, tuple(ids))
            for ids in self.fundraise_options(co)
        ]
        if self.may_pay_out(co):
            out.append(LegalAction({"type": "dividend", **f, "kind": "payout"}))
        out.append(LegalAction({"type": "dividend", **f, "kind": "withhold"}))
        return out

    def may_pay_out(self, co: CobsCompany) -> bool:
        """A dividend needs operating revenue and a good sold this turn (a company that sold none
        withholds, whatever a capital asset added: the summary's "no goods sold: one step down")."""
        return co.income > 0 and self.stage == 2

    def company(self, action: ActionDict) -> CobsCompany:
        co = self.game.entity_of(action)
        if co is not self.actor():
            raise GameError(f"it is {self.actor().name}'s turn to operate")
        assert isinstance(co, CobsCompany)
        if action.get("type") != "emergency_fundraise":
            self.began = True
        return co

    def process_emergency_fundraise(self, action: ActionDict) -> None:
        g = self.game
        co = self.company(action)
        ids = action.get("shares")
        if ADVANCED not in g.optional_rules:
            raise GameError("emergency fundraising is an advanced rule, not in this game")
        if ids not in self.fundraise_options(co):
            raise GameError(
                f"{co.name} may raise funds only at the start of its turn, selling certificates from its "
                "treasury (the preferred and common ones in order)"
            )
        certs = [g.certificate(i) for i in ids]
        total = sum(c.price for c in certs)
        shares = sum(c.shares for c in certs)
        for cert in certs:
            co.certificates.remove(cert)
            cert.owner = g.pool
            g.pool.certificates.append(cert)
        g.bank.spend(total, co)
        g.log.append(f"{co.name} raises ${total} selling {', '.join(ids)} to the bank pool")
        g.move_share_value(co, -(shares + 1))
        self.began = True

    def process_trade_resources(self, action: ActionDict) -> None:
        g = self.game
        co = self.company(action)
        choice = {"give": action.get("give"), "take": action.get("take")}
        if choice not in self.trade_options(co):
            raise GameError(
                f"{co.name} trades two like resources it holds for one other in Haymarket Square, "
                f"not {choice['give']!r} for {choice['take']!r}"
            )
        give, take = str(choice["give"]), str(choice["take"])
        co.resources[give] -= 2
        g.haymarket[give] += 2
        g.haymarket[take] -= 1
        co.resources[take] += 1
        g.log.append(f"{co.name} trades two {give} for one {take} in Haymarket Square")

    def process_buy_resource(self, action: ActionDict) -> None:
        g = self.game
        co = self.company(action)
        choice = {"spot": action.get("spot"), "resource": action.get("resource")}
        if choice not in self.buy_options(co):
            raise GameError(f"{co.name} cannot buy {choice['resource']} from the ${choice['spot']} spot now")
        spot, r = int(str(choice["spot"])), str(choice["resource"])
        co.spend(spot, g.bank)
        g.supply[spot][r] -= 1
        co.resources[r] += 1
        g.log.append(f"{co.name} buys {r} for ${spot}")

    def process_produce(self, action: ActionDict) -> None:
        g = self.game
        co = self.company(action)
        number = action.get("factory")
        reason = self.produce_refusal(co, number)
        if reason:
            raise GameError(reason)
        assert isinstance(number, int)
        extra = {"bonus_resources": action["bonus_resources"]} if "bonus_resources" in action else {}
        if extra not in self.manager_resource_options(co, number):
            picks = self.manager_resource_options(co, number)
            raise GameError(
                f"{co.name}'s factory {number} takes no bonus resources"
                if picks == [{}]
                else f"{co.name}'s factory {number}: name its manager's bonus_resources from Haymarket "
                f"Square (at most {len(picks[-1]['bonus_resources'])}), not {action.get('bonus_resources')!r}"
            )
        f = co.factories[number - 1]
        for r in f.recipe:
            co.resources[r] -= 1
            g.haymarket[r] += 1
        co.goods += int(f.spec["goods"])
        f.produced = True
        self.stage = 1
        made = int(f.spec["goods"])
        g.log.append(f"{co.name}'s factory {number} produces {made} good{'s' if made != 1 else ''}")
        if f.manager:
            bonus = f.spec["manager_bonus"]
            co.goods += int(bonus.get("good", 0))
            if extra.get("bonus_resources"):
                g.take_from_haymarket(co, [str(r) for r in extra["bonus_resources"]])
            if bonus.get("appeal"):
                g.raise_appeal(co, int(bonus["appeal"]))
        owner = co.owner
        if (
            owner is not None
            and owner.first_company == co.sym
            and not owner.company_partner_gained
            and all(x.produced for x in co.factories)
        ):
            owner.company_partner_gained = True
            owner.partners += 1
            g.log.append(f"{owner.name} gains a partner: every factory of their first company produced")

    def process_sell_goods(self, action: ActionDict) -> None:
        g = self.game
        co = self.company(action)
        where = action.get("demand")
        if where not in self.sell_options(co):
            raise GameError(f"{co.name} cannot sell a good to {where!r} now")
        self.make_bonus_goods(co)
        co.goods -= 1
        self.stage = 2
        if where == "bank":
            co.income += co.goods_value // 2
            g.log.append(f"{co.name} sells a good to the bank at half price (${co.goods_value // 2})")
            return
        entry = g.demand_slots[str(where)]
        entry["goods"] += 1
        co.income += co.goods_value
        g.log.append(f"{co.name} sells a good to {where} (${co.goods_value})")
        if entry["goods"] == g.demand_of(str(where)):
            bonus = int(str(where).rsplit("_", 1)[1])
            co.income += bonus
            if bonus:
                g.log.append(f"{co.name} fills the demand tile on {where}: ${bonus} bonus")

    def process_use_asset(self, action: ActionDict) -> None:
        g = self.game
        co = self.company(action)
        asset = action.get("asset")
        if asset not in self.asset_options(co):
            raise GameError(f"{co.name} cannot use the capital asset {asset!r} now")
        g.exhaust_asset(co, str(asset))

    def process_dividend(self, action: ActionDict) -> None:
        g = self.game
        co = self.company(action)
        kind = action.get("kind")
        if kind == "payout" and self.may_pay_out(co):
            g.log.append(f"{co.name} pays out its operating revenue of ${co.income}")
            g.pay_shareholders(co, co.income, g.bank)
        elif kind == "withhold":
            g.bank.spend(co.income, co)
            g.log.append(f"{co.name} withholds ${co.income}")
            if g.has_price_protection(co):
                g.log.append(f"price protection keeps {co.name}'s share value")
            else:
                g.move_share_value(co, -1)
        elif kind == "payout" and co.income > 0:
            raise GameError(f"{co.name} sold no goods this turn: it withholds its ${co.income}")
        else:
            raise GameError(f"{co.name} may withhold{' or pay out' if co.income else ''}, not {kind!r}")
        self.make_bonus_goods(co)  # a company that sold nothing keeps its tokens' goods
        co.income = 0
        self.done.add(co.sym)
        self.stage = 0
        self.began = False
        g.refill_chain()
