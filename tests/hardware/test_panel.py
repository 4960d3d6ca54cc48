"""Button panel with gpiozero's MockFactory (mock pins driven high/low) and the simulated panel."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import pytest
from gpiozero.pins.mock import MockFactory

from companion.hardware.panel import (
    ButtonPress,
    GpioPanel,
    PanelButton,
    PanelPins,
    SimulatedPanel,
    open_panel,
)


def wait_until(cond: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    f = MockFactory()
    yield f
    f.reset()


def make_panel(factory: MockFactory, clock: FakeClock | None = None, **kw: object) -> GpioPanel:
    return GpioPanel(
        pin_factory=factory,
        bounce_time=None,
        feedback_seconds=0.05,
        clock=clock or FakeClock(),
        **kw,  # type: ignore[arg-type]
    )


def press(factory: MockFactory, pin: int) -> None:
    factory.pin(pin).drive_low()  # button to GND, internal pull-up
    factory.pin(pin).drive_high()


def test_buttons_call_back_with_which_button(factory: MockFactory) -> None:
    clock = FakeClock()
    panel = make_panel(factory, clock)
    got: list[ButtonPress] = []
    panel.on_press(got.append)
    pins = PanelPins()
    for pin in (pins.confirm, pins.cancel, pins.undo):
        clock.t += 1
        press(factory, pin)
    assert [p.button for p in got] == [PanelButton.CONFIRM, PanelButton.CANCEL, PanelButton.UNDO]
    assert [p.at for p in got] == [101.0, 102.0, 103.0]
    # Internal pull-ups: an idle button reads high.
    assert factory.pin(pins.confirm).state is True
    panel.close()


def test_contact_bounce_is_one_press(factory: MockFactory) -> None:
    clock = FakeClock()
    panel = make_panel(factory, clock)
    got: list[ButtonPress] = []
    panel.on_press(got.append)
    for _ in range(5):  # bouncing contacts within a few ms
        press(factory, PanelPins().confirm)
        clock.t += 0.002
    clock.t += 0.5
    press(factory, PanelPins().confirm)
    assert [p.button for p in got] == [PanelButton.CONFIRM, PanelButton.CONFIRM]
    panel.close()


def test_presses_iterator_ends_on_close(factory: MockFactory) -> None:
    panel = make_panel(factory)
    got: list[PanelButton] = []
    t = threading.Thread(target=lambda: got.extend(p.button for p in panel.presses()))
    t.start()
    press(factory, PanelPins().undo)
    wait_until(lambda: got == [PanelButton.UNDO])
    panel.close()
    t.join(timeout=5)
    assert not t.is_alive()


def test_accept_lights_green_beeps_once_then_goes_dark(factory: MockFactory) -> None:
    panel = make_panel(factory)
    pins = PanelPins()
    panel.accept()
    assert factory.pin(pins.accept_led).state is True
    assert factory.pin(pins.reject_led).state is False
    wait_until(lambda: factory.pin(pins.accept_led).state is False)
    buzzer = factory.pin(pins.buzzer)  # type: ignore[arg-type]
    wait_until(lambda: [s.state for s in buzzer.states][1:] == [True, False])
    assert panel.feedback_log == ["accept"]
    panel.close()


def test_reject_lights_red_beeps_twice_and_cancels_green(factory: MockFactory) -> None:
    panel = make_panel(factory)
    pins = PanelPins()
    panel.accept()
    panel.reject()
    assert factory.pin(pins.reject_led).state is True
    assert factory.pin(pins.accept_led).state is False
    wait_until(lambda: factory.pin(pins.reject_led).state is False)
    buzzer = factory.pin(pins.buzzer)  # type: ignore[arg-type]
    wait_until(lambda: [s.state for s in buzzer.states][-4:] == [True, False, True, False])
    assert panel.feedback_log == ["accept", "reject"]
    panel.close()


def test_custom_pins_without_buzzer_and_release_on_close(factory: MockFactory) -> None:
    panel = make_panel(factory, confirm=5, cancel=6, undo=13, accept_led=20, reject_led=21, buzzer=None)
    got: list[ButtonPress] = []
    panel.on_press(got.append)
    press(factory, 6)
    panel.reject()
    assert factory.pin(21).state is True
    assert [p.button for p in got] == [PanelButton.CANCEL]
    panel.close()
    # The pins are free again: a new panel can take them.
    again = make_panel(factory, confirm=5, cancel=6, undo=13, accept_led=20, reject_led=21, buzzer=None)
    again.close()


def test_duplicate_pins_are_refused(factory: MockFactory) -> None:
    with pytest.raises(ValueError, match="differ"):
        make_panel(factory, confirm=5, cancel=5)


def test_broken_callback_does_not_stop_other_listeners(factory: MockFactory) -> None:
    panel = make_panel(factory)
    got: list[ButtonPress] = []

    def broken(_p: ButtonPress) -> None:
        raise RuntimeError("listener bug")

    panel.on_press(broken)
    panel.on_press(got.append)
    press(factory, PanelPins().cancel)
    assert [p.button for p in got] == [PanelButton.CANCEL]
    panel.close()


def test_simulated_panel() -> None:
    panel = SimulatedPanel()
    got: list[ButtonPress] = []
    panel.on_press(got.append)
    panel.press("confirm")
    panel.press(PanelButton.UNDO)
    panel.accept()
    assert panel.lit == "accept"
    panel.reject()
    assert panel.lit == "reject"
    assert [p.button for p in got] == [PanelButton.CONFIRM, PanelButton.UNDO]
    assert panel.feedback_log == ["accept", "reject"]
    with pytest.raises(ValueError):
        panel.press("launch")
    panel.close()
    assert [p.button for p in panel.presses()] == [PanelButton.CONFIRM, PanelButton.UNDO]


def test_open_panel_from_settings(factory: MockFactory) -> None:
    assert isinstance(open_panel("simulated"), SimulatedPanel)
    panel = open_panel(
        "gpio", pin_factory=factory, confirm=5, cancel=6, undo=13, led_green=20, led_red=21, buzzer=12
    )
    assert isinstance(panel, GpioPanel)
    panel.accept()
    assert factory.pin(20).state is True
    panel.close()
    with pytest.raises(ValueError, match="mode"):
        open_panel("wifi")
    with pytest.raises(ValueError, match="unknown panel pins"):
        open_panel("gpio", pin_factory=factory, led_blue=7)
