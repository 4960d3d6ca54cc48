"""The documents say what the program does (issue 42, item 13): each claim checked against the
program itself, so a document that falls behind fails here."""

from __future__ import annotations

import re
import subprocess
import sys

from companion.commands.run import title_refusal
from companion.engine import all_titles
from companion.table.tags import items_for_title
from tests.support.paths import ROOT


def read(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def test_configuration_does_not_say_run_refuses_a_title_it_plays() -> None:
    row = next(line for line in read("docs/CONFIGURATION.md").splitlines() if line.startswith("| `title` |"))
    served = [t.name for t in all_titles() if title_refusal(t.name) is None]
    assert {"TSR", "CoBS"} <= set(served)
    played = row.partition("`companion run`")[2]
    for title in served:  # each title it plays is named as played
        assert re.search(rf"\b{re.escape(title)}\b", played), (title, row)


def test_engine_doc_does_not_say_a_served_title_is_not_at_the_table() -> None:
    text = read("docs/ENGINE.md")
    served = {t.name for t in all_titles() if title_refusal(t.name) is None}
    rows = [line for line in text.splitlines() if line.startswith("| `")]  # the titles' table
    for row in rows:
        named = {name for name in served if re.search(rf"\b{re.escape(name)}\b", row.split("|")[2])}
        if named:
            assert "not yet at the table" not in row and "not yet title-specific" not in row, row
    assert "The screens have no 1867-specific panels yet" not in text


def test_readme_says_a_title_is_not_complete_when_its_engine_says_so() -> None:
    rows = {
        line.split("|")[1].strip(): line for line in read("README.md").splitlines() if line.startswith("| ")
    }
    for t in all_titles():
        row = next((r for name, r in rows.items() if name == t.name or f"(`{t.name}`)" in name), None)
        if row is None or t.complete:
            continue
        title_doc = {"1833NE": "docs/1833NE.md"}.get(t.name)
        if title_doc and "not complete" in " ".join(read(title_doc)[:400].split()):
            assert "not complete" in row, row


def test_the_bill_of_materials_counts_every_titles_stickers() -> None:
    counts = {t.name: len(items_for_title(t.name)) for t in all_titles()}
    bom = read("hardware/BOM.md")
    row = next(line for line in bom.splitlines() if "NFC stickers" in line)
    for title, n in counts.items():
        assert f"{title} {n}" in row, (title, n, row)
    assert f"all six sets: {sum(counts.values())}" in row
    assert len(counts) == 6
    assert f"{sum(counts.values())} for all six titles" in read("hardware/STICKERS.md")


def test_tags_sheet_help_prints_a_plain_percent() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "companion", "tags", "sheet", "--help"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    assert "100 %" in out and "%%" not in out
