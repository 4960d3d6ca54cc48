"""Compare what the camera saw with the map the game expects.

The caller passes the expected map as plain ``{hex: (tile_id, rotation)}``
(the table service takes it from the engine) and the observations from
:class:`vision.pipeline.Recognizer`.  Differences are:

* ``missing_tile``: a tile is expected but the hex is seen empty;
* ``unexpected_tile``: a tile is seen where none is expected (a new lay);
* ``wrong_tile``: another tile than expected is seen (perhaps an upgrade, or a tile the rules do not
  let lie on the hex: "J5: not tile 170");
* ``wrong_rotation``: the expected tile is seen, turned differently.  Rotations that
  give the same track pattern (a straight track turned 180°) are the same rotation.

Hexes the camera could not see (``unseen`` or below ``min_confidence``) are
listed in ``cant_see`` and never reported as differences.  Nor is a change on a
hex beside hexes seen covered (``HexObservation.covered_near``) unless the
reading is very sure (:func:`beside_cover`): the hand or card over them may reach
over it too, so it is "can't see" until a photo shows it clear.

Several frames of the same table are combined first (:func:`combine`): a hex
counts as seen only if enough of the latest frames that saw it read it alike,
so a hand moving over the board, a one-frame misreading or a tile being put
down while the frames were taken is "can't see" rather than a difference.

A seen tile that is not on the expected map (``unexpected_tile``, or a
``wrong_tile`` that may be an upgrade) becomes a proposed ``lay_tile`` action
when the caller's ``is_legal_lay(hex, tile, rotation)`` accepts it (``True``);
a string answer is the reason it is not legal and is kept in ``rejected``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from vision.board import board_from_title, title_tile_shapes
from vision.pipeline import HexObservation
from vision.tiles import TileShape, equivalent_rotations
from vision.tokens import CitySpaces, SlotReading, token_spaces

Placed = tuple[str, int]
LegalLay = Callable[[str, str, int], "bool | str"]
#: ``(hex, city, space, corporations)`` → the engine's ``place_token`` action for a new token seen in
#: that token space of that city (one of those corporations'), or why there is none
TokenAction = Callable[[str, int, int, frozenset[str]], "dict[str, Any] | str"]
TOKEN_KINDS = ("missing_token", "unexpected_token", "wrong_token", "moved_token")
KINDS = ("missing_tile", "unexpected_tile", "wrong_tile", "wrong_rotation")

#: a change on a hex beside this many hexes seen covered (by a hand, a card) needs a reading of
#: :data:`SURE_BESIDE_COVERED`: a hand or a card is larger than a hex, and the edge of what covers the
#: neighbours may lie on this hex too (a card's corner can look like a curve of track)
COVERED_NEIGHBOURS = 2
SURE_BESIDE_COVERED = 0.995
#: "no tile" on a hex beside this many covered hexes is never a change: what covers a whole hex
#: reaches over at least three of its neighbours, and a pale hand over a tile can look like the bare map
WHOLLY_COVERED_NEIGHBOURS = 3


#: two token spaces this near (board units) are the same place on the hex
SAME_SPACE = 0.05


@dataclass(frozen=True)
class Difference:
    kind: str
    hex: str
    expected: Placed | None
    observed: Placed | None
    confidence: float
    #: the tile seen is one the rules do not let lie on the hex
    unlawful: bool = False

    def describe(self) -> str:
        if self.kind == "wrong_tile" and self.expected and self.observed:
            seen = f"tile {self.observed[0]} rotation {self.observed[1]}"
            why = ", which may not lie there" if self.unlawful else ""
            return f"{self.hex}: not tile {self.expected[0]} (the camera sees {seen}{why})"
        if self.unlawful and self.observed:
            seen = f"tile {self.observed[0]} rotation {self.observed[1]}"
            return f"{self.hex}: a tile that may not lie there (the camera sees {seen})"
        exp = f"tile {self.expected[0]} rotation {self.expected[1]}" if self.expected else "no tile"
        obs = f"tile {self.observed[0]} rotation {self.observed[1]}" if self.observed else "no tile"
        return f"{self.hex}: {self.kind.replace('_', ' ')} (expected {exp}, camera sees {obs})"


@dataclass(frozen=True)
class TokenDifference:
    """A station token the board and the game disagree on, in one city of a hex.

    ``kind``: ``missing_token`` (the game has ``corporation``'s token here, the board none),
    ``unexpected_token`` (a token of one of ``seen`` the game does not have), ``wrong_token``
    (``seen`` where the game has ``corporation``'s), ``moved_token`` (``corporation``'s token here,
    where the game has it on ``elsewhere``)."""

    kind: str
    hex: str
    city: int
    corporation: str | None
    seen: frozenset[str] = frozenset()
    place: str = ""
    """The hex in the game's words: ``"C15 Kansas City"`` (and the city, on a hex of several)."""
    elsewhere: str = ""

    def describe(self) -> str:
        where = self.place or self.hex
        seen = " or ".join(sorted(self.seen))
        if self.kind == "missing_token":
            return f"{where}: {self.corporation}'s token is missing"
        if self.kind == "wrong_token":
            return f"{where}: the token is {seen}'s, the game has {self.corporation}'s"
        if self.kind == "moved_token":
            return f"{where}: {self.corporation}'s token, which the game has on {self.elsewhere}"
        return f"{where}: a new {seen} token"


@dataclass(frozen=True)
class Reconciliation:
    differences: tuple[Difference, ...]
    cant_see: tuple[str, ...]
    proposals: tuple[dict[str, Any], ...] = ()
    rejected: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # (hex, reason)
    #: why each hex of ``cant_see`` could not be read, where the recogniser said
    cant_see_why: Mapping[str, str] = field(default_factory=dict)
    token_differences: tuple[TokenDifference, ...] = ()
    #: hexes whose tokens could not be read (a token space unsure), with why
    tokens_unread: Mapping[str, str] = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        return not self.differences and not self.token_differences


def same_placement(shape: TileShape, a: int, b: int) -> bool:
    """Whether two rotations of a tile look the same on the board."""
    return b % 6 in equivalent_rotations(shape, a)


def same_reading(shapes: Mapping[str, TileShape], a: HexObservation, b: HexObservation) -> bool:
    """Whether two observations of a hex say the same thing (a tile at equivalent rotations counts)."""
    if a.status != b.status:
        return False
    pa, pb = a.placed, b.placed
    if pa is None or pb is None:
        return pa is None and pb is None
    return pa[0] == pb[0] and pa[0] in shapes and same_placement(shapes[pa[0]], pa[1], pb[1])


def combine(
    frames: Sequence[Mapping[str, HexObservation]],
    title: str,
    *,
    min_seen: int = 1,
    min_confidence: float = 0.5,
) -> dict[str, HexObservation]:
    """One observation per hex from several frames of the same table, oldest first.

    A hex's reading is its latest confident one (confidence ``min_confidence`` or more), backed by
    the frames that read it alike since the last frame that read it otherwise (frames that could
    not see it do not count either way).  It is accepted when at least ``min_seen`` frames back it,
    and at least two if an earlier frame read the hex otherwise; else the hex is ``unseen``: hidden
    too often, or changing while the frames were taken.  So a one-frame misreading never counts,
    and a tile really put down counts once two frames have seen it."""
    if min_seen < 1:
        raise ValueError(f"min_seen must be at least 1, not {min_seen}")
    shapes = title_tile_shapes(title)
    hexes: dict[str, None] = {}
    for frame in frames:
        hexes.update(dict.fromkeys(frame))
    out: dict[str, HexObservation] = {}
    for hex_id in hexes:
        seen = [
            f[hex_id]
            for f in frames
            if hex_id in f and f[hex_id].status != "unseen" and f[hex_id].confidence >= min_confidence
        ]
        if not seen:
            last = next((f[hex_id].why for f in reversed(frames) if hex_id in f and f[hex_id].why), "")
            out[hex_id] = HexObservation(hex_id, "unseen", why=last or "not read in any photo")
            continue
        latest = seen[-1]
        backing = 0
        for obs in reversed(seen):
            if not same_reading(shapes, obs, latest):
                break
            backing += 1
        needed = max(min_seen, 2 if backing < len(seen) else 1)
        out[hex_id] = (
            _agreed_tokens(latest, seen[len(seen) - backing :])
            if backing >= needed
            else HexObservation(hex_id, "unseen", why=f"the photos disagree ({len(seen)} readings)")
        )
    return out


def _agreed_tokens(latest: HexObservation, backing: Sequence[HexObservation]) -> HexObservation:
    """``latest`` with each token space the frames backing it read otherwise unsure (None): a hand
    reaching for a token, a token being put down, a one-frame misreading is never a difference."""
    tokens = list(latest.tokens)
    sure = [latest.sure_token(k) for k in range(len(tokens))]
    for obs in backing:
        if len(obs.tokens) != len(tokens):
            return replace(latest, tokens=(), token_sure=())
        tokens = [a if a == b else None for a, b in zip(tokens, obs.tokens, strict=True)]
        sure = [s and obs.sure_token(k) for k, s in enumerate(sure)]
    return replace(latest, tokens=tuple(tokens), token_sure=tuple(sure))


def beside_cover(obs: HexObservation) -> str | None:
    """Why a change read on ``obs``'s hex is not reported, beside hexes seen covered by a hand or a
    card (None: it is).  "No tile" beside :data:`WHOLLY_COVERED_NEIGHBOURS` of them
    never is (what covers them may cover the whole hex); any reading beside
    :data:`COVERED_NEIGHBOURS` of them needs
    :data:`SURE_BESIDE_COVERED` (their cover's edge may lie on the hex)."""
    near = obs.covered_near
    where = f"beside covered hexes ({', '.join(near)})"
    if obs.status == "empty" and len(near) >= WHOLLY_COVERED_NEIGHBOURS:
        return f"{where}: it may be covered too"
    if len(near) >= COVERED_NEIGHBOURS and obs.confidence < SURE_BESIDE_COVERED:
        return f"{where}, read with {obs.confidence:.3f}: not sure enough there"
    return None


def reconcile(
    observations: Mapping[str, HexObservation],
    expected: Mapping[str, Placed],
    title: str,
    *,
    is_legal_lay: LegalLay | None = None,
    min_confidence: float = 0.5,
    expected_tokens: Mapping[str, Sequence[str | None]] | None = None,
    token_action: TokenAction | None = None,
    pale_tokens: Collection[str] = (),
) -> Reconciliation:
    """List the differences between observations and the expected map; propose legal new lays.

    With ``expected_tokens`` (the game's, as :attr:`vision.board.BoardState.tokens`), the station
    tokens too (:func:`reconcile_tokens`): a new one becomes the ``place_token`` action
    ``token_action`` gives."""
    shapes = title_tile_shapes(title)
    for hex_id, (tile_id, rotation) in expected.items():
        if tile_id not in shapes:
            raise ValueError(f"expected map: tile {tile_id!r} on {hex_id} is not in the {title} tile set")
        if not 0 <= int(rotation) < 6:
            raise ValueError(f"expected map: rotation {rotation!r} on {hex_id} must be 0..5")
    diffs: list[Difference] = []
    cant_see: list[str] = []
    proposals: list[dict[str, Any]] = []
    rejected: list[tuple[str, str]] = []
    cant_see_why: dict[str, str] = {}
    for hex_id in sorted(observations):
        obs = observations[hex_id]
        want = expected.get(hex_id)
        if obs.status == "unseen" or obs.confidence < min_confidence:
            cant_see.append(hex_id)
            cant_see_why[hex_id] = (
                obs.why
                if obs.status == "unseen"
                else f"{obs.status}, unsure ({obs.confidence:.2f}): {obs.why}"
            )
            continue
        seen = obs.placed
        if obs.status == "tile" and seen is None:
            cant_see.append(hex_id)
            cant_see_why[hex_id] = "a tile without a rotation"
            continue
        if seen is not None and seen[0] not in shapes:
            raise ValueError(f"observation on {hex_id}: tile {seen[0]!r} is not in the {title} tile set")
        kind: str | None = None
        if want is None and seen is not None:
            kind = "unexpected_tile"
        elif want is not None and seen is None:
            kind = "missing_tile"
        elif want is not None and seen is not None:
            if want[0] != seen[0]:
                kind = "wrong_tile"
            elif not same_placement(shapes[want[0]], want[1], seen[1]):
                kind = "wrong_rotation"
        if kind is None:
            continue
        held = beside_cover(obs)
        if held:
            cant_see.append(hex_id)
            cant_see_why[hex_id] = f"{kind.replace('_', ' ')}? but {held}"
            continue
        diffs.append(Difference(kind, hex_id, want, seen, obs.confidence, obs.unlawful))
        if obs.unlawful:
            continue  # the difference says it may not lie there: nothing to propose
        if kind in ("unexpected_tile", "wrong_tile") and seen is not None and is_legal_lay is not None:
            reasons: list[str] = []
            chosen: int | None = None
            rotations = sorted(
                equivalent_rotations(shapes[seen[0]], seen[1]), key=lambda r: (r != seen[1], r)
            )
            for rot in rotations:
                answer = is_legal_lay(hex_id, seen[0], rot)
                if answer is True:
                    chosen = rot
                    break
                reasons.append(answer if isinstance(answer, str) else "not a legal tile lay")
            if chosen is not None:
                proposals.append({"type": "lay_tile", "hex": hex_id, "tile": seen[0], "rotation": chosen})
            else:
                rejected.append((hex_id, reasons[0] if reasons else "not a legal tile lay"))
    token_diffs: tuple[TokenDifference, ...] = ()
    unread: dict[str, str] = {}
    if expected_tokens is not None:
        skip = {d.hex for d in diffs} | set(cant_see)
        seen_ok = {h: o for h, o in observations.items() if h not in skip}
        token_diffs, token_props, token_rejected, unread = reconcile_tokens(
            seen_ok, expected, expected_tokens, title, token_action=token_action, pale=pale_tokens
        )
        proposals.extend(token_props)
        rejected.extend(token_rejected)
    return Reconciliation(
        tuple(diffs),
        tuple(cant_see),
        tuple(proposals),
        tuple(rejected),
        cant_see_why,
        token_diffs,
        unread,
    )


def _place(title: str, hex_id: str, city: int, cities: int) -> str:
    name = board_from_title(title).hexes[hex_id].location
    where = f"{hex_id} {name}" if name else hex_id
    return f"{where} (city {city + 1})" if cities > 1 else where


def tokens_as(
    obs: HexObservation,
    spaces: Sequence[CitySpaces],
    printed: TileShape,
    shapes: Mapping[str, TileShape],
    layout: str,
) -> tuple[tuple[SlotReading, ...], tuple[bool, ...]] | None:
    """The token readings of ``obs`` (and whether each is sure) in the order of ``spaces`` (the
    game's tile at the game's rotation), matched by where each space lies: the reader reads a tile
    at one of its equivalent rotations, which may list the same cities in another order (1861's
    Kiev, three cities a third of a turn apart).  None when the spaces do not match."""
    placed = obs.placed
    seen = token_spaces(shapes[placed[0]], placed[1], layout) if placed else token_spaces(printed, 0, layout)
    at = [p for c in seen for p in c.slots]
    want = [p for c in spaces for p in c.slots]
    if len(at) != len(obs.tokens) or len(want) != len(at):
        return None
    order: list[int] = []
    for x, y in want:
        j = min(range(len(at)), key=lambda i: (at[i][0] - x) ** 2 + (at[i][1] - y) ** 2)
        if (at[j][0] - x) ** 2 + (at[j][1] - y) ** 2 > SAME_SPACE**2 or j in order:
            order = list(range(len(at)))  # not the same places: as listed
            break
        order.append(j)
    return tuple(obs.tokens[j] for j in order), tuple(obs.sure_token(j) for j in order)


def reconcile_tokens(
    observations: Mapping[str, HexObservation],
    expected: Mapping[str, Placed],
    expected_tokens: Mapping[str, Sequence[str | None]],
    title: str,
    *,
    token_action: TokenAction | None = None,
    pale: Collection[str] = (),
) -> tuple[tuple[TokenDifference, ...], list[dict[str, Any]], list[tuple[str, str]], dict[str, str]]:
    """The station tokens seen on hexes whose tile is as expected against the game's.

    Compared city by city (which space of a city a token sits in does not matter to the rules; which
    city of a hex does): every token the game has must be seen in its city (a reading of its colour
    group counts), every token seen must be the game's.  A city with a space the reader was unsure of
    is not compared (``tokens_unread``).  A token the game lacks that ``token_action`` turns into an
    action is proposed; one whose corporation's token is missing elsewhere is ``moved_token``.

    Returns the differences, the proposed actions, ``(hex, why not proposed)`` and the unread hexes."""
    board = board_from_title(title)
    shapes = title_tile_shapes(title)
    missing: list[TokenDifference] = []
    extra: list[tuple[str, int, int, frozenset[str], str]] = []  # hex, city, space, corps, place
    wrong: list[TokenDifference] = []
    unread: dict[str, str] = {}
    for hex_id in sorted(observations):
        obs = observations[hex_id]
        if obs.status == "unseen" or not obs.tokens:
            continue
        if obs.covered_near:  # a hand or a card beside it may reach over its tokens
            unread[hex_id] = f"beside covered hexes ({', '.join(obs.covered_near)})"
            continue
        placed = expected.get(hex_id)
        info = board.hexes[hex_id]
        spaces: tuple[CitySpaces, ...] = (
            token_spaces(shapes[placed[0]], placed[1], board.layout)
            if placed is not None
            else token_spaces(info.shape, 0, board.layout)
        )
        mapped = tokens_as(obs, spaces, board.hexes[hex_id].shape, shapes, board.layout)
        if mapped is None:
            continue
        obs = replace(obs, tokens=mapped[0], token_sure=mapped[1])
        want = list(expected_tokens.get(hex_id, ()))
        k = 0
        for city in spaces:
            n = len(city.slots)
            readings = obs.tokens[k : k + n]
            game = [c for c in want[k : k + n] if c is not None]
            k += n
            place = _place(title, hex_id, city.city, len(spaces))
            if any(r is None for r in readings):
                unread[hex_id] = f"{place}: a token space the camera is unsure of"
                continue
            if any(c in pale for c in game):  # a pale token looks like a free space: not checked
                unread[hex_id] = f"{place}: a token the camera cannot tell from a free space"
                continue
            left = [(i, r) for i, r in enumerate(readings) if r]
            lost: list[str] = []
            for corp in game:
                match = next((j for j, (_, r) in enumerate(left) if r is not None and corp in r), None)
                if match is None:
                    lost.append(corp)
                else:
                    left.pop(match)
            if (lost or left) and not all(obs.sure_token(k - n + i) for i in range(n)):
                # the city differs from the game, but not every reading of it is sure enough to say so
                unread[hex_id] = f"{place}: a token the camera is not sure of"
                continue
            for corp in lost:
                if left:
                    _, r = left.pop(0)
                    assert r is not None
                    wrong.append(TokenDifference("wrong_token", hex_id, city.city, corp, r, place))
                else:
                    missing.append(TokenDifference("missing_token", hex_id, city.city, corp, place=place))
            for i, r in left:
                assert r is not None
                extra.append((hex_id, city.city, i, r, place))
    diffs: list[TokenDifference] = [*wrong]
    proposals: list[dict[str, Any]] = []
    rejected: list[tuple[str, str]] = []
    for hex_id, index, space, corps, place in extra:
        moved = next((m for m in missing if m.corporation in corps), None)
        if moved is not None:
            missing.remove(moved)
            diffs.append(
                TokenDifference("moved_token", hex_id, index, moved.corporation, corps, place, moved.place)
            )
            continue
        diffs.append(TokenDifference("unexpected_token", hex_id, index, None, corps, place))
        if token_action is not None:
            answer = token_action(hex_id, index, space, corps)
            if isinstance(answer, dict):
                proposals.append(answer)
            else:
                rejected.append((hex_id, answer))
    diffs.extend(missing)
    diffs.sort(key=lambda d: (d.hex, d.city, d.kind))
    return tuple(diffs), proposals, rejected, unread
