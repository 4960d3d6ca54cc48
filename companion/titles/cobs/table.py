"""City of the Big Shoulders at the table: its tagged cards and tiles, its wording, buttons and board panels.

The interface is ``companion/table/titles.py``'s.  Everything offered comes from
``game.legal_actions()``; the sentences and panels read the engine's state (and its previews)
without deciding a rule.  Money is written in dollars, names in the game's own words (certificate,
share value, treasury, appeal, partner, action space, factory, goods, demand tile, Haymarket Square).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.engine.errors import GameError
from companion.engine.rounds import ActionDict, LegalAction
from companion.table.tags import Item, ItemKind
from companion.table.titles import Choice, Panel, TableTitle
from companion.titles.cobs import TITLE, load_data
from companion.titles.cobs.entities import RESOURCES, Certificate, CobsCompany, CobsPlayer
from companion.titles.cobs.game import DRAWN, CobsGame
from companion.titles.cobs.steps import OperatingStep, StockStep

__all__ = ["TABLE", "bank_text", "choice", "describe_action", "panels", "phase_text", "tag_items", "why_not"]

#: short names of the companies (the charters' own, for narrow columns)
SHORT = {
    "brunswick": "Brunswick",
    "spalding": "Spalding",
    "swift": "Swift",
    "fairbank": "Fairbank",
    "henderson": "Henderson",
    "libby": "Libby",
    "anglo": "Anglo-American",
    "cracker": "Cracker Jack",
    "doggett": "Doggett",
    "elgin": "Elgin",
}
#: what each company type makes, and the demand columns' headings
KINDS = {
    "food_and_dairy": "food and dairy",
    "dry_goods": "dry goods",
    "meat_packing": "meat packing",
    "shoes": "shoes",
}
#: charter colours for the stickers (one per company type)
KIND_COLORS = {
    "food_and_dairy": "#f3e3a0",
    "dry_goods": "#c9dcef",
    "meat_packing": "#efc6c0",
    "shoes": "#d8cbb4",
}
SPACES = {
    "job_market_worker": "Job market",
    "advertising": "Advertising",
    "fundraising_40": "Fundraising $40",
    "fundraising_60": "Fundraising $60",
    "fundraising_80": "Fundraising $80",
    "hire_manager": "Hire a manager",
    "hire_salesperson": "Hire a salesperson",
    "capital_investment": "Capital investment",
    "extra_dividends": "Extra dividends",
}
PHASES = {
    "setup": "setting up the board",
    "start": "starting companies",
    "stock": "stock phase",
    "building": "building phase",
    "action": "action phase",
    "operating": "operating phase",
    "cleanup": "cleanup",
    "over": "game over",
}
BONUSES = {
    "worker": "a worker",
    "salesperson": "a salesperson",
    "automation": "an automation",
    "partner": "a partner",
    "good": "a goods token (a good each operating turn)",
    "bump": "a share-value step",
}
#: a capital asset's immediate bonus
IMMEDIATE = {"worker": "a worker", "automation": "an automation", "appeal": "+2 appeal"}
CERT_KINDS = {"director": "director's", "preferred": "preferred", "common": "common"}


def money(amount: int) -> str:
    return f"-${-amount:,}" if amount < 0 else f"${amount:,}"


def short(co: CobsCompany | str) -> str:
    sym = co if isinstance(co, str) else co.sym
    return SHORT.get(sym, sym)


def count_text(count: int, thing: str) -> str:
    """ "1 partner", "2 partners"."""
    return f"{count} {thing}{'s' if count != 1 else ''}"


def goods_text(count: int) -> str:
    """A demand: "1 good", "3 goods", "X: no demand" for a tile that takes none."""
    if count == 0:
        return "X: no demand"
    return f"{count} good{'s' if count != 1 else ''}"


def building_number(building: str) -> str:
    return building.removeprefix("building")


def asset_name(game: CobsGame | None, asset: str) -> str:
    data = game.data if game is not None else load_data()
    for a in data["capital_assets"]:
        if a["id"] == asset:
            return str(a["name"])
    return asset


def resources_text(resources: list[str]) -> str:
    """``["wood", "wood", "coal"]`` as "2 wood and 1 coal"."""
    counts: dict[str, int] = {}
    for r in resources:
        counts[r] = counts.get(r, 0) + 1
    parts = [f"{k} {r}" for r, k in counts.items()]
    return " and ".join([", ".join(parts[:-1]), parts[-1]] if len(parts) > 1 else parts)


#: how each part of a building's or space's effect is said, in the order said
EFFECT_WORDS: tuple[tuple[str, Callable[[int], str]], ...] = (
    ("workers", lambda k: count_text(k, "worker")),
    ("managers", lambda k: count_text(k, "manager")),
    ("salespeople", lambda k: f"{k} salesperson" if k == 1 else f"{k} salespeople"),
    ("automation", lambda k: f"automate {k}"),
    ("appeal", lambda k: f"+{k} appeal"),
    ("goods", lambda k: count_text(k, "good")),
    ("like_resources", lambda k: f"{k} like resources"),
    ("unlike_resources", lambda k: f"{k} unlike resources"),
    ("asset_discount", lambda k: f"capital asset ${k} off"),
    ("dividend", lambda k: f"{money(k)} dividend"),
)


def effect_text(effect: dict[str, Any]) -> str:
    """What a building or space does, in a few words ("2 like resources", "+2 appeal")."""
    parts = [say(int(effect[key])) for key, say in EFFECT_WORDS if key in effect]
    if "resources" in effect:
        parts.append(resources_text([str(r) for r in effect["resources"]]))
    return ", ".join(parts)


def use_text(game: CobsGame, asset: str) -> str:
    """What exhausting a capital asset does."""
    use = game.data_of("capital_assets", asset)["use"]
    parts = []
    if use.get("revenue"):
        parts.append(f"+{money(int(use['revenue']))} operating revenue")
    if use.get("appeal"):
        parts.append(f"+{use['appeal']} appeal")
    if use.get("share_value"):
        parts.append(f"{use['share_value']} share-value step")
    if use.get("resources"):
        parts.append(f"{resources_text([str(r) for r in use['resources']])} from Haymarket Square")
    if use.get("price_protection"):
        parts.append("keeps the share value (passive)")
    if use.get("cost"):
        parts.append(f"costs {money(int(use['cost']))}")
    return ", ".join(parts)


def demand_place(slot: str) -> str:
    """``"dry_goods_50"`` as "the dry goods $50 row"."""
    kind, bonus = slot.rsplit("_", 1)
    return f"the {KINDS.get(kind, kind)} ${bonus} row"


def cert_name(cert: Certificate) -> str:
    """ "director", "preferred" or "common 3" (the common certificates numbered 1 to 5, as tagged)."""
    if cert.kind == "common":
        first = next(c.index for c in cert.company.all_certificates if c.kind == "common")
        return f"common {cert.index - first + 1}"
    return "director" if cert.kind == "director" else cert.kind


def cert_text(cert: Certificate) -> str:
    plural = "s" if cert.shares > 1 else ""
    return f"{short(cert.company)}'s {CERT_KINDS[cert.kind]} certificate ({cert.shares} share{plural})"


# -- tags ------------------------------------------------------------------------------------------------------
def tag_items(optional_rules: tuple[str, ...] = ()) -> tuple[Item, ...]:
    """The cards and tiles that carry a tag: each company's certificates (``<company>_<index>``, 0 the
    director's, 1 the preferred, 2-6 the common ones) and charter (``<company>``), the buildings, the
    capital assets and the demand tiles (entered by a tap when revealed), and the player cards."""
    data = load_data()
    title = TITLE.name
    items: list[Item] = []
    for spec in data["companies"]:
        sym = str(spec["sym"])
        color = KIND_COLORS.get(str(spec["type"]), "#ffffff")
        name = short(sym)
        common = 0
        for index, c in enumerate(data["certificates"]):
            kind = str(c["kind"])
            shares = int(c["shares"])
            if kind == "common":
                common += 1
                label = f"{name} common certificate {common} of 5 ({shares * 10} %)"
                line = f"common {common}"
            else:
                label = f"{name} {CERT_KINDS[kind]} certificate ({shares * 10} %)"
                line = CERT_KINDS[kind].removesuffix("'s")
            items.append(
                Item(
                    ItemKind.CERTIFICATE,
                    title,
                    f"{sym}_{index}",
                    label,
                    (name, f"{shares * 10} %", line),
                    color,
                )
            )
        items.append(
            Item(
                ItemKind.COMPANY,
                title,
                sym,
                f"{spec['name']} charter ({KINDS[str(spec['type'])]})",
                (name, "charter"),
                color,
            )
        )
    for b in data["buildings"]:
        number = building_number(str(b["id"]))
        items.append(
            Item(
                ItemKind.TILE,
                title,
                str(b["id"]),
                f"Building {number} ({effect_text(b['effect'])})",
                (f"Building {number}", f"era {b['pips']}"),
                "#e8e0c8",
            )
        )
    for a in data["capital_assets"]:
        items.append(
            Item(
                ItemKind.TILE,
                title,
                str(a["id"]),
                f"{a['name']} capital asset",
                (str(a["name"]), "capital asset"),
                "#e0e8d0",
            )
        )
    for t in data["demand_tiles"]:
        number = str(t["id"]).removeprefix("demand")
        items.append(
            Item(
                ItemKind.TILE,
                title,
                str(t["id"]),
                f"Demand tile {number} ({goods_text(int(t['demand']))}, {t['pips']} pips)",
                (f"Demand {number}", goods_text(int(t["demand"]))),
                "#f0e0d0",
            )
        )
    for seat in range(1, int(data["meta"]["player_range"][1]) + 1):
        items.append(
            Item(ItemKind.PLAYER, title, f"player-{seat}", f"Player {seat} card", (f"Player {seat}",))
        )
    return tuple(items)


# -- wording ------------------------------------------------------------------------------------------------
def actor_name(game: CobsGame, action: ActionDict) -> str:
    try:
        who = game.entity_of(action)
    except GameError:
        return str(action.get("entity", "someone"))
    if isinstance(who, CobsCompany):
        return short(who)
    return str(who.name)


def share_moves(game: CobsGame, action: ActionDict) -> str:
    """The share-value moves ``action`` would make, from the engine's preview ("" if none or refused)."""
    try:
        preview = game.preview(action)
    except GameError:
        return ""
    moves = [
        f"{short(sym)}'s share value {money(a)} to {money(b)}" for sym, (a, b) in preview.share_prices.items()
    ]
    return "; ".join(moves)


def with_moves(text: str, game: CobsGame, action: ActionDict) -> str:
    moves = share_moves(game, action)
    return f"{text}; {moves}" if moves else text


def dividend_text(game: CobsGame, co: CobsCompany, amount: int, payer: str) -> str:
    """Who a dividend of ``amount`` pays: "$24 a share: Ann $72, Bob $48, Swift's treasury $120"."""
    split = game.dividend_split(co, amount)
    per_share = amount // 10 * 10 // 10
    if not split:
        return f"{money(per_share)} a share, nobody holds a paid share"
    paid = ", ".join(
        f"{short(who)}'s treasury {money(k)}" if isinstance(who, CobsCompany) else f"{who.name} {money(k)}"
        for who, k in split
        if not (isinstance(who, CobsCompany) and payer == "company")
    )
    return f"{money(per_share)} a share{': ' + paid if paid else ''}"


def share_value_after(game: CobsGame, co: CobsCompany, steps: int) -> str:
    new = max(0, min(len(game.share_values) - 1, co.step + steps))
    if new == co.step:
        return f"share value stays {money(co.share_value)}"
    return f"share value {money(co.share_value)} to {money(game.share_values[new])}"


def payout_text(game: CobsGame, co: CobsCompany) -> str:
    amount = co.income // 10 * 10
    return (
        f"pays out {money(amount)} ({dividend_text(game, co, amount, 'bank')}); "
        f"{share_value_after(game, co, game.dividend_steps(co, amount))}"
    )


def withhold_share_value(game: CobsGame, co: CobsCompany) -> str:
    """What a withhold does to the share value: one step down, none with price protection."""
    if game.has_price_protection(co):
        return f"price protection keeps the share value {money(co.share_value)}"
    return share_value_after(game, co, -1)


def withhold_text(game: CobsGame, co: CobsCompany) -> str:
    what = f"{money(co.income)} into its treasury" if co.income else "nothing sold"
    return f"withholds: {what}; {withhold_share_value(game, co)}"


def space_name(game: CobsGame, space: str) -> str:
    if space in SPACES:
        return SPACES[space]
    if space.startswith("building"):
        owner = game.building_owner.get(space)
        whose = f"{game.player(owner).name}'s " if owner is not None else ""
        return f"{whose}building {building_number(space)}"
    return space


def space_payment(game: CobsGame, co: CobsCompany, space: str) -> str:
    """Who pays whom for a partner on ``space`` for ``co``."""
    for s in game.data["general_action_spaces"]:
        if s["id"] != space:
            continue
        if space == "job_market_worker":
            costs = game.data["job_market_cost"]
            cost = int(costs[min(game.labour_market, len(costs) - 1)])
            return f"{money(cost)} from {short(co)} to the bank"
        if space in ("capital_investment", "extra_dividends"):
            return ""
        cost = int(s.get("cost", 0))
        if s.get("payment") == "bank_to_company":
            return f"{money(cost)} from the bank to {short(co)}"
        return f"{money(cost)} from {short(co)} to the bank"
    if space in game.building_owner:
        b = game.data_of("buildings", space)
        owner = game.player(game.building_owner[space]).name
        source = short(co) if b["payer"] == "company" else "the bank"
        return f"{money(int(b['cost']))} from {source} to {owner}"
    return ""


def treasury_dividend(game: CobsGame, co: CobsCompany, amount: int) -> str:
    """A dividend the company pays from its treasury (extra dividends, a dividend building): who
    gets what, and the share value's move."""
    steps = game.dividend_steps(co, amount)
    own = sum(k for who, k in game.dividend_split(co, amount) if who is co)
    stays = f" ({money(own)} on its own certificates stays in its treasury)" if own else ""
    return (
        f"a {money(amount)} dividend from {short(co)}'s treasury, {dividend_text(game, co, amount, 'company')}"
        f"{stays}, {share_value_after(game, co, steps)}"
    )


def automates(game: CobsGame, action: ActionDict) -> int:
    """How many automations ``action`` (a partner placed or an appeal bonus taken) puts in."""
    if action.get("type") == "appeal_bonus":
        return int(action.get("take") == "bonus" and action.get("bonus") == "automation")
    if "automation_factories" in action:
        return len(action["automation_factories"])
    space = str(action.get("space"))
    if "slot" in action:
        asset = game.asset_slots.get(int(action["slot"]))
        bonus = str(game.data_of("capital_assets", asset)["bonus"]) if asset else ""
        return int("automation" in bonus.split("+") and "factory" in action)
    if space in game.building_owner:
        return int(game.data_of("buildings", space)["effect"].get("automation", 0))
    return 0


def freed_text(game: CobsGame, action: ActionDict) -> str:
    """Where the workers an automation frees go: the factories the player chose, else (no room in
    the company) back to the labour market."""
    count = automates(game, action)
    if not count:
        return ""
    moves = (
        [int(action["relocate"])] if "relocate" in action else list(action.get("relocate_factories") or [])
    )
    parts = []
    if count == 1 and moves and moves[0] == action.get("factory"):
        return f"the freed worker stays in factory {moves[0]}"
    if moves:
        places = " and ".join(str(n) for n in moves)
        parts.append(f"the freed {'worker' if len(moves) == 1 else 'workers'} to factory {places}")
    if count > len(moves):
        rest = count - len(moves)
        parts.append(
            f"{'a freed worker' if rest == 1 else f'{rest} freed workers'} back to the labour market"
        )
    return ", ".join(parts)


def partner_text(game: CobsGame, action: ActionDict) -> str:
    co = game.company(action.get("corporation"))
    space = str(action.get("space"))
    parts = [space_payment(game, co, space)]
    effect: dict[str, Any] = {}
    if space in game.building_owner:
        effect = dict(game.data_of("buildings", space)["effect"])
    else:
        for s in game.data["general_action_spaces"]:
            if s["id"] == space:
                effect = dict(s.get("effect") or {})
    if space == "job_market_worker":
        effect = {"workers": 1}
    if "slot" in action:
        slot = int(action["slot"])
        asset = game.asset_slots.get(slot)
        discount = int(effect.pop("asset_discount", 0))
        price = max(0, slot - discount)
        bonus = str(game.data_of("capital_assets", asset)["bonus"]) if asset else ""
        now = " and ".join(IMMEDIATE.get(b, b) for b in bonus.split("+") if b)
        parts.append(
            f"buys {asset_name(game, str(asset))} from the ${slot} slot for {money(price)}"
            + (f" (immediately {now})" if now else "")
        )
    if space == "extra_dividends":
        cost = int(next(s for s in game.data["general_action_spaces"] if s["id"] == space).get("cost", 0))
        parts.append(treasury_dividend(game, co, cost))
    if "dividend" in effect:
        parts.append(treasury_dividend(game, co, int(effect.pop("dividend"))))
    if "resource" in action:
        k = int(effect.pop("like_resources", 2))
        parts.append(f"{k} {action['resource']} from Haymarket Square")
    if "resources" in action:
        effect.pop("unlike_resources", None)
        parts.append(f"{resources_text([str(r) for r in action['resources']])} from Haymarket Square")
    for key, thing, field in (
        ("worker_factories", "worker", "workers"),
        ("manager_factories", "manager", "managers"),
        ("automation_factories", "automation", "automation"),
    ):
        if key in action:
            effect.pop(field, None)
            numbers = [str(n) for n in action[key]]
            places = sorted(set(numbers))
            where = f"factory {places[0]}" if len(places) == 1 else f"factories {' and '.join(places)}"
            parts.append(f"{count_text(len(numbers), thing)} in {where}")
    if effect:
        parts.append(effect_text(effect))
    if "factory" in action:
        parts.append(f"in factory {action['factory']}")
    parts.append(freed_text(game, action))
    if action.get("first") is True:
        parts.append("first in the next sequence")
    text = ", ".join(p for p in parts if p)
    return f"places a partner on {space_name(game, space)} for {short(co)}" + (f": {text}" if text else "")


def describe_action(game: CobsGame, action: ActionDict) -> str:
    """One sentence for ``action`` as it would be applied to ``game`` now, naming who acts and the money."""
    kind = str(action.get("type"))
    who = actor_name(game, action)
    try:
        return f"{who} {_describe(game, action, kind)}"
    except (GameError, KeyError, ValueError, TypeError, IndexError):
        return f"{who}: {kind.replace('_', ' ')}"


def _describe(game: CobsGame, action: ActionDict, kind: str) -> str:
    if kind == "draw":
        item, place = str(action["item"]), action["place"]
        if action["kind"] == "demand":
            tile = game.data_of("demand_tiles", item)
            demand = goods_text(int(tile["demand"]))
            return f"enters the demand tile drawn for {demand_place(str(place))}: {item} ({demand})"
        if action["kind"] == "asset":
            return f"enters the capital asset drawn for the ${place} slot: {asset_name(game, item)}"
        if action["kind"] == "goal":
            goal = next(g for g in game.data["public_goals"]["goals"] if g["id"] == item)
            return f"enters the public goal drawn: {item} (most {str(goal['most']).replace('_', ' ')})"
        space = "X space" if str(place) == "x" else f"${place} space"
        return f"enters a resource drawn from the bag for the supply chain's {space}: {item}"
    if kind == "draw_all":
        return f"lets the companion draw at random {draws_text(action['draws'])}; lay them out as shown"
    if kind == "par":
        co = game.company(action["corporation"])
        value = int(action["share_price"])
        director = co.all_certificates[0]
        return (
            f"starts {short(co)} at {money(value)}: {money(director.shares * value)} to its treasury "
            f"for the director's certificate"
        )
    if kind == "buy_shares":
        cert = game.certificate(action["shares"][0])
        source = f"{short(cert.company)}'s treasury" if cert.owner is cert.company else "the bank pool"
        paid = short(cert.company) if cert.owner is cert.company else "the bank"
        return f"buys {cert_text(cert)} from {source} for {money(cert.price)}, paid to {paid}"
    if kind == "sell_shares":
        cert = game.certificate(action["shares"][0])
        return with_moves(f"sells {cert_text(cert)} to the bank pool for {money(cert.price)}", game, action)
    if kind == "pass":
        if game.phase == "action":
            p = game.player(action["entity"])
            return f"passes, leaving {count_text(p.free_partners, 'partner')} unplaced this decade"
        return "passes"
    if kind == "play_building":
        b = game.data_of("buildings", str(action["building"]))
        payer = "the company" if b["payer"] == "company" else "the bank"
        return (
            f"plays building {building_number(str(b['id']))} ({effect_text(b['effect'])}; "
            f"{money(int(b['cost']))} from {payer} to its owner; "
            f"{count_text(int(b['workers']), 'worker')} to the labour market)"
        )
    if kind == "place_partner":
        return partner_text(game, action)
    if kind == "use_asset":
        asset = str(action["asset"])
        co = game.company(action.get("corporation", action.get("entity")))
        whose = "its" if action.get("entity_type") == "corporation" else f"{short(co)}'s"
        text = f"exhausts {whose} {asset_name(game, asset)}: {use_text(game, asset)}"
        return (
            with_moves(text, game, action)
            if game.data_of("capital_assets", asset)["use"].get("share_value")
            else text
        )
    if kind == "appeal_bonus":
        bonus = str(action.get("bonus", ""))
        if action.get("take") == "cash":
            cash = int(game.data["appeal_track"]["cash_instead"])
            return (
                f"takes {money(cash)} from the bank instead of the appeal bonus ({BONUSES.get(bonus, bonus)})"
            )
        where = f" in factory {action['factory']}" if "factory" in action else ""
        freed = freed_text(game, action)
        return f"takes the appeal bonus: {BONUSES.get(bonus, bonus)}{where}" + (f", {freed}" if freed else "")
    if kind == "buy_resource":
        spot = int(action["spot"])
        return f"buys {action['resource']} from the supply chain's ${spot} space for {money(spot)}, paid to the bank"
    if kind == "produce":
        co = game.company(action["entity"])
        f = co.factories[int(action["factory"]) - 1]
        goods = int(f.spec["goods"])
        text = f"runs factory {f.number}: {resources_text(f.recipe)} to Haymarket Square, {goods_text(goods)}"
        if f.manager:
            manager: dict[str, Any] = dict(f.spec["manager_bonus"])
            manager.pop("resource", None)
            extra = [f"{v} {k}" for k, v in manager.items()]
            if "bonus_resources" in action:
                taken = [str(r) for r in action["bonus_resources"]]
                extra.append(f"{resources_text(taken)} from Haymarket Square" if taken else "no resources")
            text += f", the manager's bonus ({', '.join(extra)})"
        return text
    if kind == "sell_goods":
        co = game.company(action["entity"])
        where = str(action["demand"])
        if where == "bank":
            return f"sells a good to the bank at half price for {money(co.goods_value // 2)}"
        entry = game.demand_slots[where]
        text = f"sells a good to the demand tile in {demand_place(where)} for {money(co.goods_value)}"
        if entry["tile"] is None:
            text = f"sells a good to the board's space in {demand_place(where)} for {money(co.goods_value)}"
        if entry["goods"] + 1 == game.demand_of(where):
            row_bonus = int(where.rsplit("_", 1)[1])
            text += f", filling it: {money(row_bonus)} bonus" if row_bonus else ", filling it"
        return text
    if kind == "trade_resources":
        return f"trades 2 {action['give']} for 1 {action['take']} in Haymarket Square"
    if kind == "dividend":
        co = game.company(action["entity"])
        if action.get("kind") == "payout":
            return payout_text(game, co)
        return withhold_text(game, co)
    if kind == "emergency_fundraise":
        co = game.company(action["entity"])
        certs = [game.certificate(i) for i in action["shares"]]
        total = sum(c.price for c in certs)
        names = ", ".join(CERT_KINDS[c.kind] for c in certs)
        shares = sum(c.shares for c in certs)
        plural = "s" if shares > 1 else ""
        text = f"raises {money(total)} selling {names} ({shares} share{plural}) from its treasury to the bank pool"
        return f"{text}; {share_value_after(game, co, -(shares + 1))}"
    if kind == "message":
        return f"says: {action.get('message', '')}"
    if kind == "end_game":
        return "ends the game"
    return kind.replace("_", " ")


# -- buttons ------------------------------------------------------------------------------------------------
def choice(game: CobsGame, legal: LegalAction) -> Choice:
    """The touch button for one legal action: its group and a short label."""
    a = legal.action
    kind = legal.type
    try:
        return _choice(game, a, kind)
    except (GameError, KeyError, ValueError, TypeError, IndexError):
        return Choice(kind.replace("_", " ").capitalize(), kind.replace("_", " "))


def draws_text(draws: list[dict[str, Any]]) -> str:
    """What ``draw_all`` draws, counted by kind in the order they come (``12 demand tiles, 5 capital
    assets and 12 resources``)."""
    counts: dict[str, int] = {}
    for draw in draws:
        counts[str(draw["kind"])] = counts.get(str(draw["kind"]), 0) + 1
    parts = [f"{n} {DRAWN.get(k, k)}{'s' if n != 1 else ''}" for k, n in counts.items()]
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def _choice(game: CobsGame, a: ActionDict, kind: str) -> Choice:
    if kind == "draw_all":
        return Choice("Draw for us", f"Draw the {len(a['draws'])} still to enter at random")
    if kind == "draw":
        item = str(a["item"])
        if a["kind"] == "demand":
            label = f"{item}: {goods_text(int(game.data_of('demand_tiles', item)['demand']))}"
            return Choice(f"Demand tile for {demand_place(str(a['place']))}", label)
        if a["kind"] == "asset":
            return Choice(f"Capital asset for the ${a['place']} slot", asset_name(game, item))
        if a["kind"] == "goal":
            return Choice("Public goal drawn", item)
        return Choice("Resource drawn from the bag", item)
    if kind == "par":
        return Choice("Start a company", f"{short(str(a['corporation']))} {money(int(a['share_price']))}")
    if kind in ("buy_shares", "sell_shares"):
        cert = game.certificate(a["shares"][0])
        label = f"{short(cert.company)} {cert_name(cert)} {money(cert.price)}"
        if kind == "sell_shares":
            return Choice("Sell a certificate", label)
        source = "treasury" if cert.owner is cert.company else "pool"
        return Choice("Buy a certificate", f"{label} ({source})")
    if kind == "pass":
        return Choice("Pass", "Pass")
    if kind == "play_building":
        b = game.data_of("buildings", str(a["building"]))
        return Choice("Play a building", f"{building_number(str(b['id']))}: {effect_text(b['effect'])}")
    if kind == "place_partner":
        space = str(a["space"])
        parts = [short(str(a["corporation"]))]
        if "slot" in a:
            parts.append(f"{asset_name(game, str(game.asset_slots[int(a['slot'])]))} ${a['slot']}")
        if "resource" in a:
            parts.append(str(a["resource"]))
        if "resources" in a:
            parts.append(" + ".join(str(r) for r in a["resources"]))
        if "factory" in a:
            parts.append(f"factory {a['factory']}")
        if "worker_factories" in a:
            parts.append("workers " + "+".join(str(n) for n in a["worker_factories"]))
        if "manager_factories" in a:
            parts.append("managers " + "+".join(str(n) for n in a["manager_factories"]))
        if "automation_factories" in a:
            parts.append("automate " + "+".join(str(n) for n in a["automation_factories"]))
        if "relocate" in a:
            parts.append(f"worker to {a['relocate']}")
        if a.get("relocate_factories"):
            parts.append("workers to " + "+".join(str(n) for n in a["relocate_factories"]))
        if a.get("first") is True:
            parts.append("first next")
        # the space leads the label too, so that every button's label is unique (``touch LABEL``)
        return Choice(space_name(game, space), f"{space_name(game, space)}: {', '.join(parts)}")
    if kind == "use_asset":
        name = short(str(a.get("corporation", a.get("entity"))))
        return Choice("Use a capital asset", f"{name}: {asset_name(game, str(a['asset']))}")
    if kind == "appeal_bonus":
        if a.get("take") == "cash":
            return Choice("Appeal bonus", f"{money(int(game.data['appeal_track']['cash_instead']))} instead")
        bonus = BONUSES.get(str(a.get("bonus")), str(a.get("bonus")))
        where = f" in factory {a['factory']}" if "factory" in a else ""
        where += f", worker to {a['relocate']}" if "relocate" in a else ""
        return Choice("Appeal bonus", f"Take {bonus}{where}")
    if kind == "buy_resource":
        return Choice("Buy resources", f"{a['resource']} ${a['spot']}")
    if kind == "produce":
        co = game.company(a["entity"])
        f = co.factories[int(a["factory"]) - 1]
        label = f"Factory {f.number}: {goods_text(int(f.spec['goods']))}"
        if "bonus_resources" in a:  # the manager's bonus: resources the player picks from Haymarket Square
            taken = [str(r) for r in a["bonus_resources"]]
            label += f", take {' + '.join(taken)}" if taken else ", take none"
        return Choice("Run a factory", label)
    if kind == "sell_goods":
        co = game.company(a["entity"])
        where = str(a["demand"])
        if where == "bank":
            return Choice("Sell goods", f"Bank, half price {money(co.goods_value // 2)}")
        kind_, bonus = where.rsplit("_", 1)
        return Choice("Sell goods", f"{KINDS[kind_].capitalize()} ${bonus} row: {money(co.goods_value)}")
    if kind == "trade_resources":
        return Choice("Trade in Haymarket Square", f"2 {a['give']} for 1 {a['take']}")
    if kind == "dividend":
        co = game.company(a["entity"])
        if a.get("kind") == "payout":
            return Choice("Dividend", f"Pay out {money(co.income // 10 * 10)}")
        return Choice("Dividend", f"Withhold {money(co.income)}" if co.income else "Withhold (nothing sold)")
    if kind == "emergency_fundraise":
        certs = [game.certificate(i) for i in a["shares"]]
        names = " + ".join(CERT_KINDS[c.kind] for c in certs)
        return Choice("Emergency fundraising", f"{names}: {money(sum(c.price for c in certs))}")
    return Choice(kind.replace("_", " ").capitalize(), kind.replace("_", " "))


# -- board panels -------------------------------------------------------------------------------------------
def acting(game: CobsGame) -> tuple[CobsPlayer | None, CobsCompany | None]:
    """Who acts now: the player (a company's director where a company acts) and the company."""
    who = game.current_entity()
    if isinstance(who, CobsCompany):
        return who.owner, who
    if isinstance(who, CobsPlayer):
        return who, None
    return None, None


def decade_panel(game: CobsGame) -> Panel:
    """The decade and phase, the priority deal, the turn-order track, the labour market, the appeal
    bonus goods left: one row; the note says what waits now."""
    decades = game.data["decades"]
    name = decades[min(game.decade, len(decades)) - 1]
    by_id = {p.id: p.name for p in game.players}
    costs = game.data["job_market_cost"]
    hire = money(int(costs[min(game.labour_market, len(costs) - 1)]))
    row = (
        f"{name} ({game.decade} of {len(decades)})",
        PHASES.get(game.phase, game.phase),
        game.players[game.priority].name,
        ", ".join(by_id[pid] for pid in game.turn_track),
        f"{game.labour_market}, next {hire}",
        str(game.bonus_goods_left),
    )
    return Panel(
        f"{name}: {PHASES.get(game.phase, game.phase)}",
        ("Decade", "Phase", "Priority deal", "Turn order track", "Labour market", "Bonus goods"),
        (row,),
        note=now_note(game),
    )


def goals_panel(game: CobsGame) -> Panel:
    """The public goals drawn and what each player has of each now (the most earn the award at the end)."""
    most = {str(g["id"]): str(g["most"]) for g in game.data["public_goals"]["goals"]}
    rows = [
        (most[g].replace("_", " "), *(str(game.goal_measure(g, p)) for p in game.players)) for g in game.goals
    ]
    award = money(int(game.data["public_goals"]["award"]))
    return Panel(
        f"Public goals ({award} to each with the most)",
        ("Most", *(p.name for p in game.players)),
        tuple(rows),
    )


def now_note(game: CobsGame) -> str:
    """What waits now (a draw to enter, an appeal bonus to choose, who acts)."""
    if game.finished:
        return "the game is over"
    if game.pending_draws:
        kind, place = game.pending_draws[0]
        if kind == "demand":
            text = f"the demand tile for {demand_place(str(place))}"
        elif kind == "asset":
            text = f"the capital asset for the ${place} slot"
        else:
            text = "a public goal" if kind == "goal" else "a resource drawn from the bag"
        return f"enter {text} ({len(game.pending_draws)} to enter)"
    if game.pending_bonuses:
        sym, bonus = game.pending_bonuses[0]
        return f"{short(sym)} reached an appeal bonus: {BONUSES.get(bonus, bonus)} or $25"
    player, co = acting(game)
    if co is not None:
        return f"{short(co)} operates (director {player.name if player else '-'})"
    return f"{player.name} to act" if player else ""


def players_panel(game: CobsGame) -> Panel:
    player, _ = acting(game)
    limit = game.cert_limit()
    rows = []
    for p in game.players:
        worth = game.player_value(p)
        rows.append(
            (
                p.name,
                money(p.cash),
                f"{p.free_partners} of {p.partners}",
                f"{len(p.certificates)} of {limit}",
                money(worth),
            )
        )
    highlight = tuple(i for i, p in enumerate(game.players) if p is player)
    return Panel(
        "Players",
        ("Player", "Cash", "Partners free", "Certificates", "Worth"),
        tuple(rows),
        highlight,
        note="worth: cash and certificates at their share value",
    )


def certificates_panel(game: CobsGame) -> Panel:
    """Shares of each started company by holder: the players, its treasury and the bank pool."""
    rows = []
    for co in game.started_companies():
        cells = []
        for p in game.players:
            held = [c for c in p.certificates if c.company is co]
            shares = sum(c.shares for c in held)
            mark = (
                " dir"
                if any(c.kind == "director" for c in held)
                else " pref"
                if any(c.kind == "preferred" for c in held)
                else ""
            )
            cells.append(f"{shares}{mark}" if shares else "-")
        treasury = sum(c.shares for c in co.certificates)
        pool = sum(c.shares for c in co.all_certificates if c.owner is game.pool)
        rows.append((short(co), *cells, str(treasury), str(pool), money(co.share_value)))
    columns = ("Company", *(p.name for p in game.players), "Treasury", "Pool", "Share value")
    return Panel("Certificates (shares)", columns, tuple(rows), note="dir: director's, pref: preferred")


def factory_text(f: Any) -> str:
    staff = f"{f.workers + f.automated}/{f.required}"
    marks = [staff]
    if f.automated:
        marks.append(f"A{f.automated}")
    if f.manager:
        marks.append("M")
    if f.produced:
        marks.append("ran")
    return " ".join(marks)


def companies_panel(game: CobsGame) -> Panel:
    """Started companies in operating order (highest appeal first)."""
    _, current = acting(game)
    order = game.operating_order()
    rows = []
    for co in order:
        rows.append(
            (
                short(co),
                co.owner.name if co.owner else "-",
                money(co.cash),
                money(co.share_value),
                str(co.appeal),
                f"{co.salespeople} ({money(co.goods_value)})",
                f"{co.goods}+{co.bonus_goods}" if co.bonus_goods else str(co.goods),
                money(co.income),
            )
        )
    highlight = tuple(i for i, co in enumerate(order) if co is current)
    return Panel(
        "Companies (operating order)",
        ("Company", "Director", "Treasury", "Share value", "Appeal", "Salespeople", "Goods", "Revenue"),
        tuple(rows),
        highlight,
        note="operating order: highest appeal first; +N: appeal bonus goods tokens; revenue: this turn",
    )


def factories_panel(game: CobsGame) -> Panel:
    _, current = acting(game)
    order = game.operating_order()
    most = max((len(co.factories) for co in order), default=3)
    rows = []
    for co in order:
        cells = [factory_text(f) for f in co.factories] + ["-"] * (most - len(co.factories))
        held = " ".join(f"{co.resources[r]}{r[0].upper()}" for r in RESOURCES if co.resources[r])
        used = sum(1 for a in co.assets if a in co.exhausted)
        assets = f"{len(co.assets)}" + (f" ({used} used)" if used else "")
        rows.append((short(co), *cells, held or "-", assets))
    columns = ("Company", *(f"Factory {i + 1}" for i in range(most)), "Resources", "Assets")
    return Panel(
        "Factories",
        columns,
        tuple(rows),
        tuple(i for i, co in enumerate(order) if co is current),
        note="workers/needed, A automated, M manager, ran: produced; L S C W: livestock, steel, coal, wood",
    )


def supply_panel(game: CobsGame) -> Panel:
    rows = [(f"${spot}", *(str(game.supply[spot][r]) for r in RESOURCES)) for spot in sorted(game.supply)]
    rows.append(("X (not for sale)", *(str(game.supply_x[r]) for r in RESOURCES)))
    rows.append(("Haymarket Square", *(str(game.haymarket[r]) for r in RESOURCES)))
    rows.append(("Bag", *(str(game.bag[r]) for r in RESOURCES)))
    return Panel(
        "Supply chain and Haymarket Square", ("Space", *(r.capitalize() for r in RESOURCES)), tuple(rows)
    )


def demand_panel(game: CobsGame) -> Panel:
    rows = []
    for bonus in game.data["demand_rows"]["bonus"]:
        cells = []
        for kind in game.data["demand_types"]:
            slot = f"{kind}_{bonus}"
            entry = game.demand_slots[slot]
            need = game.demand_of(slot)
            if entry["tile"] is None:
                cells.append(f"{entry['goods']}/{need} board" if need else "-")
            elif need == 0:
                cells.append("X")
            else:
                cells.append(f"{entry['goods']}/{need}")
        rows.append((f"${bonus} row", *cells))
    return Panel(
        "Demand tiles (goods sold / demand)",
        ("Row bonus", *(KINDS[k].capitalize() for k in game.data["demand_types"])),
        tuple(rows),
        note="a filled tile pays its row bonus; X: no demand; the bank always buys at half price",
    )


def assets_panel(game: CobsGame) -> Panel:
    rows = []
    for slot in sorted(game.asset_slots):
        asset = game.asset_slots[slot]
        rows.append(
            (
                f"${slot} slot",
                asset_name(game, asset) if asset else "-",
                use_text(game, asset) if asset else "",
            )
        )
    return Panel(
        "Capital assets for sale",
        ("Slot", "Asset", "Exhausting it"),
        tuple(rows),
        note="cleanup: the $40 one leaves, the rest move down",
    )


def held_assets_panel(game: CobsGame) -> Panel:
    """The capital assets the companies hold: ready or exhausted this decade."""
    rows = []
    for co in game.started_companies():
        for asset in co.assets:
            state = "exhausted" if asset in co.exhausted else "ready"
            rows.append((short(co), asset_name(game, asset), state, use_text(game, asset)))
    return Panel("Capital assets held", ("Company", "Asset", "This decade", "Exhausting it"), tuple(rows))


def spaces_panel(game: CobsGame) -> Panel:
    """The action spaces: the general ones and the buildings in play, who pays, whether taken."""
    rows = []
    for s in game.data["general_action_spaces"]:
        space = str(s["id"])
        if game.decade < int(s.get("from_decade", 1)):
            state = f"from decade {s['from_decade']}"
        else:
            taken = game.occupied.get(space, 0)
            state = count_text(taken, "partner") if taken else "free"
            if s.get("limited") and taken:
                state = "taken"
        cost = f"{money(int(s['cost']))}" if s.get("cost") else ""
        rows.append((SPACES.get(space, space), cost, state))
    return Panel("Action spaces", ("Space", "Cost", "This decade"), tuple(rows))


def buildings_panel(game: CobsGame) -> Panel:
    """The buildings on each player's track (action spaces paying their owner): free or taken this decade."""
    rows = []
    for p in game.players:
        free = [building_number(b) for b in p.buildings if not game.occupied.get(b)]
        taken = [building_number(b) for b in p.buildings if game.occupied.get(b)]
        rows.append((p.name, ", ".join(free) or "-", ", ".join(taken) or "-"))
    return Panel(
        "Buildings (action spaces paying their owner)", ("Owner", "Free", "Taken this decade"), tuple(rows)
    )


def goods_to_sell_text(game: CobsGame, co: Any) -> str:
    """The operating company's goods to sell now, its appeal bonus goods tokens' goods counted
    until it starts selling (as the engine counts them)."""
    step = game.round.active_step()
    count = step.goods_to_sell(co) if isinstance(step, OperatingStep) else co.goods
    made = count - co.goods
    return f"{count} ({made} from appeal bonus goods tokens)" if made else str(count)


def pending_panel(game: CobsGame) -> Panel | None:
    """What the decision now pays: the acting company's goods and dividend, or a player's sales."""
    player, co = acting(game)
    if co is not None and game.phase == "operating" and not game.pending_draws and not game.pending_bonuses:
        rows = [
            (
                "A good sells for",
                f"{money(co.goods_value)} on a demand tile, {money(co.goods_value // 2)} to the bank",
            ),
            ("Goods to sell", goods_to_sell_text(game, co)),
            ("Revenue so far", money(co.income)),
        ]
        dividends = game.legal_actions(co, types=["dividend"])
        if any(la.action.get("kind") == "payout" for la in dividends):
            amount = co.income // 10 * 10
            rows.append(("Pay out", f"{money(amount)}: {money(amount // 10)} a share"))
            for who, paid in game.dividend_split(co, amount):
                name = f"{short(who)}'s treasury" if isinstance(who, CobsCompany) else who.name
                rows.append((f"  to {name}", money(paid)))
            rows.append(("  then", share_value_after(game, co, game.dividend_steps(co, amount))))
        rows.append(("Withhold", f"{money(co.income)} to the treasury"))
        rows.append(("  then", withhold_share_value(game, co)))
        return Panel(
            f"{short(co)} operates", ("This turn", "Pays"), tuple(rows), note=f"treasury {money(co.cash)}"
        )
    if player is not None and game.phase == "stock" and player.certificates:
        rows = [
            (
                f"{short(c.company)} {CERT_KINDS[c.kind]}",
                f"{money(c.price)} ({count_text(c.shares, 'share')})",
            )
            for c in player.certificates
        ]
        return Panel(
            f"{player.name}'s certificates sell for",
            ("Certificate", "Sells for"),
            tuple(rows),
            note="one step down per share sold",
        )
    return None


def scores_panel(game: CobsGame) -> Panel:
    rows = []
    for p in sorted(game.players, key=lambda p: -game.player_value(p)):
        certs = sum(c.price for c in p.certificates)
        rows.append((p.name, money(p.cash), money(certs), money(game.player_value(p))))
    return Panel("Final scores", ("Player", "Cash", "Certificates", "Score"), tuple(rows), (0,))


def panels(game: CobsGame) -> tuple[Panel, ...]:
    """The board screen: decade and phase, what the decision now pays, players, certificates,
    companies, factories, supply chain and Haymarket Square, demand tiles, capital assets, action spaces,
    the buildings and the public goals."""
    out = [decade_panel(game)]
    if game.finished:
        out.append(scores_panel(game))
    pending = pending_panel(game)  # what the decision now pays, on top
    if pending is not None:
        out.append(pending)
    out += [players_panel(game), certificates_panel(game), companies_panel(game), factories_panel(game)]
    out += [
        supply_panel(game),
        demand_panel(game),
        assets_panel(game),
        held_assets_panel(game),
        spaces_panel(game),
        buildings_panel(game),
    ]
    if game.goals:
        out.append(goals_panel(game))
    return tuple(out)


def bank_text(game: CobsGame) -> str:
    """The top bar's bank: City of the Big Shoulders' bank never runs out (the engine counts from a
    large sum only to check that money is conserved)."""
    return "Bank: unlimited"


def phase_text(game: CobsGame) -> str:
    """Nothing more for the top bar: the round's name already says the decade and its phase."""
    return ""


# -- a tap that means nothing now ----------------------------------------------------------------------------
def why_not(game: CobsGame, card: str) -> str | None:
    """Why a tapped card means nothing now, in the game's words (None: the table's default, whose
    turn it is and what they may do)."""
    if game.finished:
        return "the game is over"
    player, _ = acting(game)
    step = game.round.active_step()
    certs = {c.id: c for co in game.companies for c in co.all_certificates}
    if card in certs:
        cert = certs[card]
        co = cert.company
        if isinstance(cert.owner, CobsPlayer) and cert.owner is not player:
            return f"{short(co)}'s {cert_name(cert)} certificate belongs to {cert.owner.name}"
        if isinstance(step, StockStep) and player is not None and not step.first:
            if cert.owner is player:
                return step.sale_refusal(player, cert)
            if co.started:
                return step.buy_refusal(player, cert)
        if not co.started:
            return f"{short(co)} has not been started: tap its charter or director's certificate to start it"
        return None
    if card in SHORT:
        co = game.company(card)
        if co.started:
            owner = co.owner.name if co.owner else "nobody"
            return f"{short(co)} has already been started (its director is {owner})"
        if game.phase == "stock" and game.decade == 1:
            return "no company is started in the first decade's stock phase"
        return None
    if card in game.building_owner:
        owner = game.player(game.building_owner[card]).name
        if game.occupied.get(card):
            return f"{owner}'s building {building_number(card)} holds a partner this decade"
        return f"building {building_number(card)} is on {owner}'s track: a partner goes there in the action phase"
    if card.startswith("building"):
        return "buildings are played in the building phase, of the decade's era or an earlier one"
    return None


class CobsTable(TableTitle):
    """City of the Big Shoulders at the table: the functions above."""

    board_screen = True

    def describe(self, game: Any, action: ActionDict, *, applied: bool = False) -> str:
        return describe_action(game, action)

    def holder_name(self, game: Any, who: object) -> str:
        return short(str(who)) if str(who) in SHORT else super().holder_name(game, who)

    def choice(self, game: Any, legal: LegalAction) -> Choice:
        return choice(game, legal)

    def panels(self, game: Any) -> tuple[Panel, ...]:
        return panels(game)

    def bank_text(self, game: Any) -> str:
        return bank_text(game)

    def phase_text(self, game: Any) -> str:
        return phase_text(game)

    def why_not(self, game: Any, card: str) -> str | None:
        return why_not(game, card)

    def tag_items(self, optional_rules: tuple[str, ...] = ()) -> tuple[Item, ...]:
        return tag_items(optional_rules)


TABLE = CobsTable()
