"""The recognition benchmark: fixture board states → simulated photos → pipeline → reconciliation.

For every frame a board state is taken from a finished 18xx.games game at a
random point, a few deliberate changes are made to what lies on the table (a
tile turned, a tile missing, an extra tile, another tile) while the *expected*
map stays as the game says, the table is photographed with
:func:`vision.perturb.simulate_frame`, and the recogniser and
:func:`vision.reconcile.reconcile` run on the photo.  Scoring:

* a hex is *visible* when at least 95 % of it is in frame, uncovered and not
  washed out by glare;
* *hex correct*: a visible tileable hex whose observation equals the truth
  (empty, or the right tile at an equivalent rotation); "can't see" counts as
  not correct;
* a *false difference* is a reported difference on a hex where the table
  matches the expected map; a *missed difference* is a deliberate change on a
  visible hex that is not reported with the right kind.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from devtools.looks import Renderer, renderer
from vision.board import UPGRADE_ORDER, BoardState, title_tile_shapes
from vision.calibration import Calibration
from vision.fixture_states import FixtureError, FixtureGame, load_fixture, replay
from vision.perturb import FRAME_SIZE, Perturbation, hex_visibility, random_perturbation, simulate_frame
from vision.pipeline import Recognizer
from vision.reconcile import reconcile
from vision.render import Image
from vision.tiles import rotation_classes

Placed = tuple[str, int]


#: the repository's folders of game exports under ``tests/fixtures``: real games exported from
#: 18xx.games, and random legal games for a title 18xx.games has no exports of
FIXTURE_SETS = ("18xx.games", "random-games")


def default_fixture_dir(title: str) -> Path:
    """The real 18xx.games exports of a title (``$COMPANION_FIXTURES/<title>`` if set)."""
    env = os.environ.get("COMPANION_FIXTURES")
    base = Path(env) if env else _FIXTURES / FIXTURE_SETS[0]
    return base / title


_FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"


def _export_title(path: Path) -> str | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise FixtureError(f"cannot read game export {path}: {exc}") from exc
    return str(data.get("title")) if isinstance(data, dict) else None


def fixture_paths(title: str, directory: Path | None = None) -> list[Path]:
    """The game exports of ``title`` to draw board states from: those in ``directory``, or else the
    title's real 18xx.games exports (:func:`default_fixture_dir`) and its random legal games
    (``tests/fixtures/random-games/<title>``).  ``FileNotFoundError`` when there are none."""
    folders = [directory] if directory else [default_fixture_dir(title), _FIXTURES / FIXTURE_SETS[1] / title]
    paths = [
        p
        for folder in folders
        for p in sorted(folder.glob("*.json"))
        if not p.name.endswith(".trace.json") and _export_title(p) == title
    ]
    if not paths:
        where = " or ".join(str(f) for f in folders)
        raise FileNotFoundError(
            f"no {title} game exports in {where} (set COMPANION_FIXTURES to their folder)"
        )
    return paths


def fixture_games(title: str, directory: Path | None = None) -> list[FixtureGame]:
    return [load_fixture(p) for p in fixture_paths(title, directory)]


@dataclass(frozen=True)
class Change:
    kind: str  # expected difference kind
    hex: str
    expected: Placed | None
    actual: Placed | None


def _first_tile_for(board: BoardState, hex_id: str, rng: np.random.Generator) -> Placed | None:
    """A plausible first tile for a hex without one: on a plain hex a yellow tile, on a hex printed
    with a tile an upgrade of the next colour; with as many cities and towns and the hex's label."""
    info = board.hexes[hex_id]
    want = (len(info.shape.cities), len(info.shape.towns))
    colour = (
        "yellow" if info.printed_tile is None else UPGRADE_ORDER[UPGRADE_ORDER.index(info.printed_tile) + 1]
    )
    shapes = title_tile_shapes(board.title)
    options = [
        s
        for s in shapes.values()
        if s.color == colour
        and (len(s.cities), len(s.towns)) == want
        and info.may_carry(s)
        and s.label == info.shape.label
    ]
    if not options:
        return None
    shape = options[int(rng.integers(len(options)))]
    return shape.id, int(rng.integers(6))


def make_changes(board: BoardState, rng: np.random.Generator, count: int) -> tuple[BoardState, list[Change]]:
    """The table with ``count`` deliberate changes against ``board`` (the expected map)."""
    shapes = title_tile_shapes(board.title)
    tiles = dict(board.tiles)
    changes: list[Change] = []
    laid = sorted(board.tiles)
    empty = sorted(h for h, info in board.hexes.items() if info.tileable and h not in board.tiles)
    used: set[str] = set()
    for _ in range(count * 4):
        if len(changes) >= count:
            break
        kind = ["wrong_rotation", "missing_tile", "unexpected_tile", "wrong_tile"][int(rng.integers(4))]
        pool = empty if kind == "unexpected_tile" else laid
        pool = [h for h in pool if h not in used]
        if not pool:
            continue
        hex_id = pool[int(rng.integers(len(pool)))]
        want = board.tiles.get(hex_id)
        if kind == "wrong_rotation" and want is not None:
            groups = [g for g in rotation_classes(shapes[want[0]]) if want[1] not in g]
            if not groups:
                continue
            new: Placed | None = (want[0], min(groups[int(rng.integers(len(groups)))]))
        elif kind == "missing_tile":
            new = None
        elif kind == "unexpected_tile":
            new = _first_tile_for(board, hex_id, rng)
            if new is None:
                continue
        else:
            assert want is not None
            colour = shapes[want[0]].color
            # another tile the rules let lie there (a labelled city takes only its label's tiles, a city
            # only city tiles): a wrong tile the engine would have accepted in the right one's place
            info = board.hexes[hex_id]
            others = [
                s
                for s in shapes.values()
                if s.color == colour
                and s.id != want[0]
                and info.takes(s)
                and (s.label is None or s.label in info.labels)
            ]
            same_nodes = [
                s
                for s in others
                if (len(s.cities), len(s.towns)) == (len(shapes[want[0]].cities), len(shapes[want[0]].towns))
            ]
            pick = same_nodes or others
            if not pick:
                continue
            new = (pick[int(rng.integers(len(pick)))].id, int(rng.integers(6)))
        if new is None:
            tiles.pop(hex_id, None)
        else:
            tiles[hex_id] = new
        used.add(hex_id)
        changes.append(Change(kind, hex_id, want, new))
    return board.with_tiles(tiles), changes


@dataclass
class FrameReport:
    frame: int
    game: int
    action: int
    seconds: float
    markers: int
    visible: int = 0
    correct: int = 0
    tiles_visible: int = 0
    tile_number_correct: int = 0
    rotation_correct: int = 0
    cant_see: int = 0
    false_differences: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)
    found: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    #: laid tiles in clear view the camera said it can't see, each with the recogniser's reason
    unread: list[str] = field(default_factory=list)
    error: str | None = None
    cpu_seconds: float = 0.0  # processor time of the recognition (wall time inflates on a shared machine)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _states(game: FixtureGame) -> list[tuple[int, BoardState]]:
    return list(replay(game))


def run_bench(
    title: str,
    frames: int,
    seed: int,
    *,
    strength: float = 1.0,
    size: tuple[int, int] = FRAME_SIZE,
    max_changes: int = 3,
    fixtures: Path | None = None,
    recognizer: Recognizer | None = None,
    style: str = "ours",
    states: Sequence[Sequence[tuple[int, BoardState]]] | None = None,
    calibration: Calibration | None = None,
) -> Iterator[FrameReport]:
    """Yield one report per simulated frame (deterministic for ``seed``), the board drawn in the
    look ``style`` (:mod:`devtools.looks`), read with ``calibration`` (the owner's, e.g. learned from
    :func:`calibration_photos`) unless a ``recognizer`` is given.

    ``states`` are the board states to photograph, one list of ``(action id, board)`` per game (the
    caller's replay of the games, e.g. the rules engine's); without them the fixture exports of the
    title are replayed onto the map by :func:`vision.fixture_states.replay`."""
    if frames < 1:
        raise ValueError("--frames must be at least 1")
    paint = renderer(style)
    if states is None:
        states = [_states(g) for g in fixture_games(title, fixtures)]
    if not states:
        raise ValueError(f"no {title} board states to photograph")
    rec = recognizer or Recognizer(states[0][-1][1] if states[0] else _empty(title), calibration=calibration)
    rng = np.random.default_rng(seed)
    for index in range(frames):
        g = int(rng.integers(len(states)))
        pick = states[g][int(rng.integers(len(states[g])))] if states[g] else (0, _empty(title))
        action_id, expected = pick
        table, changes = make_changes(expected, rng, int(rng.integers(0, max_changes + 1)))
        perturbation = random_perturbation(rng, strength)
        sim = simulate_frame(table, perturbation, size, draw=_drawn_with(paint, perturbation.seed))
        cpu = time.process_time()
        result = rec.recognise(sim.image)
        cpu = time.process_time() - cpu
        report = FrameReport(
            index, g, action_id, result.seconds, len(result.markers), error=result.error, cpu_seconds=cpu
        )
        vis = hex_visibility(sim, table.geometry, list(rec.hex_ids))
        shapes = title_tile_shapes(title)
        changed = {c.hex: c for c in changes}
        recon = reconcile(result.observations, dict(expected.tiles), title)
        reported = {d.hex: d for d in recon.differences}
        for hex_id, obs in result.observations.items():
            if vis[hex_id] < 0.95:
                continue
            report.visible += 1
            truth = table.tiles.get(hex_id)
            if obs.status == "unseen":
                report.cant_see += 1
                if truth is not None:
                    report.unread.append(f"{hex_id}: truth {truth}: {obs.why or 'no reason given'}")
            if truth is None:
                ok = obs.status == "empty"
            else:
                report.tiles_visible += 1
                number_ok = obs.status == "tile" and obs.tile == truth[0]
                rot_ok = (
                    number_ok
                    and obs.rotation is not None
                    and any(
                        truth[1] in grp and obs.rotation in grp for grp in rotation_classes(shapes[truth[0]])
                    )
                )
                report.tile_number_correct += int(number_ok)
                report.rotation_correct += int(rot_ok)
                ok = rot_ok
            report.correct += int(ok)
            if not ok and obs.status != "unseen":
                report.wrong.append(
                    f"{hex_id}: truth {truth}, seen {obs.placed or obs.status} ({obs.confidence:.2f})"
                    + (f" by {obs.why}" if obs.why else "")
                )
        for hex_id, diff in reported.items():
            if hex_id not in changed:
                report.false_differences.append(diff.describe())
        for change in changes:
            report.changes.append(f"{change.hex}: {change.kind}")
            found = reported.get(change.hex)
            if found is not None and found.kind == change.kind:
                report.found.append(change.hex)
            elif vis.get(change.hex, 0.0) >= 0.95:
                report.missed.append(
                    f"{change.hex}: {change.kind}" + (f" reported as {found.kind}" if found else "")
                )
        yield report


#: the calibration photos' random stream, apart from the frames' (``seed`` picks the frames)
CALIBRATION_STREAM = 0xCA1


def calibration_rng(seed: int) -> np.random.Generator:
    """The random stream of a bench's calibration photos: its own, never the frames' stream."""
    return np.random.default_rng((seed, CALIBRATION_STREAM))


def calibration_tiles(
    board: BoardState, colours: Mapping[str, str], rng: np.random.Generator
) -> dict[str, Placed]:
    """Hex → a tile of the named colour the owner might lay there (plain track where the hex takes it,
    as on the walk-through's plain hexes; else any tile of that colour the hex takes), at a random
    rotation."""
    shapes = title_tile_shapes(board.title)
    out: dict[str, Placed] = {}
    for hex_id, colour in sorted(colours.items()):
        info = board.hexes[hex_id]
        fits = [s for s in sorted(shapes.values(), key=lambda s: s.id) if s.color == colour and info.takes(s)]
        plain = [s for s in fits if not s.nodes]
        pick = plain or fits
        if not pick:
            raise ValueError(f"no {colour} tile of {board.title} fits {hex_id}")
        out[hex_id] = (pick[int(rng.integers(len(pick)))].id, int(rng.integers(6)))
    return out


def calibration_perturbation(rng: np.random.Generator) -> Perturbation:
    """A calibration photo's camera and light: the bench's usual perturbations in a moderate light,
    without a hand or cards over the board, shadows or glare (the owner takes it with care)."""
    p = random_perturbation(rng)
    return replace(
        p,
        brightness=float(np.clip(p.brightness, 0.9, 1.1)),
        contrast=float(np.clip(p.contrast, 0.9, 1.1)),
        hand=False,
        cards=0,
        shadows=0,
        glare=0,
    )


def calibration_photos(
    table: BoardState, style: str, rng: np.random.Generator, photos: int, size: tuple[int, int] = FRAME_SIZE
) -> list[Image]:
    """``photos`` simulated calibration photos of ``table`` (the calibration tiles laid) in ``style``."""
    paint = renderer(style)
    out = []
    for _ in range(photos):
        p = calibration_perturbation(rng)
        out.append(simulate_frame(table, p, size, draw=_drawn_with(paint, p.seed)).image)
    return out


def _drawn_with(paint: Renderer, seed: int) -> Callable[[BoardState, float], Image]:
    def draw(board: BoardState, scale: float) -> Image:
        return paint(board, scale, seed)

    return draw


def _empty(title: str) -> BoardState:
    from vision.board import board_from_title

    return board_from_title(title)


def why_class(reason: str) -> str:
    """A reason with its particulars (tile numbers, rotations, edges, measures) taken out, so the
    reasons of many hexes tally by kind: "edges [2] neither track nor tile colour" and "edges [0, 4]
    neither ..." are one kind."""
    reason = re.sub(r"\[[^\]]*\]", "[…]", reason)
    reason = re.sub(r"\d+(\.\d+)?[A-Z]?", "#", reason)
    return re.sub(r"#(/#)+", "#", reason)


def why_tally(reports: Sequence[FrameReport]) -> list[tuple[int, str]]:
    """The kinds of reason (:func:`why_class`) laid tiles in clear view went unread for, most first."""
    counts: dict[str, int] = {}
    for report in reports:
        for line in report.unread:
            kind = why_class(line.split(": ", 2)[-1])
            counts[kind] = counts.get(kind, 0) + 1
    return sorted(((n, kind) for kind, n in counts.items()), key=lambda item: (-item[0], item[1]))


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return float(np.percentile(np.array(values), q))


def summarise(reports: list[FrameReport]) -> dict[str, Any]:
    visible = sum(r.visible for r in reports)
    tiles = sum(r.tiles_visible for r in reports)
    seconds = [r.seconds for r in reports]
    changes = sum(len(r.changes) for r in reports)
    missed = sum(len(r.missed) for r in reports)
    return {
        "frames": len(reports),
        "registration_failures": sum(1 for r in reports if r.error),
        "hexes_visible": visible,
        "hex_accuracy": sum(r.correct for r in reports) / visible if visible else float("nan"),
        "cant_see_rate": sum(r.cant_see for r in reports) / visible if visible else float("nan"),
        "wrong_hexes": sum(len(r.wrong) for r in reports),
        "tiles_visible": tiles,
        "tile_number_accuracy": sum(r.tile_number_correct for r in reports) / tiles
        if tiles
        else float("nan"),
        "rotation_accuracy": sum(r.rotation_correct for r in reports) / tiles if tiles else float("nan"),
        "false_differences_per_frame": sum(len(r.false_differences) for r in reports) / max(len(reports), 1),
        "frames_without_false_difference": sum(1 for r in reports if not r.false_differences)
        / max(len(reports), 1),
        "real_differences": changes,
        "missed_differences": missed,
        "p50_seconds": statistics.median(seconds) if seconds else float("nan"),
        "p95_seconds": percentile(seconds, 95),
        "p95_cpu_seconds": percentile([r.cpu_seconds for r in reports], 95),
    }
