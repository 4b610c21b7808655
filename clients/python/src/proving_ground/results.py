"""What a server answers, as typed values: a step's full result, a batch entry's error, groups, the curriculum."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union

from .errors import ProvingServerError, error_from_reply

__all__ = [
    "Action",
    "BatchEntry",
    "Curriculum",
    "GroupMember",
    "GroupReset",
    "GroupResult",
    "StepError",
    "StepResult",
]

#: A tool call: ``{"tool": name, "args": {...}}`` (or OpenEnv's ``{"type": "call_tool", ...}`` shapes).
Action = dict[str, Any]


@dataclass(frozen=True)
class StepResult:
    """One reply of ``reset``/``step``: the world's observation, unchanged, and everything else the server said.

    ``metadata`` is the server's, whole: ``episode_id``, ``step_count``, ``now`` (virtual seconds),
    after a seeded reset ``task_id``/``family``/``difficulty``/``seed``, ``verdict`` on the step that
    ends the episode, ``admissible_actions`` when asked for, ``curriculum`` for a curriculum-served task.
    """

    observation: dict[str, Any]
    reward: float | None
    done: bool
    terminated: bool
    truncated: bool
    metadata: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, reply: dict[str, Any]) -> StepResult:
        metadata = reply.get("metadata")
        meta: dict[str, Any] = dict(metadata) if isinstance(metadata, dict) else {}
        done = bool(reply.get("done", False))
        reward = reply.get("reward")
        observation = dict(reply["observation"]) if isinstance(reply.get("observation"), dict) else {}
        if observation.get("kind") == "task":
            # the copy of the instruction and context put there for OpenEnv's MCPToolClient, not the world's
            observation.pop("metadata", None)
        return cls(
            observation=observation,
            reward=None if reward is None else float(reward),
            done=done,
            terminated=bool(meta.get("terminated", False)),
            truncated=bool(meta.get("truncated", False)),
            metadata=meta,
        )

    @property
    def episode_id(self) -> str | None:
        value = self.metadata.get("episode_id")
        return value if isinstance(value, str) else None

    @property
    def task_id(self) -> str | None:
        value = self.metadata.get("task_id")
        return value if isinstance(value, str) else None

    @property
    def verdict(self) -> dict[str, Any] | None:
        """The verifier's verdict (``passed``, ``score``, ``violations``...), on the step that ended the episode."""
        value = self.metadata.get("verdict")
        return value if isinstance(value, dict) else None

    @property
    def passed(self) -> bool | None:
        verdict = self.verdict
        return None if verdict is None else bool(verdict.get("passed"))

    @property
    def admissible_actions(self) -> list[Action] | None:
        """The admissible tool calls (``admissible=True``), at most 64, in the server's order."""
        value = self.metadata.get("admissible_actions")
        return [dict(a) for a in value if isinstance(a, dict)] if isinstance(value, list) else None


@dataclass(frozen=True)
class StepError:
    """One batch entry that failed: its episode's own error, never the whole batch's."""

    episode_id: str
    error: ProvingServerError

    @classmethod
    def from_wire(cls, entry: dict[str, Any]) -> StepError:
        return cls(episode_id=str(entry.get("episode_id")), error=error_from_reply(entry.get("error")))


#: An entry of ``step_batch``'s answer, in request order.
BatchEntry = Union[StepResult, StepError]


@dataclass(frozen=True)
class GroupReset:
    """A group reset's answer: ``group_id`` and one reset result per member (the identical task)."""

    group_id: str
    episodes: list[StepResult]

    @property
    def episode_ids(self) -> list[str]:
        return [e.episode_id or "" for e in self.episodes]

    @classmethod
    def from_wire(cls, reply: dict[str, Any]) -> GroupReset:
        episodes = reply.get("episodes")
        return cls(
            group_id=str(reply.get("group_id")),
            episodes=[StepResult.from_wire(_with_episode_id(e)) for e in episodes or [] if isinstance(e, dict)],
        )


@dataclass(frozen=True)
class GroupMember:
    episode_id: str
    done: bool
    outcome: str | None
    reward: float | None


@dataclass(frozen=True)
class GroupResult:
    """``GET /group``: the members' outcomes, and whether they all passed or all failed (DAPO's filter)."""

    group_id: str
    task_id: str | None
    members: list[GroupMember]
    finished: bool
    all_passed: bool
    all_failed: bool
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_wire(cls, reply: dict[str, Any]) -> GroupResult:
        members = [
            GroupMember(
                episode_id=str(m.get("episode_id")),
                done=bool(m.get("done")),
                outcome=m.get("outcome") if isinstance(m.get("outcome"), str) else None,
                reward=None if m.get("reward") is None else float(m["reward"]),
            )
            for m in reply.get("members") or []
            if isinstance(m, dict)
        ]
        task_id = reply.get("task_id")
        return cls(
            group_id=str(reply.get("group_id")),
            task_id=task_id if isinstance(task_id, str) else None,
            members=members,
            finished=bool(reply.get("finished")),
            all_passed=bool(reply.get("all_passed")),
            all_failed=bool(reply.get("all_failed")),
            raw=dict(reply),
        )


@dataclass(frozen=True)
class Curriculum:
    """``GET /curriculum``: the run's id, strategy, snapshot id, and the distribution episodes are drawn from."""

    id: str | None
    strategy: str | None
    snapshot_id: str | None
    episodes: int
    distribution: list[dict[str, Any]]
    groups: dict[str, int]
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_wire(cls, reply: dict[str, Any]) -> Curriculum:
        groups = reply.get("groups")
        return cls(
            id=reply.get("id") if isinstance(reply.get("id"), str) else None,
            strategy=reply.get("strategy") if isinstance(reply.get("strategy"), str) else None,
            snapshot_id=reply.get("snapshot_id") if isinstance(reply.get("snapshot_id"), str) else None,
            episodes=int(reply.get("episodes") or 0),
            distribution=[d for d in reply.get("distribution") or [] if isinstance(d, dict)],
            groups={str(k): int(v) for k, v in groups.items()} if isinstance(groups, dict) else {},
            raw=dict(reply),
        )


def _with_episode_id(entry: dict[str, Any]) -> dict[str, Any]:
    """A group/fork/batch entry names its episode beside the envelope; the result carries it in metadata."""
    episode_id = entry.get("episode_id")
    metadata = entry.get("metadata")
    meta = dict(metadata) if isinstance(metadata, dict) else {}
    if isinstance(episode_id, str):
        meta.setdefault("episode_id", episode_id)
    return {**entry, "metadata": meta}


def batch_entry_from_wire(entry: dict[str, Any]) -> BatchEntry:
    if "error" in entry:
        return StepError.from_wire(entry)
    return StepResult.from_wire(_with_episode_id(entry))


def episodes_from_wire(reply: dict[str, Any]) -> list[StepResult]:
    return [StepResult.from_wire(_with_episode_id(e)) for e in reply.get("episodes") or [] if isinstance(e, dict)]
