"""Episodes from the curriculum (``proving serve --curriculum --store``): the trainer loop of your own
trains from it, groups are judged once (DAPO), and the curriculum's store shows the episodes."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT, Server
from test_example import load_example

from proving_ground import Client

CURRICULUM_ID = "serve-device-support@1-learnability"


@pytest.fixture(scope="module")
def curriculum_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path]]:
    store = tmp_path_factory.mktemp("curriculum") / "store.db"
    server = Server(
        ["--world", "device-support@1", "--port", "0", "--json", "--heartbeat-s", "0", "--curriculum", "--store", str(store)]
    )
    yield server, store
    server.stop()


def test_trainer_loop_trains_from_the_curriculum(curriculum_server: tuple[Server, Path]) -> None:
    server, store = curriculum_server
    assert server.info.get("curriculum") == CURRICULUM_ID
    summary = load_example().train(server.url, 40, curriculum=True, seed=2)
    assert summary["episodes"] == 40
    assert summary["curriculum"]["episodes"] >= 40
    with Client(server.url) as client:
        snapshot = client.curriculum()
    assert snapshot.id == CURRICULUM_ID and snapshot.strategy == "learnability" and snapshot.snapshot_id
    assert snapshot.distribution and {"key", "family", "difficulty", "probability", "episodes", "passes"} <= set(
        snapshot.distribution[0]
    )
    assert sum(int(d["episodes"]) for d in snapshot.distribution) >= 40


def test_a_curriculum_reset_names_its_task(curriculum_server: tuple[Server, Path]) -> None:
    server, _ = curriculum_server
    with Client(server.url) as client:
        r = client.reset()
        assert r.task_id and r.metadata["family"] and r.metadata["difficulty"] is not None
        assert set(r.metadata["curriculum"]) >= {"snapshot_id", "key"}


def test_the_store_shows_the_episodes(curriculum_server: tuple[Server, Path]) -> None:
    server, store = curriculum_server
    server.stop()
    out = subprocess.run(
        ["node", "--no-node-snapshot", "--import", "tsx", "src/cli/main.ts", "curriculum", "show", CURRICULUM_ID]
        + ["--store", str(store), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert len(json.loads(out.stdout)["episodes"]) >= 40
