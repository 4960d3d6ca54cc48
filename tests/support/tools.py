"""The repository's ``tools/`` scripts loaded as modules (they are not installed)."""

from __future__ import annotations

import importlib.util
import sys

from tests.support.paths import ROOT

TOOL = ROOT / "tools" / "random_games.py"
ORACLE = ROOT / "tools" / "oracle_run.py"


def load_tool(path=TOOL):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module
