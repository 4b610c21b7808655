"""The trainer loop of your own (clients/python/examples/tabular_trainer.py) plays real episodes."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from conftest import Server

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "tabular_trainer.py"


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tabular_trainer", EXAMPLE)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["tabular_trainer"] = module
    spec.loader.exec_module(module)
    return module


def test_trains_with_tasks_chosen_here(server: Server) -> None:
    summary = load_example().train(server.url, 40, curriculum=False, seed=1)
    assert summary["episodes"] == 40
    assert 0.0 <= summary["pass_rate_last"] <= 1.0
    assert summary["curriculum"] is None  # a server without --curriculum has no /curriculum
