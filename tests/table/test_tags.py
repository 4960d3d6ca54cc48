"""The tag registry: catalog from title data, enrollment refusals, CSV export/import."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.data import load_title
from companion.store import Store, StoreError
from companion.table.tags import (
    ItemKind,
    TagError,
    TagRegistry,
    find_item,
    items_for_title,
    normalize_uid,
)
from tests.support.paths import TESTS

FIXTURES = TESTS / "fixtures" / "18xx.games" / "1870"


def uid(n: int) -> str:
    return f"04{n:012X}"


@pytest.fixture
def reg(tmp_path: Path) -> TagRegistry:
    r = TagRegistry.open(tmp_path / "companion.sqlite3")
    yield r  # type: ignore[misc]
    r.close()


def test_1870_catalog_comes_from_the_title_data() -> None:
    spec = load_title("1870")
    items = items_for_title("1870")
    certs = [i for i in items if i.kind is ItemKind.CERTIFICATE]
    assert len(certs) == 9 * len(spec["corporations"])
    assert {i.id for i in items if i.kind is ItemKind.COMPANY} == {c["sym"] for c in spec["companies"]}
    assert find_item("1870", "SLSF_0").label == "SLSF president's certificate (20 %)"
    assert find_item("1870", "SLSF_8").label == "SLSF share certificate 8 of 8 (10 %)"
    trains = [i.id for i in items if i.kind is ItemKind.TRAIN]
    assert trains[:7] == [f"2-{n}" for n in range(7)] and "8-2" in trains and "12-0" in trains
    assert [i.id for i in items if i.kind is ItemKind.PLAYER] == [f"player-{n}" for n in range(1, 8)]
    assert len({(i.title, i.id) for i in items}) == len(items)
    # a 12-train beyond the printed cards still resolves (unlimited supply)
    assert find_item("1870", "12-9").kind is ItemKind.TRAIN
    # the diesel variant's train cards
    diesel = [i.id for i in items_for_title("1870", ["train"], optional_rules=["diesels"])]
    assert "D-0" in diesel and "8-0" not in diesel
    assert find_item("1870", "D-2").label.startswith("D-train card 3")
    with pytest.raises(TagError, match="no card"):
        find_item("1870", "2-7")
    with pytest.raises(TagError, match="unknown title"):
        items_for_title("1899")


def test_catalog_ids_match_18xx_games_share_and_train_ids() -> None:
    checked = 0
    for path in FIXTURES.glob("*.json"):
        export = json.loads(path.read_text())
        rules = export["settings"].get("optional_rules") or []
        ids = {i.id for i in items_for_title("1870", unlimited_copies=20, optional_rules=rules)}
        seen: set[str] = set()
        for action in export["actions"]:
            seen.update(action.get("shares", []))
            if action.get("type") == "buy_train":
                seen.add(action["train"])
            if action.get("type") in ("bid", "buy_company"):
                seen.add(action["company"])
        assert seen and seen <= ids, path.name
        checked += 1
    assert checked >= 1


def test_other_titles_use_their_share_lists() -> None:
    minors = [i for i in items_for_title("1867", ["certificate"]) if i.id.endswith("_0")]
    assert any("(100 %)" in i.label for i in minors)
    assert items_for_title("1870", ["player"])[0].label == "Player 1 card"


def test_uid_normalisation() -> None:
    assert normalize_uid("04:a1:b2:c3:d4:e5:f6") == "04A1B2C3D4E5F6"
    assert normalize_uid("de ad be ef") == "DEADBEEF"
    for bad in ("", "XYZ", "0102030405", "04A1B2C3D4E5F"):
        with pytest.raises(TagError, match="not a tag UID"):
            normalize_uid(bad)


def test_enroll_lookup_forget(reg: TagRegistry) -> None:
    pres = find_item("1870", "SLSF_0")
    e = reg.enroll("04:00:00:00:00:00:01", pres)
    assert e.uid == "04000000000001"
    assert reg.lookup("04000000000001") == pres
    assert reg.lookup(uid(99)) is None
    assert reg.uid_of(pres) == "04000000000001"
    assert reg.forget("04000000000001") == pres.label
    assert reg.lookup("04000000000001") is None
    with pytest.raises(TagError, match="not enrolled"):
        reg.forget("04000000000001")


def test_enroll_refuses_duplicates_and_changes_nothing(reg: TagRegistry) -> None:
    pres = find_item("1870", "SLSF_0")
    share = find_item("1870", "SLSF_1")
    reg.enroll(uid(1), pres)
    with pytest.raises(TagError, match=r"tag 04\w+ is already enrolled as SLSF president's certificate"):
        reg.enroll(uid(1), share)
    with pytest.raises(TagError, match=r"SLSF president's certificate \(20 %\) already has tag"):
        reg.enroll(uid(2), pres)
    with pytest.raises(TagError, match="not a tag UID"):
        reg.enroll("nope", share)
    assert [(e.uid, e.item.id) for e in reg.enrolled()] == [(uid(1), "SLSF_0")]


def test_registry_shares_the_store_file(tmp_path: Path) -> None:
    path = tmp_path / "device.sqlite3"
    with Store.open(path) as store:
        game = store.create_game("1870", ["A", "B"])
        store.append(game, {"type": "pass"})
    with TagRegistry.open(path) as reg:
        reg.enroll(uid(5), find_item("1870", "2-0"))
    with Store.open(path) as store, TagRegistry.open(path) as reg:
        assert len(store.actions(game)) == 1
        assert reg.lookup(uid(5)) == find_item("1870", "2-0")


def test_broken_database_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.sqlite3"
    path.write_bytes(b"\x00junk" * 500)
    with pytest.raises(StoreError, match="junk.sqlite3 is not a companion database"):
        TagRegistry.open(path)


def test_missing_in_enrollment_order(reg: TagRegistry) -> None:
    reg.enroll(uid(1), find_item("1870", "ATSF_0"))
    missing = reg.missing("1870")
    assert missing[0].id == "ATSF_1" and len(missing) == len(items_for_title("1870")) - 1
    assert {i.kind for i in reg.missing("1870", ["train"])} == {ItemKind.TRAIN}


def test_csv_round_trip(tmp_path: Path, reg: TagRegistry) -> None:
    for n, item in enumerate(items_for_title("1870")[::7]):
        reg.enroll(uid(n + 1), item)
    out = io.StringIO()
    count = reg.export_csv(out)
    assert out.getvalue().splitlines()[0] == "uid,title,kind,item,label"
    with TagRegistry.open(tmp_path / "other.sqlite3") as other:
        result = other.import_csv(io.StringIO(out.getvalue()))
        assert (result.added, result.unchanged) == (count, 0)
        assert [(e.uid, e.item) for e in other.enrolled()] == [(e.uid, e.item) for e in reg.enrolled()]
        again = other.import_csv(io.StringIO(out.getvalue()))
        assert (again.added, again.unchanged) == (0, count)


def test_broken_csv_changes_nothing(reg: TagRegistry) -> None:
    reg.enroll(uid(1), find_item("1870", "SLSF_0"))
    good = f"{uid(2)},1870,certificate,SLSF_1,x\n"
    broken = [
        "uid,title,item\n" + good,  # bad header
        "uid,title,kind,item,label\n" + good + "zz,1870,certificate,SLSF_2,\n",  # bad uid
        "uid,title,kind,item,label\n" + good + f"{uid(3)},1870,certificate,SLSF_99,\n",  # no such card
        "uid,title,kind,item,label\n" + good + f"{uid(3)},1870,train,SLSF_2,\n",  # wrong kind
        "uid,title,kind,item,label\n" + good + f"{uid(2)},1870,certificate,SLSF_2,\n",  # uid twice
        "uid,title,kind,item,label\n" + good + f"{uid(3)},1870,certificate,SLSF_1,\n",  # item twice
        "uid,title,kind,item,label\n"
        + good
        + f"{uid(1)},1870,certificate,SLSF_3,\n",  # uid enrolled elsewhere
        "uid,title,kind,item,label\n" + good + f"{uid(4)},1870,certificate,SLSF_0,\n",  # item already tagged
        "uid,title,kind,item,label\n" + good + f"{uid(4)},1870\n",  # short row
    ]
    for text in broken:
        with pytest.raises(TagError, match="nothing imported"):
            reg.import_csv(io.StringIO(text))
        assert [(e.uid, e.item.id) for e in reg.enrolled()] == [(uid(1), "SLSF_0")], text
    # every problem is listed, with its line number
    with pytest.raises(TagError) as info:
        reg.import_csv(io.StringIO("uid,title,kind,item\nzz,1870,certificate,SLSF_2\nyy,1870,company,NOPE\n"))
    assert "line 2" in str(info.value) and "line 3" in str(info.value)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12), st.integers(0, 12)), max_size=30))
def test_registry_stays_a_one_to_one_map(
    tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[int, int]]
) -> None:
    items = items_for_title("1870")[:13]
    with TagRegistry.open(tmp_path_factory.mktemp("reg") / "r.sqlite3") as r:
        model: dict[str, str] = {}
        for u, i in ops:
            try:
                r.enroll(uid(u), items[i])
            except TagError:
                assert uid(u) in model or items[i].id in model.values()
            else:
                assert uid(u) not in model and items[i].id not in model.values()
                model[uid(u)] = items[i].id
        assert {e.uid: e.item.id for e in r.enrolled()} == model
