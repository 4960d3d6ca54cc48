"""Run every benchmark module and write docs/BENCHMARKS.md."""

from __future__ import annotations

import datetime as dt
import importlib
import os
import pkgutil
import platform
import sys
from pathlib import Path

import devtools.bench


def machine_description() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    system = f"{platform.system()} {platform.release()}"
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {system}"


def merge_sections(existing: str, sections: list[str], note: str, head: str | None = None) -> str:
    """``existing`` BENCHMARKS.md with the sections of the same heading replaced by ``sections``
    (each followed by ``note``, if any); sections it did not have are appended, and its own
    sections no benchmark writes (the hand-written ones, e.g. "Where replay time goes") are kept
    where they are.  ``head``: a new text before the first section (``make bench``'s date and
    machine), instead of the existing one."""
    parts = existing.rstrip("\n").split("\n## ")
    old_head, old = parts[0], ["## " + p for p in parts[1:]]
    tail = "\n\n" + note if note else ""
    by_heading = {s.strip().splitlines()[0]: s.strip() + tail for s in sections}
    merged = [by_heading.pop(p.splitlines()[0], p.strip()) for p in old]
    merged += list(by_heading.values())
    first = old_head if head is None else head
    return first.rstrip("\n") + "\n\n" + "\n\n".join(merged) + "\n"


def main() -> int:
    """``python -m devtools.bench [NAME ...]``: every benchmark (``make bench``), or only the named
    modules, whose sections then replace their old ones in docs/BENCHMARKS.md."""
    only = set(sys.argv[1:])
    known = {m.name for m in pkgutil.iter_modules(devtools.bench.__path__) if not m.name.startswith("_")}
    if only - known:
        print(f"error: no benchmark {', '.join(sorted(only - known))}; known: {', '.join(sorted(known))}")
        return 2
    sections = []
    for info in sorted(pkgutil.iter_modules(devtools.bench.__path__), key=lambda m: m.name):
        if info.name.startswith("_") or (only and info.name not in only):
            continue
        module = importlib.import_module(f"devtools.bench.{info.name}")
        if hasattr(module, "bench"):
            print(f"bench: {info.name} ...", flush=True)
            sections.append(module.bench())
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    out = Path("docs/BENCHMARKS.md")
    out.parent.mkdir(exist_ok=True)
    if only and out.exists():
        names = " ".join(sorted(only))
        note = (
            f"This section was re-run alone with `python -m devtools.bench {names}` on {now} "
            f"({machine_description()})."
        )
        text = merge_sections(out.read_text(), sections, note)
    else:
        head = (
            "# Benchmarks\n\n"
            f"Written by `make bench` on {now}.\n\nMachine: {machine_description()}.\n\n"
            "Medians and ratios are measured side by side in one run; the machine is shared and noisy.\n"
        )
        # every measured section is new; the hand-written ones the file has are kept in their place
        text = merge_sections(out.read_text() if out.exists() else head, sections, "", head=head)
    out.write_text(text)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
