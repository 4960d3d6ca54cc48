"""Draw the wiring diagrams hardware/wiring/reader.svg and hardware/wiring/panel.svg.

The pin numbers come from the code, so the pictures cannot drift from it: the
reader board's defaults are read from firmware/main.py, the panel's from
companion.hardware.panel.PanelPins.  Run from the repository root:

    .venv/bin/python hardware/wiring/generate.py

tests/hardware/test_panel_wiring.py checks that the committed SVGs are up to date.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).resolve().parent

# Raspberry Pi Pico: GPIO number -> physical pin.
PICO_PHYS = {
    0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16, 13: 17,
    14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31, 27: 32, 28: 34,
}  # fmt: skip
# Raspberry Pi 40-pin header: BCM GPIO number -> physical pin.
PI_PHYS = {
    2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 0: 27, 5: 29, 6: 31, 13: 33, 19: 35,
    26: 37, 14: 8, 15: 10, 18: 12, 23: 16, 24: 18, 25: 22, 8: 24, 7: 26, 1: 28, 12: 32, 16: 36, 20: 38, 21: 40,
}  # fmt: skip
# RP2040 SPI0 pin options.
SPI0_SCK = {2, 6, 18, 22}
SPI0_TX = {3, 7, 19}
SPI0_RX = {0, 4, 16, 20}


def firmware_defaults() -> dict[str, object]:
    """The upper-case constants at the top of firmware/main.py (without importing it: it needs `machine`)."""
    tree = ast.parse((ROOT / "firmware" / "main.py").read_text())
    out: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name.isupper():
                out[name] = ast.literal_eval(node.value)
    return out


@dataclass
class Svg:
    width: int
    height: int

    def __post_init__(self) -> None:
        self.parts: list[str] = []

    def rect(self, x: float, y: float, w: float, h: float, fill: str = "#fff", stroke: str = "#222") -> None:
        self.parts.append(
            f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="6" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="1.5"/>'
        )

    def text(
        self, x: float, y: float, s: str, size: int = 13, anchor: str = "start", weight: str = "normal"
    ) -> None:
        self.parts.append(
            f'<text x="{x}" y="{y}" font-family="DejaVu Sans, Arial, sans-serif" font-size="{size}" '
            f'text-anchor="{anchor}" font-weight="{weight}">{escape(s)}</text>'
        )

    def line(self, pts: list[tuple[float, float]], color: str, width: float = 2.2) -> None:
        d = " ".join(f"{x},{y}" for x, y in pts)
        self.parts.append(
            f'<polyline points="{d}" fill="none" stroke="{color}" stroke-width="{width}" stroke-linejoin="round"/>'
        )

    def dot(self, x: float, y: float, color: str) -> None:
        self.parts.append(f'<circle cx="{x}" cy="{y}" r="3.5" fill="{color}"/>')

    def render(self) -> str:
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
            f'viewBox="0 0 {self.width} {self.height}">\n'
            f'<rect width="{self.width}" height="{self.height}" fill="#fbfbf8"/>\n'
        )
        return head + "\n".join(self.parts) + "\n</svg>\n"


COLORS = {
    "3V3": "#d62728",
    "GND": "#222222",
    "SCK": "#1f77b4",
    "MOSI": "#2ca02c",
    "MISO": "#9467bd",
    "RST": "#ff7f0e",
    "CS": ["#8c564b", "#e377c2", "#17becf", "#bcbd22"],
}


def reader_svg() -> str:
    fw = firmware_defaults()
    cs = list(fw["PIN_CS"])  # type: ignore[call-overload]
    sck, mosi, miso, rst, buzzer = (
        fw["PIN_SCK"],
        fw["PIN_MOSI"],
        fw["PIN_MISO"],
        fw["PIN_RST"],
        fw["PIN_BUZZER"],
    )
    n = len(cs)
    pico_pins: list[tuple[str, str, str]] = [  # (label, net, colour)
        (f"GP{sck}  (pin {PICO_PHYS[sck]})  SPI0 SCK", "SCK", COLORS["SCK"]),  # type: ignore[index]
        (f"GP{mosi}  (pin {PICO_PHYS[mosi]})  SPI0 TX", "MOSI", COLORS["MOSI"]),  # type: ignore[index]
        (f"GP{miso}  (pin {PICO_PHYS[miso]})  SPI0 RX", "MISO", COLORS["MISO"]),  # type: ignore[index]
        (f"GP{rst}  (pin {PICO_PHYS[rst]})  RST", "RST", COLORS["RST"]),  # type: ignore[index]
    ]
    for i, p in enumerate(cs):
        pico_pins.append((f"GP{p}  (pin {PICO_PHYS[p]})  CS pad {i}", f"CS{i}", COLORS["CS"][i % 4]))  # type: ignore[index]
    pico_pins += [("3V3(OUT)  (pin 36)", "3V3", COLORS["3V3"]), ("GND  (pin 38)", "GND", COLORS["GND"])]
    reader_rows = ["SDA", "SCK", "MOSI", "MISO", "IRQ", "GND", "RST", "3.3V"]
    row_net = {"SCK": "SCK", "MOSI": "MOSI", "MISO": "MISO", "GND": "GND", "RST": "RST", "3.3V": "3V3"}
    row_h, box_h = 22, 8 * 22 + 34
    readers_bottom = 60 + n * (box_h + 24)
    height = max(readers_bottom, 110 + len(pico_pins) * 30) + 150
    svg = Svg(1000, height)
    svg.text(20, 30, "Reader board: Raspberry Pi Pico + MFRC522 readers (shared SPI0, one chip select each)", 17,
             weight="bold")  # fmt: skip
    # Pico
    px, py = 30, 70
    svg.rect(px, py, 270, 40 + len(pico_pins) * 30, "#e8f3e8")
    svg.text(px + 135, py + 24, "Raspberry Pi Pico", 15, "middle", "bold")
    pico_y: dict[str, float] = {}
    for k, (label, net, color) in enumerate(pico_pins):
        y = py + 50 + k * 30
        svg.text(px + 12, y + 4, label, 12)
        pico_y[net] = y
        svg.dot(px + 270, y, color)
    # Readers
    rx = 740
    reader_y: list[dict[str, float]] = []
    for i in range(n):
        top = 60 + i * (box_h + 24)
        svg.rect(rx, top, 200, box_h, "#e8eef8")
        svg.text(rx + 100, top + 22, f"MFRC522 pad {i}", 14, "middle", "bold")
        ys: dict[str, float] = {}
        for k, row in enumerate(reader_rows):
            y = top + 40 + k * row_h
            svg.text(rx + 14, y + 4, row, 12)
            ys[row] = y
        reader_y.append(ys)
    # Lanes: one vertical wire per net between the boards.
    nets = ["SCK", "MOSI", "MISO", "RST", "3V3", "GND"] + [f"CS{i}" for i in range(n)]
    lane_x = {net: 340 + k * 36 for k, net in enumerate(nets)}
    color_of = {net: c for _l, net, c in pico_pins}
    for net in nets:
        x = lane_x[net]
        color = color_of[net]
        targets: list[float] = []
        for i in range(n):
            if net == f"CS{i}":
                targets.append(reader_y[i]["SDA"])
            elif not net.startswith("CS"):
                row = next(r for r, v in row_net.items() if v == net)
                targets.append(reader_y[i][row])
        y0 = pico_y[net]
        svg.line([(px + 270, y0), (x, y0)], color)
        svg.line([(x, min([*targets, y0])), (x, max([*targets, y0]))], color)
        svg.dot(x, y0, color)
        for y in targets:
            svg.line([(x, y), (rx, y)], color)
            svg.dot(x, y, color)
            svg.dot(rx, y, color)
    # Notes
    ny = max(readers_bottom, 110 + len(pico_pins) * 30) + 20
    notes = [
        "IRQ: not connected.  All readers share SCK, MOSI, MISO, RST, 3V3, GND.",
        "MFRC522 is 3.3 V only: power it from 3V3(OUT), never VBUS/VSYS (5 V).",
        f"Optional active buzzer: GP{buzzer} (pin {PICO_PHYS[buzzer]}) -> 1 kOhm -> NPN base;"  # type: ignore[index]
        if buzzer is not None
        else "No buzzer configured.",
        "  buzzer + to VBUS (pin 40), buzzer - to collector, emitter to GND.",
        "Board LED: the Pico's own LED (GP25 / Pico W: WL_GPIO0).",
        "Keep SPI wires short (< 20 cm); lower SPI_BAUD for longer runs.",
    ]
    for k, s in enumerate(notes):
        svg.text(30, ny + k * 20, s, 12)
    return svg.render()


def panel_svg() -> str:
    sys.path.insert(0, str(ROOT))
    from companion.hardware.panel import PanelPins

    pins = PanelPins()
    n_rows = 6 if pins.buzzer is not None else 5
    svg = Svg(940, 60 + 40 + n_rows * 56 + 90 + 80)
    svg.text(
        20, 30, "Button panel on the Raspberry Pi GPIO header (BCM numbers, physical pins)", 17, weight="bold"
    )
    hx, hy = 30, 60
    rows: list[tuple[str, str]] = [
        (f"GPIO{pins.confirm}  (pin {PI_PHYS[pins.confirm]})", "CONFIRM button"),
        (f"GPIO{pins.cancel}  (pin {PI_PHYS[pins.cancel]})", "CANCEL button"),
        (f"GPIO{pins.undo}  (pin {PI_PHYS[pins.undo]})", "UNDO button"),
        (f"GPIO{pins.accept_led}  (pin {PI_PHYS[pins.accept_led]})", "green LED (accepted)"),
        (f"GPIO{pins.reject_led}  (pin {PI_PHYS[pins.reject_led]})", "red LED (rejected)"),
    ]
    if pins.buzzer is not None:
        rows.append((f"GPIO{pins.buzzer}  (pin {PI_PHYS[pins.buzzer]})", "buzzer"))
    svg.rect(hx, hy, 230, 40 + len(rows) * 56, "#e8f3e8")
    svg.text(hx + 115, hy + 24, "Raspberry Pi", 15, "middle", "bold")
    gnd_x = 860
    svg.line([(gnd_x, hy + 40), (gnd_x, hy + 40 + len(rows) * 56)], COLORS["GND"])
    svg.text(gnd_x, hy + 30, "GND (pins 9, 14, 25, 20, 30, 34)", 12, "end")
    for k, (label, what) in enumerate(rows):
        y = hy + 60 + k * 56
        svg.text(hx + 12, y + 4, label, 12)
        svg.dot(hx + 230, y, "#1f77b4")
        if "button" in what:
            # GPIO -> push button -> GND (internal pull-up)
            svg.line([(hx + 230, y), (520, y)], "#1f77b4")
            svg.rect(520, y - 16, 180, 32, "#fff6d5")
            svg.text(610, y + 5, what, 12, "middle")
            svg.line([(700, y), (gnd_x, y)], COLORS["GND"])
            svg.text(330, y - 8, "internal pull-up", 11)
        elif "LED" in what:
            svg.line([(hx + 230, y), (380, y)], "#1f77b4")
            svg.rect(380, y - 14, 100, 28, "#ffffff")
            svg.text(430, y + 5, "330 Ohm", 12, "middle")
            svg.line([(480, y), (540, y)], "#1f77b4")
            svg.rect(540, y - 16, 180, 32, "#d9f2d9" if "green" in what else "#f8d7d7")
            svg.text(630, y + 5, what + "  + | -", 12, "middle")
            svg.line([(720, y), (gnd_x, y)], COLORS["GND"])
        else:
            svg.line([(hx + 230, y), (380, y)], "#1f77b4")
            svg.rect(380, y - 14, 100, 28, "#ffffff")
            svg.text(430, y + 5, "1 kOhm", 12, "middle")
            svg.line([(480, y), (540, y)], "#1f77b4")
            svg.rect(540, y - 26, 180, 52, "#eeeeee")
            svg.text(630, y - 6, "NPN (2N2222 / BC337)", 12, "middle")
            svg.text(630, y + 12, "B: resistor  E: GND  C: buzzer -", 11, "middle")
            svg.line([(720, y), (gnd_x, y)], COLORS["GND"])
            svg.text(630, y + 48, "active buzzer: + to 5V (pin 4), - to collector", 12, "middle")
        svg.dot(gnd_x, y, COLORS["GND"])
    ny = hy + 40 + len(rows) * 56 + 70
    for k, s in enumerate(
        [
            "Buttons: momentary, normally open, between the GPIO and GND; no resistor needed (gpiozero pull_up=True).",
            "LEDs: GPIO -> 330 Ohm -> LED anode (+, long leg); cathode (-) -> GND. About 4 mA at 3.3 V.",
            "Buzzer: a 5 V active buzzer draws more than a GPIO may give, hence the transistor.",
        ]
    ):
        svg.text(30, ny + k * 20, s, 12)
    return svg.render()


def write_all(out: Path = OUT) -> list[Path]:
    written = []
    for name, text in (("reader.svg", reader_svg()), ("panel.svg", panel_svg())):
        path = out / name
        path.write_text(text)
        written.append(path)
    return written


if __name__ == "__main__":
    for p in write_all(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT):
        print(f"wrote {p}")
