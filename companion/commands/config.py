"""``companion config``: check a configuration file, print it, or read one setting.

    companion config check [FILE]     print the effective configuration, or every error (exit 1)
    companion config get KEY [FILE]   print one setting, e.g. ``backup.keep``
    companion config shell [FILE]     every setting as shell assignments (``backup_keep=14``), for
                                      ``settings=$(companion config shell F) && eval "$settings"`` in deploy/

Without FILE the file named by ``$COMPANION_CONFIG`` is used, else the defaults.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from dataclasses import fields
from typing import Any

from companion.config import SECTIONS, Config, ConfigError, config_value, dump_toml, load_config


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "config",
        help="check or print the configuration file",
        description="Check, print or query the companion's TOML configuration.",
    )
    sub = parser.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    check = sub.add_parser("check", help="validate FILE and print the effective configuration")
    check.add_argument(
        "file", nargs="?", help="configuration file (default: $COMPANION_CONFIG, else defaults)"
    )
    check.set_defaults(func=run_check)
    get = sub.add_parser("get", help="print one setting, e.g. backup.keep")
    get.add_argument("key", help="section.key, e.g. game.database")
    get.add_argument("file", nargs="?", help="configuration file (default: $COMPANION_CONFIG, else defaults)")
    get.set_defaults(func=run_get)
    shell = sub.add_parser(
        "shell", help="print every setting as shell variable assignments (section_key=value)"
    )
    shell.add_argument(
        "file", nargs="?", help="configuration file (default: $COMPANION_CONFIG, else defaults)"
    )
    shell.set_defaults(func=run_shell)


def _load(args: argparse.Namespace) -> Config:
    path = args.file or os.environ.get("COMPANION_CONFIG") or None
    return load_config(path)


def run_check(args: argparse.Namespace) -> int:
    try:
        config = _load(args)
    except ConfigError as exc:
        print(f"configuration is NOT valid ({len(exc.problems)} problem(s)):", file=sys.stderr)
        print(str(exc), file=sys.stderr)
        return 1
    origin = str(config.source) if config.source is not None else "defaults (no file)"
    print(f"# effective configuration from {origin}: OK")
    print(dump_toml(config), end="")
    return 0


def run_get(args: argparse.Namespace) -> int:
    try:
        config = _load(args)
        value = config_value(config, args.key)
    except ConfigError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    except KeyError as exc:
        print(f"companion config get: {exc.args[0]}", file=sys.stderr)
        return 2
    print(value)
    return 0


def run_shell(args: argparse.Namespace) -> int:
    try:
        config = _load(args)
    except ConfigError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    for section, cls in SECTIONS.items():
        for f in fields(cls):
            value = config_value(config, f"{section}.{f.name}")
            print(f"{section}_{f.name}={shlex.quote(value)}")
    return 0
