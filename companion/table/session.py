"""A running table: the reader thread and the panel wired to a :class:`TableService`.

The reader's events are handled on a background thread (``service.run``);
button presses arrive on gpiozero's callback thread (``panel.on_press``).
:meth:`TableSession.play` drives a simulated table from a script: each tap is
pushed into the :class:`SimulatedReader` and each press goes through the simulated
panel, and it waits for the service to have handled one before the next,
so a script plays in order exactly as if people were tapping.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable

from companion.hardware.events import TagEvent, TagRemoved, TagSource
from companion.hardware.panel import ButtonPress, Panel
from companion.hardware.reader import SimulatedReader, Wait
from companion.table.proposal import Option, Outcome
from companion.table.script import (
    Buttons,
    Choose,
    Help,
    Invalid,
    Nudge,
    Press,
    SetPrice,
    Step,
    Touch,
    TouchMap,
)
from companion.table.service import TableService

__all__ = ["TableSession"]


def _options(service: TableService) -> tuple[Option, ...]:
    p = service.proposal
    return p.options if p is not None else ()


def _digits(label: str) -> str:
    return "".join(ch for ch in label if ch.isdigit())


class TableSession:
    """Runs ``service`` over ``reader`` (and ``panel``) until :meth:`stop`."""

    def __init__(self, service: TableService, reader: TagSource, panel: Panel | None = None) -> None:
        self.service = service
        self.reader = reader
        self.panel = panel
        if panel is not None:
            panel.on_press(self._pressed)
        self._thread = threading.Thread(target=self._run, name="table-reader", daemon=True)
        self.error: BaseException | None = None
        self._stopped = False

    def _pressed(self, press: ButtonPress) -> None:
        if not self._stopped:
            self.service.press(str(press.button))

    def _run(self) -> None:
        try:
            self.service.run(self.reader)
        except BaseException as exc:  # reported by stop() / play(); the thread must not die silently
            self.error = exc

    def start(self) -> TableSession:
        self._thread.start()
        return self

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def stop(self) -> None:
        self.reader.close()
        self._thread.join(timeout=5)
        self._stopped = True

    def play(self, steps: Iterable[Step], *, speed: float = 1.0, timeout: float = 10.0) -> list[Outcome]:
        """Play a script on a simulated reader and panel; returns the outcome of every choose/price step.

        Taps and presses report through the service's listeners.  ``TimeoutError`` if the
        service does not handle a step within ``timeout`` seconds.
        """
        if not isinstance(self.reader, SimulatedReader):
            raise TypeError("play() needs a SimulatedReader")
        service = self.service
        outcomes: list[Outcome] = []
        for step in steps:
            if self.error is not None:
                raise RuntimeError(f"the table stopped: {self.error!r}") from self.error
            if isinstance(step, Wait):
                time.sleep(step.seconds / speed)
                continue
            if isinstance(step, Choose):
                label = step.option
                number = label.removeprefix("#")
                if number.isdigit() and not any(_digits(o.label) == number for o in _options(service)):
                    outcomes.append(service.choose(int(number) - 1))
                else:
                    outcomes.append(service.choose_label(label))
                continue
            if isinstance(step, SetPrice):
                outcomes.append(service.set_price(step.price))
                continue
            if isinstance(step, Nudge):
                outcomes.append(service.step_price(step.steps))
                continue
            if isinstance(step, Touch):
                outcomes.append(service.touch(step.label))
                continue
            if isinstance(step, TouchMap):
                start = service.line_start(step.first)
                outcomes.append(start if start is not None else service.propose_line(step.first, step.second))
                continue
            if isinstance(step, Help | Buttons | Invalid):
                continue  # the command prints these
            target = service.handled + 1
            if isinstance(step, TagEvent | TagRemoved):
                self.reader.push(step)
            elif isinstance(step, Press):
                finger = getattr(self.panel, "press", None)  # a simulated panel can be pressed
                if finger is None:
                    service.press(step.button)
                else:
                    finger(step.button)
            if not service.wait_handled(target, timeout):
                raise TimeoutError(f"the table did not handle {step} within {timeout:g} s")
        return outcomes
