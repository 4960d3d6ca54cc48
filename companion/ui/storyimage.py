"""The game's story as pictures (:mod:`companion.ui.viewmodels.history`): line charts of the players'
net worth, the companies' share prices and the bank's cash by round, drawn with OpenCV (no Kivy:
``companion export --report`` draws them without a window).  ``where`` in each chart gives the pixel
of every point, so the tests can look at the curves where they should be."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.ui.viewmodels.common import money
from companion.ui.viewmodels.history import Series, Story

Image = NDArray[np.uint8]

PAPER = (225, 240, 245)  # BGR of #f5f0e1
INK = (27, 27, 27)
GRID = (200, 210, 214)
FONT = cv2.FONT_HERSHEY_SIMPLEX


def bgr(color: str) -> tuple[int, int, int]:
    c = color.lstrip("#")
    if len(c) == 3:
        c = "".join(ch * 2 for ch in c)
    try:
        r, g, b = (int(c[i : i + 2], 16) for i in (0, 2, 4))
    except (ValueError, IndexError):
        r = g = b = 128
    return b, g, r


def _ascii(text: str) -> str:
    """OpenCV's fonts draw ASCII only: the rouble as ``RUB``, accents dropped, dots and dashes plain."""
    import unicodedata

    text = text.replace("₽", " RUB").replace("·", "-").replace("–", "-").replace("—", "-").replace("…", "...")
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return plain


def _put(img: Image, text: str, *args: Any) -> None:
    cv2.putText(img, _ascii(text), *args)


@dataclass
class Chart:
    """One chart drawn: its picture and where each point of each series lies (``where[name][i]``)."""

    image: Image
    where: dict[str, dict[int, tuple[int, int]]] = field(default_factory=dict)


def _nice_step(span: float, ticks: int = 4) -> float:
    raw = max(span, 1.0) / ticks
    power = 10 ** math.floor(math.log10(raw))
    return float(next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw))


def chart(
    heading: str,
    labels: tuple[str, ...],
    series: tuple[Series, ...],
    size: tuple[int, int],
    currency: str = "${}",
    *,
    scale: float = 1.0,
) -> Chart:
    """A line chart ``size`` (width, height) pixels: one line per series over the samples, the
    sample labels along the bottom, money up the side, and a legend with each series' last value."""
    width, height = size
    img = np.full((height, width, 3), PAPER, np.uint8)
    s = scale
    text = 0.42 * s
    left, right, top, bottom = int(62 * s), int(150 * s), int(28 * s), int(30 * s)
    _put(img, heading, (int(8 * s), int(19 * s)), FONT, 0.55 * s, INK, max(1, int(1.5 * s)), cv2.LINE_AA)
    values = [v for ser in series for v in ser.values if v is not None]
    out = Chart(img)
    if not values or len(labels) < 2:
        _put(img, "nothing yet", (left, top + 30), FONT, text, INK, 1, cv2.LINE_AA)
        return out
    least = min(0, min(values))
    step = _nice_step(max(values) - least)
    low = math.floor(least / step) * step
    high = math.ceil(max(values) / step) * step
    x0, x1, y0, y1 = left, width - right, height - bottom, top

    def px(i: int, v: float) -> tuple[int, int]:
        x = x0 + (x1 - x0) * i / (len(labels) - 1)
        y = y0 - (y0 - y1) * (v - low) / max(high - low, 1)
        return int(round(x)), int(round(y))

    tick = low
    while tick <= high + 1e-9:
        _, y = px(0, tick)
        cv2.line(img, (x0, y), (x1, y), GRID, 1)
        word = money(int(tick), currency)
        (tw, th), _ = cv2.getTextSize(_ascii(word), FONT, text, 1)
        _put(img, word, (x0 - tw - 4, y + th // 2), FONT, text, INK, 1, cv2.LINE_AA)
        tick += step
    every = max(1, math.ceil(len(labels) * 34 * s / max(x1 - x0, 1)))
    for i, label in enumerate(labels):
        x, _ = px(i, low)
        cv2.line(img, (x, y0), (x, y0 + 3), INK, 1)
        if i % every == 0 or i == len(labels) - 1:
            (tw, th), _ = cv2.getTextSize(_ascii(label), FONT, text * 0.9, 1)
            _put(img, label, (x - tw // 2, y0 + th + 8), FONT, text * 0.9, INK, 1, cv2.LINE_AA)
    cv2.line(img, (x0, y0), (x1, y0), INK, 1)
    cv2.line(img, (x0, y0), (x0, y1), INK, 1)
    thick = max(2, int(2.5 * s))
    for ser in series:
        color = bgr(ser.color)
        points: dict[int, tuple[int, int]] = {}
        prev: tuple[int, int] | None = None
        for i, v in enumerate(ser.values):
            if v is None:
                prev = None
                continue
            p = px(i, v)
            points[i] = p
            if prev is not None:
                cv2.line(img, prev, p, color, thick, cv2.LINE_AA)
            else:
                cv2.circle(img, p, thick, color, -1, cv2.LINE_AA)
            prev = p
        out.where[ser.name] = points
    # the legend: each series' last value, highest first
    rows = sorted(series, key=lambda ser: -(ser.last or 0))
    line_h = max(12, int(min(17 * s, (height - top) / max(len(rows), 1))))
    for k, ser in enumerate(rows):
        y = top + k * line_h + line_h // 2
        cv2.rectangle(img, (x1 + 10, y - 4), (x1 + 24, y + 4), bgr(ser.color), -1)
        last = ser.last
        word = f"{ser.name} {money(last, currency)}" if last is not None else ser.name
        _put(img, word, (x1 + 28, y + 4), FONT, text * 0.95, INK, 1, cv2.LINE_AA)
    return out


def story_charts(story: Story, width: int, height: int, *, scale: float = 1.0) -> dict[str, Chart]:
    """The story's charts, each ``width`` × ``height``: ``worth``, ``prices`` and ``bank`` (when
    the bank is counted)."""
    labels = story.short_labels
    out = {
        "worth": chart("Net worth", labels, story.worth, (width, height), story.currency, scale=scale),
        "prices": chart("Share prices", labels, story.prices, (width, height), story.currency, scale=scale),
    }
    if story.bank is not None:
        out["bank"] = chart("Bank", labels, (story.bank,), (width, height), story.currency, scale=scale)
    return out


def report(story: Story, heading: str, lines: tuple[str, ...] = (), width: int = 1200) -> Image:
    """One page: ``heading``, ``lines`` (the result), then the charts one under the other."""
    scale = width / 800
    charts = story_charts(story, width, int(width * 0.42), scale=scale)
    head_h = int((40 + 22 * len(lines)) * scale)
    head = np.full((head_h, width, 3), PAPER, np.uint8)
    size = 0.75 * scale
    while size > 0.3 and cv2.getTextSize(_ascii(heading), FONT, size, 2)[0][0] > width - 20:
        size *= 0.9  # a long title's name fits across the page
    _put(head, heading, (int(10 * scale), int(28 * scale)), FONT, size, INK, 2, cv2.LINE_AA)
    for k, line in enumerate(lines):
        y = int((52 + 22 * k) * scale)
        _put(head, line, (int(12 * scale), y), FONT, 0.5 * scale, INK, 1, cv2.LINE_AA)
    return np.vstack([head, *(c.image for c in charts.values())])


def result_lines(game: Any) -> tuple[str, tuple[str, ...]]:
    """The report's heading and lines: the title, and the winner and final scores once the game is
    over (else how far it has come)."""
    from companion.table.titles import table_title
    from companion.titles import title_info

    title = table_title(game.title)
    name = title_info(game.title).display_name
    if not game.finished:
        return name, (f"{len(game.actions)} actions so far",)
    values = game.result()
    names = {p.id: p.name for p in game.players}
    ranked = sorted(values.items(), key=lambda kv: -kv[1])
    winner = f"{names.get(ranked[0][0], ranked[0][0])} wins with {title.money(game, ranked[0][1])}"
    final = ", ".join(f"{names.get(who, who)} {title.money(game, v)}" for who, v in ranked)
    return f"{name} · {winner}", (f"Final: {final}",)


def report_html(story: Story, heading: str, lines: tuple[str, ...] = ()) -> str:
    """One HTML page to keep: the heading, the result, the charts (one PNG inside the page) and the
    numbers behind them, round by round."""
    import base64
    import html

    ok, png = cv2.imencode(".png", report(story, heading, lines))
    if not ok:
        raise ValueError("the charts could not be encoded as PNG")
    picture = base64.b64encode(png.tobytes()).decode("ascii")
    rows = [*story.worth, *story.prices, *((story.bank,) if story.bank is not None else ())]
    head = "".join(f"<th>{html.escape(label)}</th>" for label in story.short_labels)
    body = "".join(
        f"<tr><th>{html.escape(ser.name)}</th>"
        + "".join(
            f"<td>{'' if v is None else html.escape(money(v, story.currency))}</td>" for v in ser.values
        )
        + "</tr>"
        for ser in rows
    )
    return (
        '<!doctype html>\n<html><head><meta charset="utf-8">'
        f"<title>{html.escape(heading)}</title>"
        "<style>body{font-family:sans-serif;background:#f5f0e1}table{border-collapse:collapse;font-size:12px}"
        "td,th{border:1px solid #ccc;padding:2px 4px;text-align:right}</style></head><body>"
        f"<h1>{html.escape(heading)}</h1>"
        + "".join(f"<p>{html.escape(line)}</p>" for line in lines)
        + f'<img alt="the game\'s story" src="data:image/png;base64,{picture}">'
        + f"<h2>Round by round</h2><table><tr><th></th>{head}</tr>{body}</table>"
        + "</body></html>\n"
    )
