"""The Gymnasium env: ``gymnasium.make("proving/<world>-v<N>")`` passes ``check_env`` for every built-in world."""

from __future__ import annotations

import json
import subprocess
import warnings
from collections.abc import Callable

import gymnasium as gym
import numpy as np
import pytest
from conftest import ROOT, Server
from gymnasium.utils.env_checker import check_env

import proving_ground  # noqa: F401  (registers the envs)
from proving_ground import BUILTIN_WORLDS, gym_id, world_of
from proving_ground.gym_env import MAX_ACTIONS


def test_builtin_worlds_match_the_cli() -> None:
    out = subprocess.run(
        ["node", "--no-node-snapshot", "--import", "tsx", "src/cli/main.ts", "worlds", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    cli = [w["id"] for w in json.loads(out.stdout)["worlds"]]
    assert cli == list(BUILTIN_WORLDS), "a built-in world was added or removed: update proving_ground/worlds.py"
    for world in BUILTIN_WORLDS:
        assert world_of(gym_id(world)) == world
        assert gym_id(world) in gym.registry
    assert gym_id("device-support@1") == "proving/device-support-v1"


@pytest.mark.parametrize("world", BUILTIN_WORLDS)
def test_check_env_through_make(serve: Callable[..., Server], world: str) -> None:
    server = serve(world)
    env = gym.make(gym_id(world), base_url=server.url)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(env, skip_render_check=False)
        problems = [str(w.message) for w in caught if "different from the unwrapped" not in str(w.message)]
        assert problems == [], problems
    finally:
        env.close()


def test_seeded_resets_are_reproducible(server: Server) -> None:
    env = gym.make("proving/device-support-v1", base_url=server.url)
    try:
        obs_a, info_a = env.reset(seed=5)
        obs_b, info_b = env.reset(seed=5)
        obs_c, info_c = env.reset(seed=6)
        assert obs_a == obs_b and info_a["task_id"] == info_b["task_id"]
        assert info_a["task_id"] != info_c["task_id"]
        assert isinstance(obs_a, str) and json.loads(obs_a)["kind"] == "task"
    finally:
        env.close()


def test_index_and_json_actions(server: Server) -> None:
    env = gym.make("proving/device-support-v1", base_url=server.url, families=["denied"], difficulties=[1])
    try:
        _, info = env.reset(seed=1)
        mask = info["action_mask"]
        assert mask.shape == (MAX_ACTIONS,) and mask.dtype == np.int8
        listed = info["admissible_actions"]
        assert 0 < len(listed) <= MAX_ACTIONS and int(mask.sum()) == len(listed)
        obs, reward, terminated, truncated, info2 = env.step(0)
        assert json.loads(obs)["kind"] == "tool_result" and json.loads(obs)["tool"] == listed[0]["tool"]
        assert isinstance(reward, float) and not truncated
        # an index past the list is not sent: same observation, flagged
        same, r, term, trunc, flagged = env.step(MAX_ACTIONS - 1)
        assert same == obs and r == 0.0 and not term and flagged["invalid_action"] is True
        case_id = json.loads(env.reset(seed=1)[0])["context"]["case_id"]
        tool_call = json.dumps({"tool": "get_case", "args": {"case_id": case_id}})
        obs3, *_ = env.step(tool_call)
        assert json.loads(obs3)["result"]["ok"] is True
        assert env.unwrapped.episode_id  # type: ignore[attr-defined]
    finally:
        env.close()


def test_episode_ends_with_the_verdict(server: Server) -> None:
    env = gym.make("proving/device-support-v1", base_url=server.url, transport="http", families=["denied"])
    try:
        obs, _ = env.reset(seed=3, options={"difficulty": 1})
        case_id = json.loads(obs)["context"]["case_id"]
        env.step({"tool": "get_approval", "args": {"case_id": case_id}})
        _, _, terminated, _, info = env.step({"tool": "close_case", "args": {"case_id": case_id, "resolution": "denied"}})
        assert terminated and info["verdict"]["passed"] is True
        assert info["action_mask"].sum() == 0
    finally:
        env.close()


def test_wrong_world_is_refused(server: Server) -> None:
    with pytest.raises(ValueError, match="serves device-support@1"):
        gym.make("proving/order-ops-v1", base_url=server.url)
