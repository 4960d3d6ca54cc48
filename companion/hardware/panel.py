"""The button panel beside the board: confirm / cancel / undo buttons, a green
"accepted" LED, a red "rejected" LED and a buzzer.

* :class:`GpioPanel` drives real pins through gpiozero (imported lazily; pass
  ``pin_factory=MockFactory()`` to run it anywhere).  Buttons are wired to GND
  and use the Pi's internal pull-ups; pin numbers are BCM GPIO numbers, plain
  ints (defaults in :class:`PanelPins`, matching ``hardware/WIRING.md``).
* :class:`SimulatedPanel` has the same interface without pins, for the demo
  and tests: :meth:`SimulatedPanel.press` stands for a finger on a button.

Both deliver presses to callbacks (:meth:`on_press`) and to an iterator
(:meth:`presses`), and give feedback with :meth:`accept` / :meth:`reject`.
"""

from __future__ import annotations

import functools
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

log = logging.getLogger("companion.hardware.panel")


class PanelButton(StrEnum):
    CONFIRM = "confirm"
    CANCEL = "cancel"
    UNDO = "undo"


@dataclass(frozen=True)
class ButtonPress:
    button: PanelButton
    at: float  # time.monotonic() of the press


@dataclass(frozen=True)
class PanelPins:
    """BCM GPIO numbers (physical header pins in comments); see hardware/WIRING.md.

    The same defaults as ``[panel]`` in ``companion.config.PanelConfig``.
    """

    confirm: int = 17  # pin 11
    cancel: int = 27  # pin 13
    undo: int = 22  # pin 15
    accept_led: int = 23  # pin 16, green
    reject_led: int = 24  # pin 18, red
    buzzer: int | None = 25  # pin 22, active buzzer through an NPN transistor


PressCallback = Callable[[ButtonPress], None]


class Panel(Protocol):
    """What the table service needs from a panel (real or simulated)."""

    def on_press(self, callback: PressCallback) -> None: ...

    def presses(self) -> Iterator[ButtonPress]: ...

    def accept(self) -> None: ...

    def reject(self) -> None: ...

    def close(self) -> None: ...


class _PanelBase:
    """Press dispatch (callbacks + iterator) and software debouncing, shared by both panels."""

    def __init__(self, debounce: float, clock: Callable[[], float]) -> None:
        self.debounce = debounce
        self._clock = clock
        self._callbacks: list[PressCallback] = []
        self._queue: queue.Queue[ButtonPress | None] = queue.Queue()
        self._last: dict[PanelButton, float] = {}
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self.feedback_log: list[str] = []  # "accept" / "reject", in order

    def on_press(self, callback: PressCallback) -> None:
        """Call ``callback(ButtonPress)`` on every (debounced) press, from the pin's thread."""
        self._callbacks.append(callback)

    def _pressed(self, button: PanelButton) -> None:
        now = self._clock()
        with self._lock:
            last = self._last.get(button)
            if last is not None and now - last < self.debounce:
                return  # contact bounce: the same press
            self._last[button] = now
        press = ButtonPress(button, now)
        self._queue.put(press)
        for cb in list(self._callbacks):
            try:
                cb(press)
            except Exception:  # a broken listener must not kill the pin thread
                log.exception("panel: press callback failed")

    def presses(self) -> Iterator[ButtonPress]:
        """Yield presses as they happen until :meth:`close`."""
        while True:
            if self._closed.is_set() and self._queue.empty():
                return
            item = self._queue.get()
            if item is None:
                return
            yield item

    def _close_queue(self) -> None:
        self._closed.set()
        self._queue.put(None)


class GpioPanel(_PanelBase):
    """The panel on the Raspberry Pi's GPIO header."""

    def __init__(
        self,
        confirm: int = PanelPins.confirm,
        cancel: int = PanelPins.cancel,
        undo: int = PanelPins.undo,
        accept_led: int = PanelPins.accept_led,
        reject_led: int = PanelPins.reject_led,
        buzzer: int | None = PanelPins.buzzer,
        *,
        pin_factory: Any = None,
        bounce_time: float | None = 0.02,
        debounce: float = 0.15,
        feedback_seconds: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        from gpiozero import LED, Buzzer
        from gpiozero import Button as GpioButton

        super().__init__(debounce, clock)
        self.feedback_seconds = feedback_seconds
        pins = {PanelButton.CONFIRM: confirm, PanelButton.CANCEL: cancel, PanelButton.UNDO: undo}
        used = [*pins.values(), accept_led, reject_led] + ([buzzer] if buzzer is not None else [])
        if len(set(used)) != len(used):
            raise ValueError(f"panel pins must all differ: {used}")
        self._devices: list[Any] = []
        try:
            self.buttons: dict[PanelButton, Any] = {}
            for name, pin in pins.items():
                b = GpioButton(pin, pull_up=True, bounce_time=bounce_time, pin_factory=pin_factory)
                self._devices.append(b)
                b.when_pressed = functools.partial(self._pressed, name)
                self.buttons[name] = b
            self.accept_led = LED(accept_led, pin_factory=pin_factory)
            self._devices.append(self.accept_led)
            self.reject_led = LED(reject_led, pin_factory=pin_factory)
            self._devices.append(self.reject_led)
            self.buzzer = Buzzer(buzzer, pin_factory=pin_factory) if buzzer is not None else None
            if self.buzzer is not None:
                self._devices.append(self.buzzer)
        except Exception:
            self.close()
            raise
        self._timer: threading.Timer | None = None

    def _show(self, on: Any, off: Any, beeps: int) -> None:
        if self._timer is not None:
            self._timer.cancel()
        off.off()
        on.on()
        if self.buzzer is not None:
            self.buzzer.beep(on_time=0.08 if beeps == 1 else 0.15, off_time=0.1, n=beeps, background=True)
        self._timer = threading.Timer(self.feedback_seconds, on.off)
        self._timer.daemon = True
        self._timer.start()

    def accept(self) -> None:
        """Green LED for ``feedback_seconds`` and one short beep."""
        self.feedback_log.append("accept")
        self._show(self.accept_led, self.reject_led, 1)

    def reject(self) -> None:
        """Red LED for ``feedback_seconds`` and two beeps."""
        self.feedback_log.append("reject")
        self._show(self.reject_led, self.accept_led, 2)

    def close(self) -> None:
        timer = getattr(self, "_timer", None)
        if timer is not None:
            timer.cancel()
        for d in reversed(self._devices):
            try:
                d.close()
            except Exception:  # closing must release every pin it can
                log.exception("panel: closing %r failed", d)
        self._devices = []
        self._close_queue()


class SimulatedPanel(_PanelBase):
    """The same panel without pins: :meth:`press` is a finger; feedback is recorded and logged."""

    def __init__(self, *, debounce: float = 0.0, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(debounce, clock)
        self.lit: str | None = None  # "accept" or "reject": the LED lit by the last feedback

    def press(self, button: PanelButton | str) -> None:
        self._pressed(PanelButton(button))

    def accept(self) -> None:
        self.feedback_log.append("accept")
        self.lit = "accept"
        log.info("panel: accepted (green)")

    def reject(self) -> None:
        self.feedback_log.append("reject")
        self.lit = "reject"
        log.info("panel: rejected (red)")

    def close(self) -> None:
        self._close_queue()


def open_panel(
    mode: str = "simulated", pin_factory: Any = None, **pins: int | None
) -> GpioPanel | SimulatedPanel:
    """A panel from plain settings (as in ``[panel]`` of the configuration).

    ``mode`` ``gpio``: :class:`GpioPanel` on the given BCM pins (``confirm``,
    ``cancel``, ``undo``, ``accept_led``/``led_green``, ``reject_led``/``led_red``,
    ``buzzer``; missing ones take the defaults); ``simulated``: :class:`SimulatedPanel`.
    """
    if mode == "simulated":
        return SimulatedPanel()
    if mode != "gpio":
        raise ValueError(f"panel mode must be 'gpio' or 'simulated', not {mode!r}")
    aliases = {"led_green": "accept_led", "led_red": "reject_led"}
    kwargs = {aliases.get(k, k): v for k, v in pins.items()}
    unknown = set(kwargs) - {"confirm", "cancel", "undo", "accept_led", "reject_led", "buzzer"}
    if unknown:
        raise ValueError(f"unknown panel pins: {sorted(unknown)}")
    return GpioPanel(pin_factory=pin_factory, **kwargs)  # type: ignore[arg-type]
