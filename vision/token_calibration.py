"""Learning how the owner's station tokens look from one photo of them laid out.

The owner puts every corporation's token on its home city (as the map prints the homes) and takes a
photo: each home city's token space with the most pixels unlike a free space is that corporation's
token, and its colour is learned; the token spaces of every other city seen are the free spaces'
colour.  Corporations that share a home hex are not learned (which token is whose cannot be told):
they keep the title's colours, as does one whose home the photo does not show.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vision.markers import RegistrationError
from vision.pipeline import Recognizer
from vision.tokens import MAX_DISTANCE, TokenLooks, to_lab

Frame = NDArray[np.uint8]

#: the share of a home city's token space unlike a free space that makes it the token
TOKEN_PIXELS = 0.5


@dataclass(frozen=True)
class TokenCalibration:
    """The token looks learned, and which corporations were not (with why)."""

    looks: TokenLooks
    learned: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]

    def summary(self) -> list[str]:
        lines = [f"learned the tokens of {len(self.learned)} corporations: {', '.join(self.learned)}"]
        lines += [f"{sym}: {why} (the title's colour is used)" for sym, why in self.skipped]
        return lines


def learn_tokens(recognizer: Recognizer, photos: Sequence[Frame]) -> TokenCalibration:
    """The owner's tokens from photos of the board with every corporation's token on its home
    city.  ``ValueError`` when no photo shows the board or no token was found."""
    board = recognizer.board
    homes: dict[str, list[str]] = {}
    for sym, corp in board.corporations.items():
        for hex_id in corp.home[:1]:
            homes.setdefault(hex_id, []).append(sym)
    free_ref = to_lab(np.array([recognizer.tokens.looks.free], np.float32))[0]
    tokens: dict[str, list[NDArray[np.float32]]] = {}
    free: list[NDArray[np.float32]] = []
    skipped: dict[str, str] = {}
    located = 0
    for photo in photos:
        try:
            hmat, _ = recognizer.locate(photo)
        except RegistrationError as exc:
            skipped.setdefault("(photo)", str(exc))
            continue
        located += 1
        result = recognizer.recognise_with(photo, hmat)
        black, gains = recognizer.white_balance(photo, hmat)
        for hex_id, obs in result.observations.items():
            if obs.status == "unseen":
                continue
            cities = recognizer.spaces_of(hex_id, obs.placed)
            slots = [s for c in cities for s in c.slots]
            if not slots:
                continue
            at = np.array(board.geometry.center(hex_id), np.float64)
            pixels = recognizer.tokens.sample(photo, hmat, black, gains, at[None, :] + np.array(slots))
            lab = to_lab(pixels.reshape(-1, 3)).reshape(pixels.shape)
            unlike = np.linalg.norm(lab - free_ref, axis=2) > MAX_DISTANCE
            owners = homes.get(hex_id, [])
            if not owners:
                free.extend(p[~u] for p, u in zip(pixels, unlike, strict=True) if u.mean() < 0.2)
                continue
            if len(owners) > 1:
                for sym in owners:
                    skipped[sym] = f"shares its home {hex_id} with {', '.join(o for o in owners if o != sym)}"
                continue
            share = unlike.mean(axis=1)
            best = int(share.argmax())
            if share[best] < TOKEN_PIXELS:
                skipped.setdefault(owners[0], f"no token seen on its home {hex_id}")
                continue
            skipped.pop(owners[0], None)
            tokens.setdefault(owners[0], []).append(pixels[best][unlike[best]])
    if not located:
        raise ValueError(f"no photo shows the board: {skipped.get('(photo)', 'markers not found')}")
    skipped.pop("(photo)", None)
    if not tokens:
        raise ValueError("no token was found on a home city: lay every corporation's token on its home")
    for sym in board.corporations:
        if sym not in tokens and sym not in skipped:
            skipped[sym] = "its home is not in the photo"
    looks = TokenLooks(
        {sym: _median(v) for sym, v in tokens.items()},
        _median(free) if free else recognizer.tokens.looks.free,
        f"{len(photos)} photo(s) of the owner's tokens",
    )
    return TokenCalibration(looks, tuple(sorted(tokens)), tuple(sorted(skipped.items())))


def _median(samples: Sequence[NDArray[np.float32]]) -> tuple[float, float, float]:
    arr = np.concatenate([np.asarray(s, np.float32).reshape(-1, 3) for s in samples])
    b, g, r = (float(v) for v in np.clip(np.median(arr, axis=0), 0, 255))
    return b, g, r
