import pytest

from companion.data import load_tiles, load_title, parse_code, tile_def
from companion.data.tilecode import revenue_by_color


def test_parse_city_and_paths() -> None:
    parts = parse_code("city=revenue:20;path=a:0,b:_0;path=a:1,b:_0")
    assert [p.type for p in parts] == ["city", "path", "path"]
    assert parts[0].int("revenue") == 20
    assert parts[0].int("slots", 1) == 1
    assert parts[1].params == {"a": "0", "b": "_0"}


def test_blank_code_has_no_parts() -> None:
    assert parse_code("") == ()


def test_malformed_parameter_is_rejected() -> None:
    with pytest.raises(ValueError, match="malformed"):
        parse_code("city=revenue:10,slots")


def test_revenue_by_color() -> None:
    assert revenue_by_color("30") == 30
    assert revenue_by_color("yellow_30|brown_40") == {"yellow": 30, "brown": 40}


def test_every_title_hex_and_tile_parses() -> None:
    for code in (t["code"] for t in load_tiles().values()):
        parse_code(code)
    data = load_title("1870")
    hexes = [h for per_color in data["map"]["hexes"].values() for h in per_color]
    assert len(hexes) == 154
    for per_color in data["map"]["hexes"].values():
        for code in per_color.values():
            parse_code(code)


def test_title_defined_tile() -> None:
    tile = tile_def("1870", "171K")
    assert tile.color == "gray"
    assert tile.parts[0].int("slots") == 3


def test_unknown_title() -> None:
    with pytest.raises(KeyError, match="unknown title"):
        load_title("1830")


def test_bare_label_value() -> None:
    assert parse_code("label=T")[0].get("label") == "T"
