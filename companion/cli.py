"""Command-line entry point: ``companion <command> ...``.

Each module in ``companion.commands`` that defines ``register(subparsers)``
adds one command; the parser it registers sets ``func`` (``args -> exit code``).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

import companion.commands
from companion.inputfile import EXIT_BAD_FILE, InputFileError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="companion", description="18xx table companion")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(companion.commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"companion.commands.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(func(args))
    except InputFileError as exc:  # a file given on the command line that cannot be used
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_FILE
    except KeyboardInterrupt:
        return 130
