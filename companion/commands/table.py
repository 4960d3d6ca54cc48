"""``companion table``: run a table session without the touchscreen.

    companion table [--simulate SCRIPT|-] [--db PATH] [--title 1870] [--players N] [--game ID]
                    [--import FILE.json] [--rules RULE] [--setting NAME=N] [--demo-tags] [--port DEV]

Taps become proposals, the confirm button applies them (stored first), and
every proposal and result is printed.  With ``--simulate`` the reader and the
panel are simulated and play SCRIPT (``-``: lines from stdin as they come);
without it the reader board (``--port`` or found by USB id) and the panel of
the configuration (``$COMPANION_CONFIG``) are used until Ctrl-C.  See
``docs/TABLE.md`` for the script commands and what taps do.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from companion.config import Config, ConfigError, load_config
from companion.devices import DeviceRuntime, Notice, NoticeKind
from companion.engine import GameError
from companion.hardware.panel import GpioPanel, Panel, SimulatedPanel
from companion.hardware.reader import ScriptError, SimulatedReader
from companion.inputfile import read_text
from companion.interop.actions import ExportError
from companion.interop.replay import load_export
from companion.runtime import settle_collector
from companion.store import Store, StoreError, database_path
from companion.table.exchange import import_export
from companion.table.script import (
    HELP,
    Buttons,
    Help,
    Invalid,
    enroll_demo_tags,
    parse_table_script,
    stream_table_script,
)
from companion.table.service import Proposal, Result, TableService
from companion.table.tags import TagError, TagRegistry
from companion.titles import DEFAULT_TITLE, chosen_settings, known_titles, title_info


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "table",
        help="run a table session: taps become proposals, confirm applies them",
        description="Run a table session without the touchscreen: NFC taps become proposed actions, "
        "the confirm button stores and applies them. Prints every proposal and result.",
    )
    parser.add_argument(
        "--simulate",
        metavar="SCRIPT",
        help="simulated reader and panel playing SCRIPT ('-': stdin); commands: tap R UID|@CARD, "
        "place, lift, wait S, confirm, cancel, undo, choose $PRICE, price N, + / - (raise / lower the "
        "price by its step), touch LABEL, buttons, map A B, run STOPS; STOPS (trains through these hexes), help",
    )
    parser.add_argument("--db", type=Path, help="device database (default: $COMPANION_DB, the configuration)")
    parser.add_argument(
        "--title", default=None, help=f"title of a new game (default: the configured one, {DEFAULT_TITLE})"
    )
    parser.add_argument(
        "--players", type=int, default=None, metavar="N", help="players of a new game (default 4)"
    )
    parser.add_argument(
        "--rules", action="append", default=[], metavar="RULE", help="optional rule of a new game"
    )
    parser.add_argument(
        "--setting",
        action="append",
        default=[],
        metavar="NAME=N",
        help="a number the title asks for when a new game is created (its settings: the New game screen "
        "lists them, e.g. dividends_track=N)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of a new game")
    parser.add_argument("--game", type=int, default=None, metavar="ID", help="resume this saved game")
    parser.add_argument(
        "--import",
        dest="import_file",
        type=Path,
        default=None,
        metavar="FILE",
        help="start a new table game from an 18xx.games export (JSON), at its last state",
    )
    parser.add_argument(
        "--demo-tags",
        action="store_true",
        help="enroll made-up tags on every card that has none (try a table without stickers)",
    )
    parser.add_argument("--port", default=None, help="reader board serial port (without --simulate)")
    parser.add_argument("--speed", type=float, default=1.0, help="speed up the script's waits (default 1)")
    parser.set_defaults(func=run)


def _config() -> Config:
    path = os.environ.get("COMPANION_CONFIG")
    return load_config(path) if path else Config()


def _db(args: argparse.Namespace, config: Config) -> Path:
    return database_path(args.db, config)


def _print_proposal(proposal: Proposal | None, service: TableService | None = None) -> None:
    if proposal is None:
        return
    print(f"? {proposal.text}")
    if service is not None:
        for line in service.title.money_lines(service.game, proposal.preview):
            print(f"  {line}")
    if proposal.options:
        labels = [
            f"[{o.label}]" if i == proposal.selected else o.label for i, o in enumerate(proposal.options)
        ]
        print(f"  options: {' '.join(labels)}")
    if proposal.price_range is not None and service is not None:
        lo, hi = (service.money(p) for p in proposal.price_range)
        print(f"  price: {lo} to {hi}")
    print(f"  ({proposal.hint})", flush=True)


def _print_result(result: Result) -> None:
    if result.ok:
        suffix = f" [action {result.seq}]" if result.seq is not None else ""
        print(f"ok: {result.text}{suffix}", flush=True)
        for line in result.log:  # what the engine did: the action and what followed by itself
            print(f"  · {line}", flush=True)
    else:
        print(f"refused: {result.text}", flush=True)


def _status(service: TableService) -> str:
    game = service.game
    current = game.current_entity()
    who = getattr(current, "name", "nobody")
    if game.finished:
        return f"game {service.game_id} ({game.title}) is over: {game.game_end_reason}"
    return (
        f"game {service.game_id} ({game.title}, {len(game.players)} players): {game.round.name}, {who} to act"
    )


def _turn(service: TableService) -> str:
    """Whose turn it is and what they may do now: the line printed after every action.  The
    buttons are the touchscreen's (the title's ``choices``), touched here with ``touch LABEL``."""
    game = service.game
    if game.finished:
        return f"the game is over: {game.game_end_reason}"
    current = game.current_entity()
    if current is None:
        return "nobody is to act"
    who = getattr(current, "name", "nobody")
    sym = getattr(current, "sym", None)
    owner_name = getattr(getattr(current, "owner", None), "name", None)
    if sym is not None and owner_name is not None:
        who = f"{sym} (president {owner_name})"
    groups: dict[str, list[str]] = {}
    for pick in service.buttons():
        groups.setdefault(pick.group, []).append(pick.label)
    buttons = "; ".join(
        labels[0] if len(labels) == 1 else f"{group} ({len(labels)}: {labels[0]}, …)"
        for group, labels in groups.items()
    )
    listed = " (buttons lists them all)" if any(len(labels) > 1 for labels in groups.values()) else ""
    undo = "; undo to take back the last action" if game.actions else ""
    typed = "; or type your own run by its stops: run C17 D14; C18 E12 F9" if "run" in groups else ""
    return (
        f"now: {who} to act in the {game.round.name.lower()}: tap a card or your player card, "
        f"or touch a button: {buttons}{listed}{typed}{undo}"
    )


def _buttons(service: TableService, group: str = "") -> str:
    """Every button now (of ``group``, or those starting so), one a line, by group."""
    picks = [c for c in service.buttons() if c.group.startswith(group) or c.label.startswith(group)]
    if not picks:
        return f"no buttons{' of ' + group if group else ''} now"
    return "\n".join(f"  [{c.group}] {c.label}" for c in picks)


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except (ConfigError, StoreError, TagError, GameError, ScriptError, ExportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def _run(args: argparse.Namespace) -> int:
    config = _config()
    title = args.title or config.game.title
    if args.import_file is not None:
        title = str(load_export(args.import_file)["title"])
    if title not in known_titles():
        raise GameError(f"unknown title {title!r}; known titles: {', '.join(known_titles())}")
    if args.speed <= 0:
        raise GameError("--speed must be positive")
    path = _db(args, config)
    with Store.open(path) as store, TagRegistry.open(path) as registry:
        if args.demo_tags:
            added = enroll_demo_tags(registry, title, args.rules)
            print(f"enrolled demo tags on {added} card(s)")
        errors: list[str] = []
        steps = _steps(args, registry, title, errors) if args.simulate is not None else None
        service_of: list[TableService] = []

        def print_result(result: Result) -> None:
            _print_result(result)
            if result.applied and service_of:
                print(_turn(service_of[0]), flush=True)

        def print_proposal(proposal: Proposal | None) -> None:
            _print_proposal(proposal, service_of[0] if service_of else None)

        listeners: dict[str, Any] = {"on_proposal": print_proposal, "on_result": print_result}
        if args.import_file is not None:
            if args.game is not None:
                raise GameError("--import starts a new game; it cannot be combined with --game")
            game_id, game = import_export(store, load_export(args.import_file))
            service = TableService(game, store, game_id, registry, **listeners)
            print(f"imported {args.import_file}: {len(game.actions)} actions", flush=True)
        elif args.game is not None:
            service = TableService.open(store, args.game, registry, **listeners)
        else:
            if args.players is not None:
                names = [f"Player {i}" for i in range(1, args.players + 1)]
            else:
                names = list(config.game.players) or [f"Player {i}" for i in range(1, 5)]
            rules = (args.rules or list(config.game.rules)) + list(args.setting)
            service = TableService.new(store, registry, title, names, rules, args.seed, **listeners)
        service_of.append(service)
        print(_status(service), flush=True)
        info = title_info(service.game.title)
        chosen = chosen_settings(info.name, info.settings, service.game.optional_rules)
        for setting in info.settings:  # the numbers chosen at the game's creation (TSR's dividends track)
            print(f"{setting.label}: {chosen[setting.sym]}", flush=True)
        print(_turn(service), flush=True)
        if args.simulate is not None:
            return _simulate(args, service, steps, errors)
        settle_collector()  # the loaded game out of the collector's way (companion/runtime.py)
        return _live(args, service, config)


def _print_notice(notice: Notice) -> None:
    """What the device runtime says itself that the terminal shows (the reader failing, a refusal):
    a tap's proposal or refusal is the table service's, printed by its listeners."""
    if notice.kind is NoticeKind.TAPPED:
        return
    print(f"{'refused: ' if not notice.ok else ''}{notice.text}", flush=True)


def _steps(args: argparse.Namespace, registry: TagRegistry, title: str, errors: list[str]) -> Any:
    """The script's steps, all checked before anything is played (stdin: line by line)."""
    if args.simulate == "-":
        return stream_table_script(sys.stdin, errors, registry=registry, title=title)
    script = Path(args.simulate)
    text = read_text(script, "table script")  # InputFileError (exit 3) for a file that cannot be used
    try:
        return parse_table_script(text, registry=registry, title=title)
    except ScriptError as exc:
        raise GameError(f"{script}: {exc}; nothing was played") from None


def _simulate(args: argparse.Namespace, service: TableService, steps: Any, errors: list[str]) -> int:
    devices = DeviceRuntime(
        service.registry, reader=SimulatedReader(follow=True), panel=SimulatedPanel(), service=service
    )
    devices.listen(_print_notice)
    devices.start()
    try:
        for step in steps:
            if isinstance(step, Invalid):
                print(f"script: {step.error}", file=sys.stderr, flush=True)
                print(f"refused: {step.error}; nothing changed", flush=True)
                print(_turn(service), flush=True)
                continue
            while errors:
                print(f"script: {errors.pop(0)}", file=sys.stderr)
            if isinstance(step, Help):
                print(HELP, flush=True)
                continue
            if isinstance(step, Buttons):
                print(_buttons(service, step.group), flush=True)
                continue
            devices.play([step], speed=args.speed)
        while errors:
            print(f"script: {errors.pop(0)}", file=sys.stderr)
    finally:
        devices.stop()
    print(_status(service), flush=True)
    return 0


def _live(
    args: argparse.Namespace, service: TableService, config: Config
) -> int:  # pragma: no cover - hardware
    from companion.hardware.reader import SerialReader

    port = args.port or (None if config.reader.port == "auto" else config.reader.port)
    reader = SerialReader(port)
    pins = config.panel
    panel: Panel
    if pins.mode == "gpio":
        try:
            panel = GpioPanel(pins.confirm, pins.cancel, pins.undo, pins.led_green, pins.led_red, pins.buzzer)
        except Exception as exc:  # gpiozero raises several kinds off the Pi or without permissions
            raise GameError(f'cannot use the panel on GPIO ({exc}); set [panel] mode = "simulated"') from exc
    else:
        panel = SimulatedPanel()  # no buttons: confirm/cancel/undo come from the touchscreen
    # the reader board is opened on the runtime's reader thread; a failure there is printed
    devices = DeviceRuntime(service.registry, reader=reader, panel=panel, service=service)
    devices.listen(_print_notice)
    devices.start()
    print("tap cards on the reader; Ctrl-C stops", flush=True)
    try:
        while devices.running:
            devices.join(0.5)
    except KeyboardInterrupt:
        return 130
    finally:
        devices.stop()
    return 0
