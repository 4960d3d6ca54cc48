"""The on-screen keyboard: Kivy's, with a Shift that works with one finger.

Kivy's own Shift is held down while a letter is pressed with another finger; on the table's
touchscreen a player taps it.  Here a tap on Shift makes the next letter a capital (the key stays
lit until then); a second tap on Shift takes it back."""

from __future__ import annotations

from typing import Any

from kivy.uix.vkeyboard import VKeyboard


class OneFingerKeyboard(VKeyboard):  # type: ignore[misc]
    """A :class:`VKeyboard` whose Shift, tapped, holds for the next key."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.shift_latched = False

    def process_key_up(self, touch: Any) -> None:
        data = touch.ud.get(self.uid)
        special = data["key"][0][2] if data else None
        key = data["key"][1] if data else None
        super().process_key_up(touch)
        if special == "shift":
            self.shift_latched = not self.shift_latched
            if self.shift_latched:  # Kivy let go of it with the finger: hold it for the next key
                self.have_shift = True
                self.active_keys[-2] = key
                self.refresh_active_keys_layer()
        elif special not in ("capslock", "layout", "special") and self.shift_latched:
            self.shift_latched = False  # the capital is typed
            self.have_shift = False
            self.active_keys.pop(-2, None)
            self.refresh_active_keys_layer()
