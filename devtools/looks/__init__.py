"""Board looks the recogniser is measured on, each drawn by its own renderer.

* ``ours``: :func:`vision.render.render_board`, the renderer the recogniser's templates are drawn
  with (so it is tuned on it by construction);
* ``flat``: :mod:`devtools.looks.flat`, in the spirit of 18xx.games' own flat tile graphics;
* ``cardboard``: :mod:`devtools.looks.cardboard`, a printed paper map with jittered cardboard tiles,
  token discs, paper texture and warm uneven light;
* ``classic``: :mod:`devtools.looks.classic`, an older printing in other colours and measures, added
  after development and never looked at while tuning;
* ``print2``: :mod:`devtools.looks.print2`, a third printing drawn by another method (distance fields,
  not OpenCV strokes) in other colours, widths, outline style and font, added after the second round
  of development; in the third its painter was checked against the tile codes and its wrong readings
  were looked at hex by hex, so it counts as tuned on since;
* ``offset``: :mod:`devtools.looks.offset`, an offset-printed board from another publisher, written
  by someone who had not read the recogniser (sprites of polygons composited onto the board: thick
  bevelled card tiles laid by hand, black track with a white casing, heavy-ringed cities and pills,
  towns as dots, red-rimmed revenue circles, condensed serif numbers that turn with the tile, hatched
  terrain and wavy rivers); added as the new untuned look after ``classic`` had been measured for
  several rounds, measured once untuned; in the next round its town dots (read as the plain track)
  were looked at and the rule that a town is a bar or a dot was found on them, so it counts as tuned
  on since;
* ``reprint``: :mod:`devtools.looks.reprint`, a modern reprint by a third publisher, written (like
  ``offset``) by someone who had not read the recogniser and added while the recogniser was being
  fixed on ``offset``: blue-black track with no casing whose curves leave each edge by a short
  straight stub and bend on a tighter circular arc, towns as a bar on straight two-exit track and a
  dot on curves and junctions, cities as white token spaces in a thin ring set in a halo of the
  tile's deeper colour, a bare revenue number, the tile number along a free edge, lemon-yellow,
  blue-green, red-brown and light-gray cards with rounded corners laid by hand, a parchment map with
  soft terrain shading, blue river bands and a mid-grey grid, tokens with a white logo ring; measured
  untuned once, then its wrong readings were looked at hex by hex (issue 18's task vfix), so it counts
  as tuned on since;
* ``varied``: :mod:`devtools.looks.varied`, not one printing but a family: every seed draws a new
  look (:func:`devtools.looks.varied.random_look`: map fill and texture, grid, terrain symbols, card
  colours from wide hue bands per colour class, card edges and shadows, track colour, width, casing and
  curve family, town marks, token spaces, revenue, number and label styles, tokens, print blur, noise
  and misregistration), kept readable by constraints on its colours and measures; the training data of
  the recogniser's network is drawn in it, so it counts as tuned on;
* ``folio``: :mod:`devtools.looks.folio`, a laminated edition by a fourth publisher, written by a
  further helper who had not read the recogniser nor the other looks' painters, added while
  ``reprint``'s frames were being looked at: thin near-black track (0.042 hex widths) whose curves
  are polylines of straight segments (a stub square off each edge, then straight to a corner point),
  towns as hollow white circles in a dark ring on the track, cities as white circles in a thin ring
  (two spaces as touching circles, three as a trefoil, four as a square), revenue in a small white
  hexagon at a corner, the tile number in another corner, labels as a serif letter in a white box,
  ochre, forest-green, chocolate and silver cards exactly the hex's size with a thin white margin
  and a printed border line in a darker shade of their colour, a glossy laminate with a few soft
  highlights, a very light green map with terrain as small symbols, thin dark-blue rivers and a thin
  dark grid, and wooden station tokens (a flat colour with a darker rim).

* ``heritage``: :mod:`devtools.looks.heritage`, a traditional boxed edition: an ivory map with a mottled
  paper grain and fibres, a thin sepia grid and a double-rule frame with serif coordinates, atlas-style
  terrain (hatched sepia peaks, blue wave strokes, pale lakes, blue rivers) with ``$`` costs, italic
  names at the foot of the hex, red off-map areas with tapered arrows and phase-coloured revenue boxes;
  mustard, sage, tan and warm-gray die-cut tiles with rounded corners, a dark cut edge and a soft
  shadow, laid by hand (≤ 0.02 hex, ≤ 2.5°); near-black track with a cream edging on smooth
  square-leaving curves, tapered where terminal; white cities in a heavy black ring (several spaces in
  one outlined plate), towns as black dots in a cream ring on the track, bare bold serif revenues
  beside their stop, serif labels and tile numbers in the freest spot and corner, and card tokens with
  a darker rim and the company's initials.  It was written without looking at the recogniser or the
  other looks.

:data:`TUNED` names the looks whose photos were looked at while the recogniser was developed (the
print reader's rules were found on ``ours`` and ``flat``, in a second round on ``flat`` and
``cardboard``, in a third on ``print2``'s wrong readings, and in a later one on ``offset``'s town
dots, and since then on ``reprint``'s wrong readings); figures on ``classic``, ``folio`` and
``heritage`` are figures on boards it was never tuned on (``folio``'s and ``heritage``'s frames have
never been looked at by anyone who worked on the recogniser).
"""

from __future__ import annotations

from collections.abc import Callable

from devtools.looks import cardboard, classic, flat, folio, heritage, offset, print2, reprint, varied
from vision.board import BoardState
from vision.render import Image, render_board

Renderer = Callable[[BoardState, float, int], Image]


def _ours(board: BoardState, scale: float, seed: int = 0) -> Image:
    del seed
    return render_board(board, scale)


STYLES: dict[str, Renderer] = {
    "ours": _ours,
    "flat": flat.render,
    "cardboard": cardboard.render,
    "classic": classic.render,
    "print2": print2.render,
    "offset": offset.render,
    "reprint": reprint.render,
    "folio": folio.render,
    "heritage": heritage.render,
    "varied": varied.render,
}
#: looks whose photos were used while developing and tuning the recogniser
TUNED: frozenset[str] = frozenset({"ours", "flat", "cardboard", "print2", "offset", "reprint", "varied"})


def renderer(name: str) -> Renderer:
    """The renderer of a look; an unknown name is a ``ValueError`` naming the known ones."""
    try:
        return STYLES[name]
    except KeyError:
        raise ValueError(f"unknown style {name!r} (known: {', '.join(STYLES)})") from None
