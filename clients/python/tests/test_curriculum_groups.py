"""A group from the curriculum (GRPO's N rollouts of one drawn task) whose members all fail is judged
once (DAPO's dynamic sampling: GET /curriculum counts it under groups.all_failed)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from conftest import Server

from proving_ground import Client, GroupReset


@pytest.fixture(scope="module")
def curriculum_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    store = tmp_path_factory.mktemp("curriculum-groups") / "store.db"
    server = Server(
        ["--world", "device-support@1", "--port", "0", "--json", "--heartbeat-s", "0", "--curriculum", "--store", str(store)]
    )
    yield server
    server.stop()


def test_an_all_failed_group_counts_once(curriculum_server: Server) -> None:
    with Client(curriculum_server.url) as client:
        before = client.curriculum().groups.get("all_failed", 0)
        group = client.reset(group=3)
        assert isinstance(group, GroupReset) and len({e.task_id for e in group.episodes}) == 1
        assert all("curriculum" in e.metadata for e in group.episodes)  # drawn from the curriculum
        give_up = {"tool": "close_case", "args": {"case_id": "C-00000", "resolution": "no_action"}}
        for episode_id in group.episode_ids:  # end each member as a failure, whatever its task
            for _ in range(300):
                if client.step(give_up, episode_id=episode_id).done:
                    break
        result = client.group(group.group_id)
        assert result.finished and result.all_failed
        deadline = time.monotonic() + 10  # ended episodes reach the curriculum once their records are written
        while client.curriculum().groups.get("all_failed", 0) == before and time.monotonic() < deadline:
            time.sleep(0.1)
        assert client.curriculum().groups.get("all_failed", 0) == before + 1
