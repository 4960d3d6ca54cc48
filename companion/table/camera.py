"""The camera check of a live game: what the engine's map says against what the camera sees.

``vision`` never imports the engine; this module is the bridge, and the only one (the CLI and
the touchscreen both use it).  It turns the engine's board into vision's plain description,
recognises frames, combines several frames of the table (:class:`BoardWatch`), reconciles the
observation with the engine's tiles, and turns a newly laid tile into a ``lay_tile`` action for
the operating corporation, but only if the engine accepts that lay (checked on a preview,
nothing changes).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from companion.config import default_data_dir
from companion.engine import Game, GameError
from companion.engine.entities import Corporation
from companion.engine.operating import OperatingRound
from companion.interop.replay import iter_replay
from companion.table.service import describe_action
from vision.annotate import annotate
from vision.board import BoardState, board_from_title
from vision.calibration import Calibration
from vision.calibration import load as load_calibration
from vision.pipeline import FrameResult, HexObservation, Recognizer
from vision.reconcile import Difference, Reconciliation, TokenDifference, combine, reconcile

__all__ = [
    "BoardWatch",
    "CameraCheck",
    "board_from_game",
    "check_frame",
    "check_frames",
    "export_board_states",
    "lay_checker",
    "token_action",
]

Frame = NDArray[np.uint8]


@dataclass
class CameraCheck:
    """The outcome of one camera check."""

    differences: list[Difference] = field(default_factory=list)
    token_differences: list[TokenDifference] = field(default_factory=list)
    """Station tokens the board and the game disagree on (a new one the engine accepts is also
    among :attr:`proposals`)."""
    cant_see: list[str] = field(default_factory=list)
    cant_see_why: dict[str, str] = field(default_factory=dict)
    """Why each hex of ``cant_see`` could not be read (the recogniser's words), where it said."""
    proposals: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)
    token_sentences: dict[str, str] = field(default_factory=dict)
    """Each proposed token in the title's own sentence (its table presenter's, as the toast says
    it: ``"MP places a token in B19 (Springfield, IL)"``), by the city the action names."""
    error: str | None = None
    seconds: float = 0.0
    frames: int = 0
    """How many frames the observation combines."""
    image: Frame | None = None
    """The latest frame with the differences outlined in red and hidden hexes in grey."""

    @property
    def clean(self) -> bool:
        return self.error is None and not self.differences and not self.token_differences

    def notes(self) -> list[str]:
        """The differences in words (tiles, then station tokens), then why a tile or a token seen on
        the table cannot be proposed."""
        return (
            [d.describe() for d in self.differences]
            + [d.describe() for d in self.token_differences]
            + [f"{hex_id}: {reason}" for hex_id, reason in self.rejected]
        )

    def hidden(self) -> str:
        """`` (3 hexes hidden)`` or ``""``."""
        n = len(self.cant_see)
        return "" if n == 0 else f" ({n} hex hidden)" if n == 1 else f" ({n} hexes hidden)"

    def summary(self) -> str:
        if self.error:
            return f"camera check failed: {self.error}"
        if self.clean:
            return f"the board matches the game{self.hidden()}"
        return "\n".join(self.notes() + self.proposal_lines())

    def proposal_label(self, action: dict[str, Any]) -> str:
        """A proposed action as its button says it: "Lay tile 9 on E6 (MKT)", "MP places a token in
        B19 (Springfield, IL)" (a token in the title's sentence)."""
        if action.get("type") == "place_token":
            city = str(action["city"])
            return self.token_sentences.get(city, f"{action['entity']} places a token")
        tile = str(action["tile"]).rsplit("-", 1)[0]
        return f"Lay tile {tile} on {action['hex']} ({action['entity']})"

    def proposal_lines(self) -> list[str]:
        return [
            f"proposed: {self.proposal_label(p)}"
            if p["type"] == "place_token"
            else f"proposed: {p['entity']} lays #{p['tile']} on {p['hex']}, rotation {p['rotation']}"
            for p in self.proposals
        ]


def _map_of(game: Game) -> tuple[dict[str, tuple[str, int]], dict[str, list[str | None]]]:
    """The engine's laid tiles ``{hex: (tile id, rotation)}`` and the station tokens on each hex
    ``{hex: [corporation or None per token space]}``, every city's spaces in turn."""
    tiles: dict[str, tuple[str, int]] = {}
    tokens: dict[str, list[str | None]] = {}
    for hex_id, st in game.map.state.items():
        if not st.preprinted:
            tile_id = st.tile.rpartition("-")[0] or st.tile
            tiles[hex_id] = (tile_id, st.rotation % 6)
        spaces = [corp for node in st.spec.city_indices for corp in st.tokens.get(node, [])]
        if any(corp is not None for corp in spaces):
            tokens[hex_id] = spaces
    return tiles, tokens


def board_from_game(game: Game) -> BoardState:
    """The engine's board as vision's plain description: laid tiles and station tokens."""
    tiles, tokens = _map_of(game)
    return board_from_title(game.title, tiles, tokens)


def export_board_states(export: dict[str, Any]) -> list[tuple[int, BoardState]]:
    """The board after every action of an 18xx.games export that changes it (a tile laid, a token
    placed, moved or removed, by an action or by the rules: home tokens, mergers, nationalisation),
    as ``(action id, board)``, by the engine's own replay of the game.  ``GameError`` names an
    action the engine refuses."""
    out: list[tuple[int, BoardState]] = []
    last: tuple[dict[str, tuple[str, int]], dict[str, list[str | None]]] | None = None
    for action, game in iter_replay(export):
        if not isinstance(game, Game):
            raise ValueError(f"{game.title} has no map for the camera to check")
        now = _map_of(game)
        if now != last:
            last = now
            out.append((int(action.get("id", 0)), board_from_title(game.title, *now)))
    return out


def operating_corporation(game: Game) -> Corporation | None:
    rnd = game.round
    return rnd.current_operator if isinstance(rnd, OperatingRound) else None


def lay_action(
    game: Game, corp: Corporation, hex_id: str, tile_id: str, rotation: int
) -> dict[str, Any] | str:
    """The ``lay_tile`` action for a tile id (the next unused copy of it), or why there is none."""
    names = game.map.available_tiles(tile_id)
    if not names:
        return f"no tile #{tile_id} is left in the supply"
    return {
        "type": "lay_tile",
        "entity": corp.sym,
        "entity_type": "corporation",
        "hex": hex_id,
        "tile": names[0],
        "rotation": rotation,
    }


def token_action(game: Game) -> Callable[[str, int, int, frozenset[str]], dict[str, Any] | str]:
    """For the reconciliation: a new token seen in a token space becomes the engine's own
    ``place_token`` action for it, one of the actions the engine lists as legal now (a filter over
    them, as a tap on the map is), the space chosen when it is free; else why not."""

    def action(hex_id: str, city: int, space: int, corps: frozenset[str]) -> dict[str, Any] | str:
        corp = operating_corporation(game)
        if corp is None:
            return "station tokens are placed in operating rounds"
        if corp.sym not in corps:
            who = " or ".join(sorted(corps))
            return f"a {who} token, but {corp.sym} is operating"
        for legal in game.legal_actions(corp, types=("place_token",)):
            act = legal.action
            try:
                where, node = game.map.city(str(act["city"]))
            except Exception:  # noqa: BLE001 - a city the map cannot name is not this one
                continue
            st = game.map.state[where]
            if where != hex_id or st.spec.city_indices.index(node) != city:
                continue
            out = dict(act)
            slots = st.tokens.get(node, [])
            reserved = st.reservations.get(node, [])
            if (
                0 <= space < len(slots)
                and slots[space] is None
                and (space >= len(reserved) or reserved[space] in (None, corp.sym))
            ):
                out["slot"] = space
            return out
        return f"{corp.sym} may not place a token on {hex_id} now"

    return action


def lay_checker(game: Game) -> Callable[[str, str, int], bool | str]:
    """``is_legal_lay`` for the reconciliation: the engine's own verdict, the game unchanged."""
    corp = operating_corporation(game)

    def check(hex_id: str, tile_id: str, rotation: int) -> bool | str:
        if corp is None:
            return "tiles are laid in operating rounds"
        action = lay_action(game, corp, hex_id, tile_id, rotation)
        if isinstance(action, str):
            return action
        try:
            game.preview(action)
        except GameError as err:
            return str(err)
        return True

    return check


class BoardWatch:
    """The camera's memory of the table over its last ``window`` frames.

    Each frame is recognised and kept; the table is what the recent frames agree on
    (:func:`vision.reconcile.combine`): a hex counts when the latest frames that saw it read it
    alike, at least ``min_seen`` of them (two if an earlier frame read it otherwise).  A hand
    passing over the board, a tile being put down or a one-frame misreading therefore never make a
    difference; a tile that really changed is reported once it has been seen ``min_seen`` times.
    """

    def __init__(self, recognizer: Recognizer, window: int = 3, min_seen: int = 2) -> None:
        if not 1 <= min_seen <= window:
            raise ValueError(f"need 1 <= min_seen ({min_seen}) <= window ({window})")
        self.recognizer = recognizer
        self.window = window
        self.min_seen = min_seen
        self.frames: deque[dict[str, HexObservation]] = deque(maxlen=window)
        self.last_frame: Frame | None = None
        self.last_homography: NDArray[np.float64] | None = None
        self.last_error: str | None = None
        """Why the latest frame that did not show the board was refused."""
        self.seconds = 0.0

    def add(self, frame: Frame) -> FrameResult:
        """Recognise a frame and remember what it saw (a frame without the board adds nothing)."""
        result = self.recognizer.recognise(frame)
        self.seconds += result.seconds
        if result.ok and result.homography is not None:
            self.frames.append(result.observations)
            self.last_frame = frame
            self.last_homography = np.asarray(result.homography, dtype=np.float64)
        else:
            self.last_error = result.error
        return result

    @property
    def ready(self) -> bool:
        """Whether the watch has its full window of frames (before that, a hex hidden in one of
        the few frames so far is "can't see" too often to be worth reporting)."""
        return len(self.frames) >= self.window

    def observations(self) -> dict[str, HexObservation]:
        return combine(list(self.frames), self.recognizer.board.title, min_seen=self.min_seen)

    def reconcile(
        self,
        expected: BoardState,
        *,
        is_legal_lay: Callable[[str, str, int], bool | str] | None = None,
        min_confidence: float = 0.5,
        place_token: Callable[[str, int, int, frozenset[str]], dict[str, Any] | str] | None = None,
    ) -> tuple[CameraCheck, Reconciliation | None]:
        """The table as the recent frames agree on it against an expected board (its tiles and
        station tokens), the latest frame annotated; and the reconciliation (``None`` when no frame
        showed the board).  ``place_token`` turns a new token seen into an action to propose."""
        if not self.frames or self.last_frame is None or self.last_homography is None:
            why = f": {self.last_error}" if self.last_error else " (no frame yet)"
            return CameraCheck(error=f"the camera cannot see the board{why}", seconds=self.seconds), None
        recon = reconcile(
            self.observations(),
            dict(expected.tiles),
            expected.title,
            is_legal_lay=is_legal_lay,
            min_confidence=min_confidence,
            expected_tokens=expected.tokens,
            token_action=place_token,
            # a stand-in recogniser (a test's) may read no tokens
            pale_tokens=getattr(getattr(self.recognizer, "tokens", None), "pale", ()),
        )
        image = annotate(
            self.last_frame,
            expected,
            self.last_homography,
            [*recon.differences, *recon.token_differences],
            recon.cant_see,
        )
        check = CameraCheck(
            differences=list(recon.differences),
            token_differences=list(recon.token_differences),
            cant_see=list(recon.cant_see),
            cant_see_why=dict(recon.cant_see_why),
            rejected=list(recon.rejected),
            seconds=self.seconds,
            frames=len(self.frames),
            image=image,
        )
        return check, recon

    def check(self, game: Game, *, min_confidence: float = 0.5) -> CameraCheck:
        """The table as the recent frames agree on it, reconciled with the game's board; a newly
        laid tile the engine accepts becomes the operating corporation's ``lay_tile`` action, a new
        station token its ``place_token`` action."""
        out, recon = self.reconcile(
            board_from_game(game),
            is_legal_lay=lay_checker(game),
            min_confidence=min_confidence,
            place_token=token_action(game),
        )
        corp = operating_corporation(game)
        if recon is None or corp is None:
            return out
        for p in recon.proposals:
            if p.get("type") == "place_token":
                out.proposals.append(dict(p))
                out.token_sentences[str(p["city"])] = describe_action(game, p)
                continue
            action = lay_action(game, corp, str(p["hex"]), str(p["tile"]), int(p["rotation"]))
            if isinstance(action, dict):
                out.proposals.append(action)
        return out


def check_frames(
    game: Game,
    frames: Sequence[Frame],
    recognizer: Recognizer | None = None,
    *,
    min_seen: int = 1,
    min_confidence: float = 0.5,
    calibration: Calibration | None = None,
) -> CameraCheck:
    """Recognise several frames of the table taken now and compare what they agree on with the
    game's board.  With ``min_seen`` 1 a hex seen in any frame counts, unless frames disagree."""
    if not frames:
        raise ValueError("a camera check needs at least one frame")
    if recognizer is None:
        recognizer = Recognizer(board_from_game(game), calibration=calibration or stored_calibration())
    rec = recognizer
    watch = BoardWatch(rec, window=len(frames), min_seen=min(min_seen, len(frames)))
    for frame in frames:
        watch.add(frame)
    return watch.check(game, min_confidence=min_confidence)


def check_frame(
    game: Game,
    frame: Frame,
    recognizer: Recognizer | None = None,
    *,
    min_confidence: float = 0.5,
) -> CameraCheck:
    """Recognise one camera frame and compare it with the game's board."""
    return check_frames(game, [frame], recognizer, min_confidence=min_confidence)


def default_calibration_path() -> Path:
    """Where ``companion vision calibrate`` stores the camera calibration (``$COMPANION_CAMERA_CALIBRATION``
    overrides it)."""
    env = os.environ.get("COMPANION_CAMERA_CALIBRATION")
    return Path(env) if env else default_data_dir() / "camera-calibration.json"


def stored_calibration() -> Calibration | None:
    """The stored calibration, or None when the owner has not calibrated (a damaged file is an
    error naming it, never silently ignored)."""
    path = default_calibration_path()
    return load_calibration(path) if path.exists() else None
