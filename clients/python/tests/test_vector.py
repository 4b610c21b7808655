"""The vector env: sub-envs as sessions of one WebSocket connection, one step_batch message per step."""

from __future__ import annotations

from collections.abc import Callable

import gymnasium as gym
import numpy as np
from conftest import Server

import proving_ground  # noqa: F401
from proving_ground.vector_env import ProvingVectorEnv


def test_make_vec_plays_and_autoresets_without_leaking(serve: Callable[..., Server]) -> None:
    server = serve("device-support@1", "--max-sessions", "5")  # 4 sub-envs + 1: a leaked session would not fit
    envs = gym.make_vec(
        "proving/device-support-v1", num_envs=4, vectorization_mode="vector_entry_point", base_url=server.url
    )
    try:
        assert isinstance(envs.unwrapped, ProvingVectorEnv)
        obs, infos = envs.reset(seed=3)
        again, infos2 = envs.reset(seed=3)
        assert obs == again and list(infos["task_id"]) == list(infos2["task_id"])
        assert len(obs) == 4 and infos["action_mask"].shape == (4, 64)
        rng = np.random.default_rng(0)
        ended = 0
        for _ in range(120):
            actions = np.array([int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in infos["action_mask"]])
            obs, rewards, terminated, truncated, infos = envs.step(actions)
            assert rewards.shape == (4,) and len(obs) == 4
            ended += int((terminated | truncated).sum())
        assert ended >= 4, "episodes ended and were reset in place"
        assert len(set(envs.unwrapped.episode_ids)) == 4
    finally:
        envs.close()


def test_json_actions_and_invalid_indices(server: Server) -> None:
    envs = ProvingVectorEnv(server.url, num_envs=2, families=["denied"], difficulties=[1])
    try:
        obs, infos = envs.reset(seed=1)
        listed = infos["admissible_actions"][0]
        obs2, rewards, terminated, truncated, infos2 = envs.step([listed[0], 63])
        assert '"tool_result"' in obs2[0]
        assert obs2[1] == obs[1] and infos2["invalid_action"][1] and rewards[1] == 0.0
    finally:
        envs.close()


def test_one_message_per_step(server: Server) -> None:
    envs = ProvingVectorEnv(server.url, num_envs=6, families=["denied"], difficulties=[1])
    try:
        obs, infos = envs.reset(seed=4)
        sent: list[str] = []
        send = envs.client._send

        def counting(kind: str, data: object = None) -> tuple[str, object]:
            sent.append(kind)
            return send(kind, data)

        envs.client._send = counting  # type: ignore[method-assign]
        envs.step(np.zeros(6, dtype=np.int64))  # each sub-env's first admissible action
        assert sent == ["step_batch"]
    finally:
        envs.close()
