"""Parser for the 18xx tile/hex code grammar (see PROVENANCE.md).

``code := part (";" part)*``, ``part := type ["=" param ("," param)*]``,
``param := key ":" value``; a part with a single bare value (``label=T``)
gets it under its own type (``params["label"] == "T"``).  The parser is purely syntactic: it returns the
parts in order with their parameters as strings; the engine and the renderer
give them meaning.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Part:
    """One ``type=key:value,...`` element of a code string."""

    type: str
    params: dict[str, str] = field(default_factory=dict)

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.params.get(key, default)

    def int(self, key: str, default: int = 0) -> int:
        value = self.params.get(key)
        return default if value is None else int(value)


@dataclass(frozen=True)
class TileDef:
    """A tile id, its colour and its parts at rotation 0."""

    id: str
    color: str
    parts: tuple[Part, ...]


def parse_code(code: str) -> tuple[Part, ...]:
    """Parse a code string into parts.  ``""`` is a blank hex (no parts)."""
    parts: list[Part] = []
    for raw in code.split(";"):
        raw = raw.strip()
        if not raw:
            continue
        kind, _, rest = raw.partition("=")
        params: dict[str, str] = {}
        if rest:
            for item in rest.split(","):
                key, sep, value = item.partition(":")
                if not sep:
                    # ``label=T``: a bare value is keyed by the part's own type.
                    if params or "," in rest or not item.strip():
                        raise ValueError(f"malformed parameter {item!r} in {raw!r}")
                    key, value = kind, item
                params[key.strip()] = value.strip()
        parts.append(Part(kind.strip(), params))
    return tuple(parts)


def revenue_by_color(value: str) -> dict[str, int] | int:
    """``"30"`` → 30; ``"yellow_30|brown_40"`` → ``{"yellow": 30, "brown": 40}``."""
    if "_" not in value:
        return int(value)
    out: dict[str, int] = {}
    for item in value.split("|"):
        key, _, amount = item.rpartition("_")
        out[key] = int(amount)
    return out
