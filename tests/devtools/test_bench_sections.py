"""``python -m devtools.bench NAME`` replaces only its own section of docs/BENCHMARKS.md."""

from __future__ import annotations

from devtools.bench.__main__ import merge_sections

OLD = """# Benchmarks

Written by `make bench` on 2026-01-01 00:00 UTC.

## Engine replay

engine figures

## Camera tile recognition

old camera figures

This section was re-run alone before.
"""


def test_a_section_run_alone_replaces_only_its_own_section() -> None:
    new = merge_sections(OLD, ["## Camera tile recognition\n\nnew camera figures\n"], "Re-run alone today.")
    assert new.startswith(
        "# Benchmarks\n\nWritten by `make bench` on 2026-01-01 00:00 UTC.\n\n## Engine replay"
    )
    assert "engine figures" in new
    assert "old camera figures" not in new and "re-run alone before" not in new
    assert new.endswith("## Camera tile recognition\n\nnew camera figures\n\nRe-run alone today.\n")
    added = merge_sections(OLD, ["## Route optimiser\n\nroutes\n"], "note")
    assert added.index("## Camera tile recognition") < added.index("## Route optimiser")
    assert "old camera figures" in added


HAND_WRITTEN = OLD.replace(
    "## Camera tile recognition", "## Where replay time goes\n\nwritten by hand\n\n## Camera tile recognition"
)


def test_make_bench_rewrites_every_measured_section_and_keeps_the_hand_written_ones() -> None:
    head = "# Benchmarks\n\nWritten by `make bench` on 2026-12-02 04:00 UTC.\n"
    sections = ["## Engine replay\n\nnew engine\n", "## Camera tile recognition\n\nnew camera\n"]
    new = merge_sections(HAND_WRITTEN, sections, "", head=head)
    assert new.startswith(head + "\n## Engine replay\n\nnew engine\n\n## Where replay time goes")
    assert "written by hand" in new and "2026-01-01" not in new
    assert "engine figures" not in new and "old camera figures" not in new
    assert "re-run alone" not in new.lower()
    assert new.endswith("## Camera tile recognition\n\nnew camera\n")
    # a first run, with no file yet: the head and the sections
    assert (
        merge_sections(head, sections, "", head=head)
        == head + "\n" + "\n\n".join(s.strip() for s in sections) + "\n"
    )
