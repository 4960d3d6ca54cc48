"""``companion tags``: enroll NFC tags on the game's cards, list, export/import, forget, print stickers.

    companion tags enroll --title 1870 [--db PATH] [--port DEV | --simulate [SCRIPT]] [--only KIND]
    companion tags list [--title 1870] [--all]
    companion tags export FILE            (FILE '-' writes to stdout)
    companion tags import FILE
    companion tags forget UID
    companion tags sheet --title 1870 OUT.svg

The registry lives in the device database: ``--db``, else ``$COMPANION_DB``,
else ``game.database`` of the configuration named by ``$COMPANION_CONFIG``,
else the default data directory.  See ``docs/TAGS.md``.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import sys
from pathlib import Path
from typing import Any

from companion.config import ConfigError, load_config
from companion.hardware.events import TagSource
from companion.inputfile import check_csv, read_csv_text, read_stream, read_text
from companion.store import StoreError, database_path, rules_problem
from companion.table.tags import (
    DEFAULT_UNLIMITED_COPIES,
    ItemKind,
    SheetLayout,
    TagError,
    TagRegistry,
    combine_pages,
    items_for_title,
    sticker_sheet,
)
from companion.titles import DEFAULT_TITLE, known_titles

KINDS = [k.value for k in ItemKind]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "tags",
        help="enroll NFC tags on certificates, companies, trains and player cards",
        description="The NFC tag registry: which tag is on which card.",
    )
    parser.set_defaults(func=lambda args: _usage(parser))
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--db", type=Path, help="device database (default: $COMPANION_DB, the configuration, or the default)"
    )
    titled = argparse.ArgumentParser(add_help=False)
    titled.add_argument("--title", default=None, help="game title (default: the configured title)")
    titled.add_argument(
        "--only",
        action="append",
        choices=KINDS,
        metavar="KIND",
        help=f"only these kinds ({', '.join(KINDS)})",
    )
    titled.add_argument(
        "--rules", action="append", default=[], metavar="RULE", help="optional rule, e.g. diesels"
    )
    titled.add_argument(
        "--unlimited-copies",
        type=int,
        default=DEFAULT_UNLIMITED_COPIES,
        metavar="N",
        help=f"cards per unlimited train type (default {DEFAULT_UNLIMITED_COPIES})",
    )
    sub = parser.add_subparsers(dest="tags_command", metavar="ACTION")

    enroll = sub.add_parser(
        "enroll",
        parents=[common, titled],
        help="tap every card that has no tag yet, in order",
        description="Walks through every card of the title that has no tag yet and enrolls the tag tapped "
        "for it. A tag that is already enrolled is refused and the same card is asked for again. "
        "Ctrl-C or the end of the script stops; what was enrolled is kept.",
    )
    src = enroll.add_mutually_exclusive_group()
    src.add_argument("--port", metavar="DEV", help="serial device of the reader board, e.g. /dev/ttyACM0")
    src.add_argument(
        "--simulate",
        nargs="?",
        const="-",
        metavar="SCRIPT",
        help="simulated reader playing SCRIPT ('tap 0 04A1B2C3D4E5F6' lines; default: stdin)",
    )
    enroll.set_defaults(func=run_enroll)

    lister = sub.add_parser("list", parents=[common, titled], help="show enrolled tags")
    lister.add_argument("--all", action="store_true", help="every card of --title, with its tag or '-'")
    lister.set_defaults(func=run_list)

    export = sub.add_parser("export", parents=[common], help="write the registry as CSV")
    export.add_argument("file", help="CSV file to write ('-' for stdout)")
    export.add_argument("--title", default=None, help="only this title")
    export.set_defaults(func=run_export)

    imp = sub.add_parser("import", parents=[common], help="enroll every row of a CSV export (all or nothing)")
    imp.add_argument("file", help="CSV file to read ('-' for stdin)")
    imp.set_defaults(func=run_import)

    forget = sub.add_parser("forget", parents=[common], help="remove one tag from the registry")
    forget.add_argument("uid", nargs="?", help="tag UID, e.g. 04A1B2C3D4E5F6")
    forget.add_argument(
        "--damaged",
        action="store_true",
        help="remove every row that cannot be used (see tags list's warnings)",
    )
    forget.set_defaults(func=run_forget)

    sheet = sub.add_parser(
        "sheet",
        parents=[titled],
        help="write the printable sticker sheet (SVG, A4 pages)",
        description="Writes OUT (every page, stacked, for viewing) and, when there is more than one page, "
        "OUT-p1.svg, OUT-p2.svg, ... (one A4 page each, for printing at 100 %).",
    )
    sheet.add_argument("out", type=Path, help="output SVG file, e.g. sheet.svg")
    sheet.add_argument("--card-size", default="88x63", metavar="WxH", help="card size in mm (default 88x63)")
    sheet.add_argument(
        "--sticker", type=float, default=25.0, metavar="MM", help="sticker diameter (default 25)"
    )
    sheet.set_defaults(func=run_sheet)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


#: the most problem lines one error prints (a CSV of a million bad rows names the first ones)
MAX_ERROR_LINES = 20


def _error(message: str) -> int:
    lines = message.splitlines()
    if len(lines) > MAX_ERROR_LINES + 1:
        lines = [*lines[: MAX_ERROR_LINES + 1], f"  ... and {len(lines) - MAX_ERROR_LINES - 1} more"]
    print("error: " + "\n".join(lines), file=sys.stderr)
    return 1


def _config_title() -> str:
    path = os.environ.get("COMPANION_CONFIG")
    return load_config(path).game.title if path else DEFAULT_TITLE


def db_path(args: argparse.Namespace) -> Path:
    """``--db``, else ``$COMPANION_DB``, else the configured database, else the default."""
    config = os.environ.get("COMPANION_CONFIG")
    return database_path(args.db, load_config(config) if config else None)


def _items(args: argparse.Namespace) -> tuple[str, list[Any]]:
    title = args.title or _config_title()
    known = known_titles()
    if title not in known:
        raise TagError(f"unknown title {title!r}; known titles: {', '.join(known)}")
    problem = rules_problem(title, list(args.rules))
    if problem is not None:
        raise TagError(problem)
    return title, items_for_title(title, args.only, args.unlimited_copies, args.rules)


def _run(args: argparse.Namespace, body: Any) -> int:
    try:
        result: int = body(args)
        return result
    except (TagError, StoreError, ConfigError) as exc:
        return _error(str(exc))
    except OSError as exc:
        return _error(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "))


# --------------------------------------------------------------------------- enroll


def _source(args: argparse.Namespace) -> TagSource:
    from companion.hardware.reader import (
        PICO_PID,
        PICO_VID,
        ScriptError,
        SerialReader,
        SimulatedReader,
        find_reader_port,
        parse_script,
    )

    if args.simulate is not None:
        if args.simulate == "-":
            return SimulatedReader.from_stream(sys.stdin)
        path = Path(args.simulate)
        text = read_text(path, "reader script")  # InputFileError (exit 3) for a file that cannot be used
        try:
            return SimulatedReader(parse_script(text))
        except ScriptError as exc:
            raise TagError(f"{path}: {exc}") from None
    if args.port is None and find_reader_port() is None:
        raise TagError(
            f"no reader board found (USB {PICO_VID:04X}:{PICO_PID:04X}); plug it in, "
            "or pass --port DEV or --simulate SCRIPT"
        )
    return SerialReader(args.port)


def run_enroll(args: argparse.Namespace) -> int:
    return _run(args, _enroll)


def _enroll(args: argparse.Namespace) -> int:
    """Each card still without a tag, asked for in turn; the taps go through the device runtime
    (``companion/devices.py``) as the table's and the screen's enrolment do."""
    import threading

    from companion.devices import DeviceRuntime, Notice, NoticeKind

    title, _ = _items(args)
    path = db_path(args)
    with TagRegistry.open(path) as registry:
        todo = registry.missing(title, args.only, args.unlimited_copies, args.rules)
        if not todo:
            print(f"Every {title} card already has a tag in {path}.")
            return 0
        devices = DeviceRuntime(registry, reader=_source(args))
        print(f"Enrolling {len(todo)} {title} card(s) into {path}. Ctrl-C stops; what is enrolled is kept.")
        done = 0
        finished = threading.Event()

        def ask() -> None:
            print(f"[{done + 1}/{len(todo)}] Tap the {todo[done].label}", flush=True)
            devices.enroll_next(todo[done])

        def heard(notice: Notice) -> None:  # on the reader's thread, one tap at a time
            nonlocal done
            if notice.kind is NoticeKind.ENROLLED:
                done += 1
                print(
                    f"  ok: tag {notice.uid} is the {notice.card.label if notice.card else '?'}", flush=True
                )
                if done == len(todo):
                    finished.set()
                    return
                ask()
            elif notice.kind is NoticeKind.REFUSED:
                print(f"  refused: {notice.text}", flush=True)
                ask()
            elif notice.kind is NoticeKind.READER_STOPPED:
                print(notice.text, flush=True)

        devices.listen(heard)
        interrupted = False
        ask()
        devices.start()
        try:
            while not finished.is_set() and devices.running:
                finished.wait(0.2)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            devices.stop()
        left = len(todo) - done
        if left == 0:
            print(f"Done: {done} tag(s) enrolled; every {title} card asked for has a tag.")
            return 0
        why = "Interrupted" if interrupted else "The reader stopped"
        print(
            f"{why}: {done} tag(s) enrolled and kept, {left} card(s) still without a tag; "
            "run the same command again to continue."
        )
        return 130 if interrupted else 1


# --------------------------------------------------------------------------- list, export, import, forget


def run_list(args: argparse.Namespace) -> int:
    return _run(args, _list)


def _list(args: argparse.Namespace) -> int:
    with TagRegistry.open(db_path(args)) as registry:
        if args.all:
            title, items = _items(args)
            have = {e.item.id: e.uid for e in registry.enrolled(title)}
            for item in items:
                print(f"{have.get(item.id, '-'):<20} {item.kind.value:<11} {item.id:<10} {item.label}")
            count = sum(1 for item in items if item.id in have)
            print(f"{count} of {len(items)} {title} card(s) have a tag.")
            _warn_damaged(registry)
            return 0
        title = args.title
        kinds = set(args.only or KINDS)
        rows = [e for e in registry.enrolled(title) if e.item.kind.value in kinds]
        for e in rows:
            print(f"{e.uid:<20} {e.item.title:<7} {e.item.kind.value:<11} {e.item.id:<10} {e.item.label}")
        print(f"{len(rows)} tag(s) enrolled.")
        _warn_damaged(registry)
    return 0


def _warn_damaged(registry: TagRegistry) -> None:
    for problem in registry.damaged():
        print(f"warning: {problem}", file=sys.stderr)


def run_export(args: argparse.Namespace) -> int:
    return _run(args, _export)


def _export(args: argparse.Namespace) -> int:
    with TagRegistry.open(db_path(args)) as registry:
        if args.file == "-":
            registry.export_csv(sys.stdout, args.title)
            return 0
        target = Path(args.file)
        tmp = target.with_name(target.name + ".tmp")
        with tmp.open("w", encoding="utf-8", newline="") as stream:
            count = registry.export_csv(stream, args.title)
        tmp.replace(target)
        _warn_damaged(registry)
    print(f"wrote {count} tag(s) to {target}")
    return 0


def run_import(args: argparse.Namespace) -> int:
    return _run(args, _import)


def _import(args: argparse.Namespace) -> int:
    # the whole file is read and checked before the database is opened (InputFileError: exit 3)
    if args.file == "-":
        text = check_csv(read_stream(sys.stdin, "stdin", "tags CSV"), "stdin")
    else:
        text = read_csv_text(args.file, "tags CSV")
    with TagRegistry.open(db_path(args)) as registry:
        result = registry.import_csv(
            io.StringIO(text, newline=""), "stdin" if args.file == "-" else args.file
        )
    print(f"imported {result.added} tag(s); {result.unchanged} were already enrolled the same way")
    return 0


def run_forget(args: argparse.Namespace) -> int:
    return _run(args, _forget)


def _forget(args: argparse.Namespace) -> int:
    if args.damaged == (args.uid is not None):
        return _error("give either a tag UID or --damaged")
    with TagRegistry.open(db_path(args)) as registry:
        if args.damaged:
            print(f"removed {registry.forget_damaged()} damaged row(s) from the tag registry")
            return 0
        what = registry.forget(args.uid)
    print(f"forgot tag {args.uid}: it was the {what}")
    return 0


# --------------------------------------------------------------------------- sheet


def run_sheet(args: argparse.Namespace) -> int:
    return _run(args, _sheet)


def _sheet(args: argparse.Namespace) -> int:
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*[xX]\s*(\d+(?:\.\d+)?)\s*", args.card_size)
    if not match:
        raise TagError(f"--card-size {args.card_size!r} is not WIDTHxHEIGHT in mm, e.g. 88x63")
    _, items = _items(args)
    layout = SheetLayout(card=(float(match[1]), float(match[2])), sticker=args.sticker)
    pages = sticker_sheet(items, layout)
    out: Path = args.out
    written = [out]
    files = {out: pages[0] if len(pages) == 1 else combine_pages(pages)}
    if len(pages) > 1:
        for number, page in enumerate(pages, start=1):
            page_path = out.with_name(f"{out.stem}-p{number}{out.suffix or '.svg'}")
            files[page_path] = page
            written.append(page_path)
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    print(f"{len(items)} card(s) on {len(pages)} A4 page(s): " + ", ".join(str(p) for p in written))
    return 0
