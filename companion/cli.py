"""Command-line entry point: ``companion <command> ...``.

Each module in ``companion.commands`` that defines ``register(subparsers)``
adds one command; the parser it registers sets ``func`` (``args -> exit code``).

A command's module is imported only when that command runs: ``companion --help``
lists :data:`COMMANDS` without importing any of them, and ``companion replay``
imports the replay's module, never the camera's (cv2) or the touchscreen's (Kivy).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

import companion.commands
from companion.inputfile import EXIT_BAD_FILE, InputFileError

#: every command (its module in ``companion.commands`` has the same name) and its line in
#: ``companion --help``: the same help its module registers (a test holds the two together)
COMMANDS: dict[str, str] = {
    "config": "check or print the configuration file",
    "demo": "the touchscreen on a real game played forward, simulated hardware",
    "export": "write a table game as an 18xx.games export (JSON)",
    "games": "list the saved games; check or recover the game database",
    "nfc": "NFC reader tools",
    "replay": "replay 18xx.games game exports through the engine",
    "routes": "route optimiser tools",
    "run": "the touchscreen app (real or simulated hardware per configuration)",
    "table": "run a table session: taps become proposals, confirm applies them",
    "tags": "enroll NFC tags on certificates, companies, trains and player cards",
    "vision": "camera tile recognition: check a photo, calibrate, marker sheet, render",
}


def _parser() -> tuple[argparse.ArgumentParser, argparse._SubParsersAction[argparse.ArgumentParser]]:
    parser = argparse.ArgumentParser(prog="companion", description="18xx table companion")
    return parser, parser.add_subparsers(dest="command", metavar="COMMAND")


def build_parser() -> argparse.ArgumentParser:
    """The whole parser: every command's module imported and registered."""
    parser, sub = _parser()
    for info in sorted(pkgutil.iter_modules(companion.commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"companion.commands.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)
    return parser


def command_parser(command: str | None) -> argparse.ArgumentParser:
    """The parser with only ``command``'s module imported and registered (the others listed by
    name and help); every command listed, none imported, for any other word or none."""
    parser, sub = _parser()
    for name, help_text in COMMANDS.items():
        if name == command:
            importlib.import_module(f"companion.commands.{name}").register(sub)
        else:
            sub.add_parser(name, help=help_text, add_help=False)
    return parser


def _command_word(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names: its first word that is not an option."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    parser = command_parser(_command_word(words))
    args = parser.parse_args(words)
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
