"""Run every benchmark module and write docs/BENCHMARKS.md."""

from __future__ import annotations

import datetime as dt
import importlib
import os
import pkgutil
import platform
import sys
from pathlib import Path

import companion.bench


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


def merge_sections(existing: str, sections: list[str], note: str) -> str:
    """``existing`` BENCHMARKS.md with the sections of the same heading replaced by ``sections``
    (each followed by ``note``); sections it did not have are appended."""
    parts = existing.rstrip("\n").split("\n## ")
    head, old = parts[0], ["## " + p for p in parts[1:]]
    by_heading = {s.strip().splitlines()[0]: s.strip() + "\n\n" + note for s in sections}
    merged = [by_heading.pop(p.splitlines()[0], p.strip()) for p in old]
    merged += list(by_heading.values())
    return head.rstrip("\n") + "\n\n" + "\n\n".join(merged) + "\n"


def main() -> int:
    """``python -m companion.bench [NAME ...]``: every benchmark (``make bench``), or only the named
    modules, whose sections then replace their old ones in docs/BENCHMARKS.md."""
    only = set(sys.argv[1:])
    known = {m.name for m in pkgutil.iter_modules(companion.bench.__path__) if not m.name.startswith("_")}
    if only - known:
        print(f"error: no benchmark {', '.join(sorted(only - known))}; known: {', '.join(sorted(known))}")
        return 2
    sections = []
    for info in sorted(pkgutil.iter_modules(companion.bench.__path__), key=lambda m: m.name):
        if info.name.startswith("_") or (only and info.name not in only):
            continue
        module = importlib.import_module(f"companion.bench.{info.name}")
        if hasattr(module, "bench"):
            print(f"bench: {info.name} ...", flush=True)
            sections.append(module.bench())
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    out = Path("docs/BENCHMARKS.md")
    out.parent.mkdir(exist_ok=True)
    if only and out.exists():
        names = " ".join(sorted(only))
        note = (
            f"This section was re-run alone with `python -m companion.bench {names}` on {now} "
            f"({machine_description()})."
        )
        text = merge_sections(out.read_text(), sections, note)
    else:
        text = (
            "# Benchmarks\n\n"
            f"Written by `make bench` on {now}.\n\nMachine: {machine_description()}.\n\n"
            "Medians and ratios are measured side by side in one run; the machine is shared and noisy.\n\n"
            + "\n\n".join(s.strip() for s in sections)
            + "\n"
        )
    out.write_text(text)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
