"""The button panel beside the board: confirm, cancel and undo buttons, a green and a red LED, a buzzer.

Built from gpiozero devices over a pin factory, like every gpiozero program:
on the Pi (``[panel] mode = "gpio"``) gpiozero picks the real pin factory
(lgpio); everywhere else (``mode = "simulated"``, the default) the devices sit
on gpiozero's ``MockFactory``, so the same code runs and :meth:`Panel.press`
drives a mock pin exactly as a finger closes the switch.  gpiozero is imported
lazily, inside the constructor.

Buttons are wired between the GPIO pin and ground (internal pull-up: pressed
reads low).  See ``docs/TABLE.md`` for what each button does.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from enum import StrEnum
from typing import Any

from companion.config import PanelConfig

log = logging.getLogger("companion.table.panel")

__all__ = ["Button", "Panel"]


class Button(StrEnum):
    CONFIRM = "confirm"
    CANCEL = "cancel"
    UNDO = "undo"


class Panel:
    """Three buttons, two LEDs and a buzzer; ``on_press(button)`` is called for every press.

    ``pin_factory``: a gpiozero pin factory; by default ``MockFactory`` when
    ``config.mode`` is ``"simulated"`` and gpiozero's own choice for ``"gpio"``.
    """

    def __init__(
        self,
        config: PanelConfig | None = None,
        *,
        on_press: Callable[[Button], object] | None = None,
        pin_factory: Any = None,
    ) -> None:
        from gpiozero import LED, Buzzer
        from gpiozero import Button as GpioButton

        self.config = config if config is not None else PanelConfig()
        self.simulated = self.config.mode == "simulated"
        if pin_factory is None and self.simulated:
            from gpiozero.pins.mock import MockFactory

            pin_factory = MockFactory()
        self.factory = pin_factory
        self.on_press = on_press
        bounce = None if self.simulated else 0.05
        self._buttons: dict[Button, Any] = {}
        self._devices: list[Any] = []
        try:
            for button in Button:
                device = GpioButton(
                    getattr(self.config, button.value),
                    pull_up=True,
                    bounce_time=bounce,
                    pin_factory=pin_factory,
                )
                device.when_pressed = self._callback(button)
                self._buttons[button] = device
                self._devices.append(device)
            self.green = LED(self.config.led_green, pin_factory=pin_factory)
            self.red = LED(self.config.led_red, pin_factory=pin_factory)
            self.buzzer = Buzzer(self.config.buzzer, pin_factory=pin_factory)
            self._devices += [self.green, self.red, self.buzzer]
        except BaseException:
            self.close()
            raise
        self.signals: list[bool] = []
        """Every accept (True) / reject (False) signalled, oldest first (for the demo and tests)."""

    def _callback(self, button: Button) -> Callable[[], None]:
        def pressed() -> None:
            log.debug("panel: %s pressed", button.value)
            if self.on_press is not None:
                self.on_press(button)

        return pressed

    def press(self, button: Button | str) -> None:
        """Press and release ``button`` (simulated panel only: drives its mock pin low, then high)."""
        if not self.simulated:
            raise RuntimeError("only a simulated panel can be pressed from software")
        device = self._buttons[Button(button)]
        device.pin.drive_low()
        device.pin.drive_high()

    def signal(self, accepted: bool) -> None:
        """Green LED and one short beep for an accepted tap or action; red LED and two beeps for a refusal."""
        self.signals.append(accepted)
        led, other = (self.green, self.red) if accepted else (self.red, self.green)
        other.off()
        led.blink(on_time=0.4, off_time=0.1, n=1, background=True)
        self.buzzer.beep(on_time=0.06, off_time=0.06, n=1 if accepted else 2, background=True)

    def close(self) -> None:
        for device in self._devices:
            with contextlib.suppress(Exception):  # closing a half-built device may fail
                device.close()
        self._devices = []
