"""``reset`` once for every client: the typed signature (a group reset answers a :class:`GroupReset`) and
the body; each client only sends it (``_send_reset``)."""

from __future__ import annotations

from typing import Any, overload

from ._wire import reset_body
from .results import GroupReset, StepResult


class SyncResets:
    def _send_reset(self, body: dict[str, Any]) -> StepResult | GroupReset:
        raise NotImplementedError

    @overload
    def reset(
        self,
        seed: int | None = None,
        family: str | None = None,
        difficulty: int | None = None,
        *,
        admissible: bool = False,
        group: None = None,
        split: str | None = None,
        episode_id: str | None = None,
    ) -> StepResult: ...
    @overload
    def reset(
        self,
        seed: int | None = None,
        family: str | None = None,
        difficulty: int | None = None,
        *,
        admissible: bool = False,
        group: int,
        split: str | None = None,
        episode_id: str | None = None,
    ) -> GroupReset: ...
    def reset(
        self,
        seed: int | None = None,
        family: str | None = None,
        difficulty: int | None = None,
        *,
        admissible: bool = False,
        group: int | None = None,
        split: str | None = None,
        episode_id: str | None = None,
    ) -> StepResult | GroupReset:
        """Starts an episode (``group=N``: N sessions on the identical task). Unsent keys come from the
        seed (same request, same episode) or, on a ``--curriculum`` server without a seed, from the
        curriculum. ``admissible=True`` asks for ``metadata.admissible_actions``; ``split="heldout"``
        for a held-out task; ``episode_id`` names the episode (or restarts that session)."""
        return self._send_reset(
            reset_body(
                seed=seed,
                family=family,
                difficulty=difficulty,
                admissible=admissible,
                group=group,
                split=split,
                episode_id=episode_id,
            )
        )


class AsyncResets:
    async def _send_reset(self, body: dict[str, Any]) -> StepResult | GroupReset:
        raise NotImplementedError

    @overload
    async def reset(
        self,
        seed: int | None = None,
        family: str | None = None,
        difficulty: int | None = None,
        *,
        admissible: bool = False,
        group: None = None,
        split: str | None = None,
        episode_id: str | None = None,
    ) -> StepResult: ...
    @overload
    async def reset(
        self,
        seed: int | None = None,
        family: str | None = None,
        difficulty: int | None = None,
        *,
        admissible: bool = False,
        group: int,
        split: str | None = None,
        episode_id: str | None = None,
    ) -> GroupReset: ...
    async def reset(
        self,
        seed: int | None = None,
        family: str | None = None,
        difficulty: int | None = None,
        *,
        admissible: bool = False,
        group: int | None = None,
        split: str | None = None,
        episode_id: str | None = None,
    ) -> StepResult | GroupReset:
        """The sync client's ``reset``, awaited."""
        return await self._send_reset(
            reset_body(
                seed=seed,
                family=family,
                difficulty=difficulty,
                admissible=admissible,
                group=group,
                split=split,
                episode_id=episode_id,
            )
        )
