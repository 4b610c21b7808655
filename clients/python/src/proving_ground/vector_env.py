"""A Gymnasium vector env over batched stepping: ``num_envs`` sessions on one WebSocket connection.

Each sub-env is a session of the connection (opened by a reset with ``group: 1``; restarted later by
a reset naming its episode id, so autoresets open nothing new); one ``step`` of the vector env is
one ``step_batch`` message. Spaces, actions and ``info`` are the single env's
(:class:`~proving_ground.gym_env.ProvingEnv`): a text observation per sub-env, an index into its
admissible actions (``MultiDiscrete([64] * num_envs)``) or a tool call as JSON text/mapping, and
``info["action_mask"]`` stacked ``(num_envs, 64)``. Autoreset is Gymnasium's default (next step): the
step after a sub-env's episode ended resets it, ignoring its action. Tasks come from the vector env's
``np_random`` (or, with ``curriculum=True``, from the server's curriculum).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ._wire import action_of
from .gym_env import _PER_CONNECTION, _TASK_KEYS, CHARSET, MAX_ACTIONS, ActionLike, TaskDraw, action_mask, observation_text
from .results import StepError, StepResult
from .ws_client import WsClient

__all__ = ["ProvingVectorEnv"]


class ProvingVectorEnv(VectorEnv[Any, Any, Any]):
    """``num_envs`` episodes of one served world, stepped together in one message per step."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000",
        num_envs: int = 8,
        world: str | None = None,
        *,
        families: Sequence[str] | None = None,
        difficulties: Sequence[int] | None = None,
        token: str | None = None,
        curriculum: bool = False,
        split: str | None = None,
        max_observation_chars: int = 1 << 20,
        timeout: float = 60.0,
    ) -> None:
        if not 1 <= num_envs <= 256:
            raise ValueError("num_envs: 1..256 (one step_batch message steps them all)")
        self.client = WsClient(base_url, token=token, timeout=timeout)
        try:
            self.tasks = TaskDraw(self.client.metadata(), world=world, families=families, difficulties=difficulties)
        except ValueError:
            self.client.close()
            raise
        self.world = self.tasks.world
        self.num_envs = num_envs
        self.curriculum = curriculum
        self.split = split
        self.single_observation_space = spaces.Text(max_length=max_observation_chars, charset=CHARSET)
        self.single_action_space = spaces.Discrete(MAX_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.episode_ids: list[str | None] = [None] * num_envs
        self._texts = [""] * num_envs
        self._infos: list[dict[str, Any]] = [{} for _ in range(num_envs)]
        self._task: list[dict[str, Any]] = [{} for _ in range(num_envs)]
        self._steps = np.zeros(num_envs, dtype=np.int64)
        self._max_steps: list[int | None] = [None] * num_envs
        self._autoreset = np.zeros(num_envs, dtype=np.bool_)
        self.closed = False

    # ---- the vector API
    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[tuple[str, ...], dict[str, Any]]:
        if isinstance(seed, list):
            seed = seed[0]
        super().reset(seed=seed)
        for i in range(self.num_envs):
            self._reset_one(i, options)
        self._autoreset[:] = False
        return tuple(self._texts), self._batched(list(range(self.num_envs)), {})

    def step(
        self, actions: Sequence[ActionLike] | np.ndarray
    ) -> tuple[tuple[str, ...], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if len(actions) != self.num_envs:
            raise ValueError(f"{len(actions)} actions for {self.num_envs} envs")
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated = np.zeros(self.num_envs, dtype=np.bool_)
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        invalid: dict[int, bool] = {}
        batch: list[tuple[str, dict[str, Any]]] = []
        stepped: list[int] = []
        for i, action in enumerate(actions):
            if self._autoreset[i]:
                self._reset_one(i, None)
                continue
            call = self._resolve(i, action)
            self._steps[i] += 1
            if call is None:
                invalid[i] = True
                cap = self._max_steps[i]
                truncated[i] = cap is not None and self._steps[i] >= cap
                continue
            batch.append((str(self.episode_ids[i]), call))
            stepped.append(i)
        if batch:
            for i, entry in zip(stepped, self.client.step_batch(batch, admissible=True)):
                if isinstance(entry, StepError):
                    raise entry.error
                self._take(i, entry)
                rewards[i] = float(entry.reward or 0.0)
                terminated[i], truncated[i] = entry.terminated, entry.truncated
        self._autoreset = terminated | truncated
        return tuple(self._texts), rewards, terminated, truncated, self._batched(list(range(self.num_envs)), invalid)

    def close_extras(self, **kwargs: Any) -> None:
        self.client.close()

    # ---- helpers
    def _reset_one(self, i: int, options: dict[str, Any] | None) -> None:
        opts = dict(options or {})
        split = opts.get("split", self.split)
        current = self.episode_ids[i]
        if self.curriculum and not any(k in opts for k in ("family", "difficulty", "seed")):
            task: tuple[int | None, str | None, int | None] = (None, None, None)
        else:
            task = self.tasks.draw(self.np_random, opts)
        if current is None:  # a new session of this connection
            group = self.client.reset(*task, admissible=True, split=split, group=1)
            result = group.episodes[0]
        else:  # the same session, its next episode
            result = self.client.reset(*task, admissible=True, split=split, episode_id=current)
        self.episode_ids[i] = result.episode_id
        self._steps[i] = 0
        max_steps = result.metadata.get("max_steps")
        self._max_steps[i] = int(max_steps) if isinstance(max_steps, int) else None
        self._task[i] = {k: result.metadata[k] for k in _TASK_KEYS if k in result.metadata}
        self._take(i, result)

    def _resolve(self, i: int, action: ActionLike) -> dict[str, Any] | None:
        if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
            listed = self._infos[i].get("admissible_actions") or []
            index = int(action)
            return dict(listed[index]) if 0 <= index < len(listed) else None
        return action_of(action)

    def _take(self, i: int, result: StepResult) -> None:
        self._texts[i] = observation_text(result.observation)
        info = {**self._task[i], **{k: v for k, v in result.metadata.items() if k not in _PER_CONNECTION}}
        admissible = result.admissible_actions or []
        info["admissible_actions"] = admissible
        info["action_mask"] = action_mask(admissible)
        self._infos[i] = info

    def _batched(self, envs: list[int], invalid: dict[int, bool]) -> dict[str, Any]:
        infos: dict[str, Any] = {}
        for i in envs:
            info = dict(self._infos[i])
            if invalid.get(i):
                info["invalid_action"] = True
            infos = self._add_info(infos, info, i)
        return infos
