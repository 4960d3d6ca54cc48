"""The wiring diagrams match the firmware and panel defaults and are up to date."""

from __future__ import annotations

import importlib.util
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest

from companion.hardware.panel import PanelPins
from tests.support.paths import ROOT

WIRING = ROOT / "hardware" / "wiring"


def load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("wiring_generate", WIRING / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_committed_svgs_are_up_to_date(tmp_path: Path) -> None:
    gen = load_generator()
    for path in gen.write_all(tmp_path):
        committed = WIRING / path.name
        assert committed.read_text() == path.read_text(), f"run hardware/wiring/generate.py ({path.name})"


@pytest.mark.parametrize("name", ["reader.svg", "panel.svg"])
def test_svgs_are_valid_xml(name: str) -> None:
    root = ET.parse(WIRING / name).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"


def test_firmware_pins_are_valid_spi0_pins_and_documented() -> None:
    gen = load_generator()
    fw = gen.firmware_defaults()
    assert fw["PIN_SCK"] in gen.SPI0_SCK
    assert fw["PIN_MOSI"] in gen.SPI0_TX
    assert fw["PIN_MISO"] in gen.SPI0_RX
    used = [fw["PIN_SCK"], fw["PIN_MOSI"], fw["PIN_MISO"], fw["PIN_RST"], fw["PIN_BUZZER"], *fw["PIN_CS"]]
    assert len(set(used)) == len(used) and 25 not in used  # GP25 is the Pico's LED
    assert len(fw["PIN_CS"]) == 4
    svg = (WIRING / "reader.svg").read_text()
    doc = (ROOT / "hardware" / "WIRING.md").read_text()
    for pin in used:
        assert f"GP{pin} (pin {gen.PICO_PHYS[pin]})" in svg.replace("  ", " ")
        assert f"GP{pin} ({gen.PICO_PHYS[pin]})" in doc


def test_panel_pins_are_documented() -> None:
    gen = load_generator()
    pins = PanelPins()
    doc = (ROOT / "hardware" / "WIRING.md").read_text()
    svg = (WIRING / "panel.svg").read_text()
    for gpio in (pins.confirm, pins.cancel, pins.undo, pins.accept_led, pins.reject_led, pins.buzzer):
        assert gpio is not None
        assert f"GPIO{gpio} ({gen.PI_PHYS[gpio]})" in doc
        assert re.search(rf"GPIO{gpio}\s+\(pin {gen.PI_PHYS[gpio]}\)", svg)
