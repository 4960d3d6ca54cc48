"""Calibrating the camera to the owner's own printing, step by step (the Setup screen's walk-through
and ``companion vision calibrate`` both use it).

The owner lays at least one tile of each colour (yellow, green, brown) on the board with the markers
in place, photographs it from the camera's position one to three times, sees what was learned (the
hue of each colour and the track's width, next to the recogniser's defaults) and keeps it (stored
where the camera finds it) or discards it (nothing stored).  What lies where is either the open
game's board (its laid tiles) or a layout the walk-through suggests: one tile of each colour on
plain hexes of the title's map.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from vision.board import BoardState, board_from_title, title_tile_shapes
from vision.calibration import COLOURS, DEFAULT_HUES, Calibration, CalibrationError, learn, load, save
from vision.markers import RegistrationError
from vision.pipeline import Homography, Recognizer
from vision.tiles import canonical_rotation

Frame = NDArray[np.uint8]
#: photos the walk-through takes at most (more add little: the hues are medians)
MAX_PHOTOS = 3


def tile_colours(board: BoardState, tiles: Mapping[str, str]) -> dict[str, str]:
    """Hex → tile colour of the laid ``tiles`` (hex → tile id) that calibrate a colour; a tile not in
    the title's set, or one that cannot lie on its hex (the reader would not expect it there: a city
    tile on a plain hex, a town tile on a city), is a :class:`ValueError`."""
    shapes = title_tile_shapes(board.title)
    unknown = sorted(t for t in tiles.values() if t not in shapes)
    if unknown:
        raise ValueError(f"not in the {board.title} tile set: {', '.join(unknown)}")
    for hex_id, tile in sorted(tiles.items()):
        info = board.hexes.get(hex_id)
        if info is None or not info.tileable:
            raise ValueError(f"{hex_id} is not a hex of the {board.title} map a tile can lie on")
        if not info.takes(shapes[tile]):
            printed = info.shape
            what = (
                f"{len(printed.cities)} city(ies) and {len(printed.towns)} town(s)"
                if printed.nodes
                else "no city or town"
            )
            raise ValueError(
                f"tile {tile} cannot lie on {hex_id} (the hex prints {what}; mind its label and colour)"
            )
    return {h: shapes[t].color for h, t in tiles.items() if shapes[t].color in COLOURS}


def learn_from_photos(
    board: BoardState,
    colours: Mapping[str, str],
    photos: Sequence[Frame],
    names: Sequence[str] | None = None,
) -> Calibration:
    """What the photos teach about the printing, given the colour of the tile on each hex named in
    ``colours``.  A photo with fewer than three markers (named by ``names``, else by its number), or
    a colour without a tile, is a :class:`CalibrationError`."""
    rec = Recognizer(board)
    samples, seen, located = [], [], []
    for k, photo in enumerate(photos, start=1):
        try:
            hmat, _ = rec.locate(photo)
        except RegistrationError as exc:
            name = names[k - 1] if names is not None else f"photo {k}"
            raise CalibrationError(f"{name}: {exc}") from None
        patches, cols = rec.calibration_samples(photo, hmat, colours)
        located.append(hmat)
        samples.append(patches)
        seen += cols
    if not samples:
        raise CalibrationError("no photo to learn from")
    learned = learn(np.concatenate(samples), seen, len(photos))
    return check_with_reader(rec, colours, photos, located, learned)


#: how much better (log probability of the truth, per tile on the photos) the trained reader must read
#: the calibration photos with the hues moved before it reads the owner's photos so
WARP_GAIN = 0.005


def check_with_reader(
    rec: Recognizer,
    colours: Mapping[str, str],
    photos: Sequence[Frame],
    homographies: Sequence[Homography],
    learned: Calibration,
) -> Calibration:
    """The trained reader reads the calibration photos as they are and with the learned hues moved onto
    its usual ones (:func:`vision.calibration.hue_lut`); the way that gives what truly lies there (a
    tile of the named colour on a calibration hex, the laid tile on the board's other laid hexes, no
    tile elsewhere) the higher probability is kept (moving the hues must gain :data:`WARP_GAIN`), with
    how many of those hexes it read right.  ``homographies``: each photo's (:meth:`Recognizer.locate`)."""
    net = rec.net
    if net is None:
        return learned
    try:
        warped = net.with_hues_warped(learned)
    except CalibrationError:
        return learned
    k = len(net.catalogue.looks)
    shapes = title_tile_shapes(rec.board.title)
    totals = {False: 0.0, True: 0.0}
    right = {False: 0, True: 0}
    known = tiles = 0
    for photo, hmat in zip(photos, homographies, strict=True):
        seen, patches, _, _ = rec.hex_patches(photo, hmat)
        hexes = [rec.hex_ids[i] for i in seen]
        truth = np.zeros((len(hexes), k + 2), bool)
        for row, hex_id in enumerate(hexes):
            colour = colours.get(hex_id)
            placed = rec.board.tiles.get(hex_id)
            if colour is not None:
                truth[row, :k] = [c == colour for c in net.look_colours]
            elif placed is not None:
                rot = canonical_rotation(shapes[placed[0]], placed[1])
                truth[row, net.catalogue.look_of(placed[0], rot)] = True
            else:
                truth[row, k] = True
        known += len(hexes)
        tiles += int(truth[:, :k].any(axis=1).sum())
        for warp_hues, reader in ((False, net), (True, warped)):
            prob = reader.probabilities(hexes, patches)
            totals[warp_hues] += float(np.log(np.maximum((prob * truth).sum(axis=1), 1e-9)).sum())
            best = prob.argmax(axis=1)
            sure = prob.max(axis=1) >= net.min_probability
            right[warp_hues] += int((truth[np.arange(len(hexes)), best] & sure).sum())
    use = tiles > 0 and totals[True] > totals[False] + WARP_GAIN * tiles
    return replace(learned, warp_hues=use, checked=(right[use], known))


def suggested_layout(title: str) -> dict[str, str]:
    """Colour → hex: plain tileable hexes of the title's map (no city, town or terrain printed), one
    per tile colour, spread over the board, where the owner lays any tile of that colour."""
    board = board_from_title(title)
    plain = sorted(
        (h for h, info in board.hexes.items() if info.tileable and not info.shape.nodes and not info.terrain),
        key=lambda h: board.geometry.center(h),
    )
    if len(plain) < len(COLOURS):
        raise ValueError(f"the {title} map has too few plain hexes to lay the calibration tiles on")
    step = len(plain) // (len(COLOURS) + 1)
    return {colour: plain[step * (k + 1)] for k, colour in enumerate(("yellow", "green", "brown"))}


@dataclass
class CalibrationWalk:
    """One calibration walk-through: what lies where, the photos taken, what was learned."""

    board: BoardState
    colours: dict[str, str]
    """Hex → the colour of the tile lying there."""
    photos: list[Frame] = field(default_factory=list)
    learned: Calibration | None = None

    @classmethod
    def for_layout(cls, title: str) -> CalibrationWalk:
        """The owner lays one tile of each colour on the suggested hexes."""
        layout = suggested_layout(title)
        return cls(board_from_title(title), {h: c for c, h in layout.items()})

    @classmethod
    def for_board(cls, board: BoardState) -> CalibrationWalk:
        """The tiles already laid on the table (the open game's board); every colour must be there."""
        colours = tile_colours(board, {h: t for h, (t, _) in board.tiles.items()})
        missing = [c for c in ("yellow", "green", "brown") if c not in colours.values()]
        if missing:
            raise CalibrationError(
                f"the board has no {' or '.join(missing)} tile yet: lay one tile of each colour to calibrate"
            )
        return cls(board, colours)

    def _kind(self, hexes: Sequence[str]) -> str:
        """What to lay: on hexes that print no city or town only a plain track tile fits."""
        plain = all(not self.board.hexes[h].shape.nodes for h in hexes)
        return "track tile (no city or town)" if plain else "tile"

    def steps(self) -> list[str]:
        """What to lay, in words (one line per colour, or the game's board)."""
        by_colour: dict[str, list[str]] = {}
        for hex_id, colour in sorted(self.colours.items()):
            by_colour.setdefault(colour, []).append(hex_id)
        return [
            f"{colour.capitalize()} {self._kind(hexes)} on {', '.join(hexes)}"
            for colour in ("yellow", "green", "brown")
            if (hexes := by_colour.get(colour))
        ]

    def add_photo(self, photo: Frame) -> str:
        """Take one photo: it must show the markers and every colour's tiles (checked by learning
        from it alone); what was learned so far is dropped until :meth:`learn`.  Returns a line for
        the owner; a photo that cannot calibrate is a :class:`CalibrationError` and is not kept."""
        if len(self.photos) >= MAX_PHOTOS:
            raise CalibrationError(f"at most {MAX_PHOTOS} photos: learn from these, or start again")
        learn_from_photos(self.board, self.colours, [photo])
        self.photos.append(photo)
        self.learned = None
        return f"photo {len(self.photos)} taken: markers found, every colour measured"

    def learn(self) -> Calibration:
        """Learn from every photo taken."""
        self.learned = learn_from_photos(self.board, self.colours, self.photos)
        return self.learned

    def summary(self) -> list[str]:
        """What was learned, next to the defaults, in words."""
        cal = self.learned
        if cal is None:
            return []
        lines = [
            f"{colour.capitalize()}: hue {cal.hues[colour]:.0f} (default {DEFAULT_HUES[colour]:.0f}), "
            f"{cal.hexes.get(colour, 0)} tile(s) measured"
            for colour in ("yellow", "green", "brown")
        ]
        lines.append(f"From {cal.photos} photo(s)")
        right, known = cal.checked
        if known:
            how = "with these hues moved onto the usual ones" if cal.warp_hues else "as printed"
            lines.append(f"The camera read {right} of {known} hexes of the photos right, {how}")
        return lines

    def keep(self, path: Path) -> Path:
        """Store what was learned at ``path`` (where the camera finds it)."""
        if self.learned is None:
            raise CalibrationError("nothing learned yet: take a photo and learn first")
        before = load(path) if path.exists() else None
        # the station tokens learned before stay (learn_tokens_into)
        save(replace(self.learned, tokens=dict(before.tokens)) if before else self.learned, path)
        return path


def learn_tokens_into(title: str, photos: Sequence[Frame], path: Path) -> list[str]:
    """Learn how the owner's station tokens look from photos of every corporation's token on its
    home city (:func:`vision.token_calibration.learn_tokens`) and store it in the calibration at
    ``path`` beside the tile colours (kept); returns what was learned, in words.  A photo that cannot
    calibrate is a :class:`CalibrationError` and nothing is stored."""
    from vision.token_calibration import learn_tokens

    before = load(path) if path.exists() else Calibration()
    try:
        learned = learn_tokens(Recognizer(board_from_title(title), calibration=before), photos)
    except ValueError as err:
        raise CalibrationError(str(err)) from None
    save(replace(before, tokens={**before.tokens, title: learned.looks}), path)
    return [*learned.summary(), f"stored at {path}"]
