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


def main() -> int:
    only = set(sys.argv[1:])
    sections = []
    for info in sorted(pkgutil.iter_modules(companion.bench.__path__), key=lambda m: m.name):
        if info.name.startswith("_") or (only and info.name not in only):
            continue
        module = importlib.import_module(f"companion.bench.{info.name}")
        if hasattr(module, "bench"):
            print(f"bench: {info.name} ...", flush=True)
            sections.append(module.bench())
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    text = (
        "# Benchmarks\n\n"
        f"Written by `make bench` on {now}.\n\nMachine: {machine_description()}.\n\n"
        "Medians and ratios are measured side by side in one run; the machine is shared and noisy.\n\n"
        + "\n\n".join(s.strip() for s in sections)
        + "\n"
    )
    out = Path("docs/BENCHMARKS.md")
    out.parent.mkdir(exist_ok=True)
    out.write_text(text)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
