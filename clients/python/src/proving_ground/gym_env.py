"""A Gymnasium env over a ``proving serve`` server: ``gymnasium.make("proving/device-support-v1", base_url=...)``.

- Observation: the world's observation as JSON text (``spaces.Text``, printable ASCII: ``ensure_ascii``).
- Action: an index into the admissible actions (``Discrete(64)``; ``info["action_mask"]`` marks the
  valid ones), or a tool call as JSON text / a mapping ``{"tool", "args"}``. An index past the list is
  not sent: the step answers the same observation, reward 0 and ``info["invalid_action"] = True``,
  and counts toward the server's step cap (``max_steps``) so a policy cannot loop forever.
- ``reset(seed=...)`` seeds the env's ``np_random``, which draws the family, difficulty and task seed;
  the server derives the task from them, so the same seed is the same episode on any server of the world.
  ``options`` may fix ``family``, ``difficulty``, ``seed`` (the task's) or ``split``.
- ``curriculum=True``: a reset sends no task; the server (``proving serve --curriculum``) draws it.
- ``info``: the server's metadata less the per-connection ids (``episode_id``, ``request_id``), the
  reset's task keys (``task_id``, ``family``, ``difficulty``, ``seed``...) on every step, plus
  ``admissible_actions`` and ``action_mask``; ``verdict`` on the step that ends the episode. The
  episode id is ``env.unwrapped.episode_id``.
"""

from __future__ import annotations

import json
import string
from collections.abc import Mapping, Sequence
from typing import Any, Literal, Union

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ._wire import action_of
from .http_client import Client
from .results import Action, StepResult
from .worlds import BUILTIN_WORLDS, gym_id
from .ws_client import WsClient

__all__ = ["MAX_ACTIONS", "ProvingEnv", "TaskDraw", "action_mask", "observation_text", "register_envs"]

#: The most admissible actions a server lists (the size of the action space).
MAX_ACTIONS = 64
#: Characters of an observation's text: printable ASCII (the JSON is written with ``ensure_ascii``).
CHARSET = string.printable
#: Keys of the server's metadata that name the connection, not the episode (left out of ``info``).
_PER_CONNECTION = ("episode_id", "request_id")
#: Keys of the reset's metadata that name the task: every step's ``info`` carries them.
_TASK_KEYS = ("task_id", "family", "difficulty", "seed", "world", "environment", "max_steps", "curriculum")

ActionLike = Union[int, np.integer, str, Mapping[str, Any]]
Transport = Literal["ws", "http"]


def observation_text(observation: Mapping[str, Any]) -> str:
    """The world's observation as the env's text: JSON, keys sorted, ASCII only."""
    return json.dumps(observation, ensure_ascii=True, sort_keys=True)


def action_mask(admissible: Sequence[Action] | None) -> np.ndarray:
    mask = np.zeros(MAX_ACTIONS, dtype=np.int8)
    mask[: min(len(admissible or []), MAX_ACTIONS)] = 1
    return mask


class TaskDraw:
    """The tasks an env draws: the served world's families (or those chosen) and their difficulties."""

    def __init__(
        self,
        meta: Mapping[str, Any],
        *,
        world: str | None = None,
        families: Sequence[str] | None = None,
        difficulties: Sequence[int] | None = None,
    ) -> None:
        served = str(meta.get("world"))
        if world is not None and served != world:
            raise ValueError(f"the server serves {served}, not {world}")
        self.world = served
        self.tools: list[dict[str, Any]] = list(meta.get("tools") or [])
        declared = {str(f["name"]): [int(d) for d in f.get("difficulties") or [1]] for f in meta.get("families") or []}
        chosen = list(families) if families is not None else list(declared)
        unknown = [f for f in chosen if f not in declared]
        if unknown or not chosen:
            raise ValueError(f"unknown families for {served}: {unknown or '(none chosen)'}; it has {list(declared)}")
        self.families = chosen
        self.difficulties = {
            f: [d for d in declared[f] if difficulties is None or d in difficulties] or declared[f][:1] for f in chosen
        }

    def draw(self, rng: np.random.Generator, fixed: Mapping[str, Any] | None = None) -> tuple[int, str, int]:
        """``(task seed, family, difficulty)`` from ``rng``, unless ``fixed`` names them."""
        opts = fixed or {}
        family = str(opts.get("family") or self.families[int(rng.integers(len(self.families)))])
        levels = self.difficulties.get(family) or [1]
        difficulty = int(opts.get("difficulty") or levels[int(rng.integers(len(levels)))])
        task_seed = int(opts["seed"]) if "seed" in opts else int(rng.integers(0, 2**31 - 1))
        return task_seed, family, difficulty


class ProvingEnv(gym.Env[str, ActionLike]):
    """One episode at a time of one served world (see the module's docstring)."""

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000",
        world: str | None = None,
        *,
        families: Sequence[str] | None = None,
        difficulties: Sequence[int] | None = None,
        transport: Transport = "ws",
        token: str | None = None,
        curriculum: bool = False,
        split: str | None = None,
        max_observation_chars: int = 1 << 20,
        render_mode: str | None = None,
        timeout: float = 60.0,
    ) -> None:
        self.render_mode = render_mode
        self.client: WsClient | Client = (
            WsClient(base_url, token=token, timeout=timeout)
            if transport == "ws"
            else Client(base_url, token=token, timeout=timeout)
        )
        try:
            self.tasks = TaskDraw(self.client.metadata(), world=world, families=families, difficulties=difficulties)
        except ValueError:
            self.client.close()
            raise
        self.world = self.tasks.world
        self.tools = self.tasks.tools
        self.curriculum = curriculum
        self.split = split
        self.observation_space = spaces.Text(max_length=max_observation_chars, charset=CHARSET)
        self.action_space = spaces.Discrete(MAX_ACTIONS)
        self.episode_id: str | None = None
        self.last: StepResult | None = None
        self._text = ""
        self._info: dict[str, Any] = {}
        self._task: dict[str, Any] = {}
        self._steps = 0
        self._max_steps: int | None = None
        self._closed = False

    # ---- the Gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        opts = dict(options or {})
        split = opts.get("split", self.split)
        if self.curriculum and not any(k in opts for k in ("family", "difficulty", "seed")):
            result = self.client.reset(admissible=True, split=split)
        else:
            task_seed, family, difficulty = self.tasks.draw(self.np_random, opts)
            result = self.client.reset(task_seed, family, difficulty, admissible=True, split=split)
        self._steps = 0
        max_steps = result.metadata.get("max_steps")
        self._max_steps = int(max_steps) if isinstance(max_steps, int) else None
        self.episode_id = result.episode_id
        self._task = {k: result.metadata[k] for k in _TASK_KEYS if k in result.metadata}
        return self._take(result), dict(self._info)

    def step(self, action: ActionLike) -> tuple[str, float, bool, bool, dict[str, Any]]:
        call = self._resolve(action)
        self._steps += 1
        if call is None:
            truncated = self._max_steps is not None and self._steps >= self._max_steps
            return self._text, 0.0, False, truncated, {**self._info, "invalid_action": True}
        result = self.client.step(call, admissible=True)
        obs = self._take(result)
        return obs, float(result.reward or 0.0), result.terminated, result.truncated, dict(self._info)

    def render(self) -> str | None:
        return self._text if self.render_mode == "ansi" else None

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.client.close()
        super().close()

    # ---- helpers
    @property
    def admissible_actions(self) -> list[Action]:
        return list(self._info.get("admissible_actions") or [])

    def _resolve(self, action: ActionLike) -> Action | None:
        """The tool call an action names; ``None`` for an index that names no admissible action."""
        if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
            listed = self.admissible_actions
            index = int(action)
            return dict(listed[index]) if 0 <= index < len(listed) else None
        if isinstance(action, np.ndarray) and action.shape == ():
            return self._resolve(int(action))
        return action_of(action)

    def _take(self, result: StepResult) -> str:
        self.last = result
        self._text = observation_text(result.observation)
        info = {**self._task, **{k: v for k, v in result.metadata.items() if k not in _PER_CONNECTION}}
        admissible = result.admissible_actions or []
        info["admissible_actions"] = admissible
        info["action_mask"] = action_mask(admissible)
        self._info = info
        return self._text


def register_envs() -> list[str]:
    """Registers ``proving/<world>-v<N>`` for every built-in world (idempotent); returns the ids.

    ``gymnasium.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point", base_url=...)`` makes
    the batched :class:`~proving_ground.vector_env.ProvingVectorEnv`."""
    ids = []
    for world in BUILTIN_WORLDS:
        env_id = gym_id(world)
        ids.append(env_id)
        if env_id not in gym.registry:
            gym.register(
                id=env_id,
                entry_point="proving_ground.gym_env:ProvingEnv",
                vector_entry_point="proving_ground.vector_env:ProvingVectorEnv",
                kwargs={"world": world},
            )
    return ids


register_envs()
