"""A trainer loop of your own, with no model: a tabular policy over the admissible actions, trained from
the curriculum of ``proving serve --curriculum`` through the Gymnasium env.

The policy scores an action by (family, the previous action, the action), an action read as its
tool and the arguments that are not ids (a resolution, a wait's seconds): it picks among the
admissible actions (the env's ``action_mask``) by softmax over those scores, and after each episode
moves the scores of the choices it made toward the episode's verdict (1 passed, 0 failed; a Monte
Carlo update with a running baseline per family). Each reset leaves the task to the server, which draws it from its
curriculum and feeds the verdict back to it (stored with the server's ``--store``).

    npx proving serve --world device-support@1 --curriculum default --store cur.db --port 8000
    python clients/python/examples/tabular_trainer.py --url http://127.0.0.1:8000 --episodes 200

Prints one JSON line: the episodes played, the pass rate of the first and last quarter, and the
curriculum's snapshot (``GET /curriculum``) after training.
"""

from __future__ import annotations

import argparse
import json
import math
import re
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

import proving_ground
from proving_ground import Client, NotFoundError


_ID = re.compile(r"^[A-Z]+-\d+$|^key-\d+$")


def signature(action: dict[str, Any]) -> str:
    """An action as the table sees it: its tool and the arguments that are not ids or free text."""
    args = action.get("args") or {}
    kept = sorted(
        f"{k}={v}" for k, v in args.items() if isinstance(v, (int, float)) or (isinstance(v, str) and len(v) < 20 and not _ID.match(v))
    )
    return f"{action['tool']}({','.join(kept)})"


Key = tuple[str, str, str]


class TabularPolicy:
    """Preferences per (family, previous action, action); softmax over the admissible actions."""

    def __init__(self, lr: float = 1.0, temperature: float = 0.3, seed: int = 0) -> None:
        self.prefs: dict[Key, float] = defaultdict(float)
        self.baseline: dict[str, float] = defaultdict(float)
        self.lr, self.temperature = lr, temperature
        self.rng = np.random.default_rng(seed)

    def act(self, family: str, previous: str, admissible: Sequence[dict[str, Any]], mask: np.ndarray) -> int:
        valid = np.flatnonzero(mask)
        scores = np.array([self.prefs[(family, previous, signature(admissible[int(i)]))] for i in valid]) / self.temperature
        probs = np.exp(scores - scores.max())
        return int(self.rng.choice(valid, p=probs / probs.sum()))

    def update(self, family: str, choices: list[Key], passed: bool) -> None:
        advantage = float(passed) - self.baseline[family]
        self.baseline[family] += 0.05 * advantage
        for key in set(choices):
            self.prefs[key] += self.lr * advantage


def train(url: str, episodes: int, *, curriculum: bool = True, seed: int = 0) -> dict[str, Any]:
    env = gym.make(_gym_id(url), base_url=url, curriculum=curriculum)
    policy = TabularPolicy(seed=seed)
    results: list[bool] = []
    try:
        obs, info = env.reset(seed=seed)
        for _ in range(episodes):
            family = str(info.get("family", "?"))
            choices: list[Key] = []
            previous = "start"
            done = False
            while not done:
                listed = info["admissible_actions"]
                if not listed:  # nothing admissible: the episode cannot go on
                    break
                index = policy.act(family, previous, listed, info["action_mask"])
                choices.append((family, previous, signature(listed[index])))
                previous = signature(listed[index])
                obs, _, terminated, truncated, info = env.step(index)
                done = terminated or truncated
            passed = bool((info.get("verdict") or {}).get("passed"))
            policy.update(family, choices, passed)
            results.append(passed)
            obs, info = env.reset()
    finally:
        env.close()
    quarter = max(1, math.ceil(len(results) / 4))
    summary: dict[str, Any] = {
        "episodes": len(results),
        "pass_rate_first": sum(results[:quarter]) / quarter,
        "pass_rate_last": sum(results[-quarter:]) / quarter,
    }
    with Client(url) as client:
        try:
            snapshot = client.curriculum()
            summary["curriculum"] = {"snapshot_id": snapshot.snapshot_id, "episodes": snapshot.episodes}
        except NotFoundError:
            summary["curriculum"] = None
    return summary


def _gym_id(url: str) -> str:
    with Client(url) as client:
        return proving_ground.gym_id(str(client.metadata()["world"]))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-curriculum", action="store_true", help="choose tasks here (np_random), not on the server")
    args = parser.parse_args(argv)
    print(json.dumps(train(args.url, args.episodes, curriculum=not args.no_curriculum, seed=args.seed)))


if __name__ == "__main__":
    main()
