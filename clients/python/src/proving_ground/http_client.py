"""HTTP clients of ``proving serve``: :class:`Client` (sync) and :class:`AsyncClient` (asyncio), over httpx.

One client holds one connection pool and any number of episodes (each HTTP episode has its own
``episode_id``); ``episode_id`` is the current one (the last reset's), used when a call names none.
``close()`` ends every episode the client opened, then the pool.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import TracebackType
from typing import Any

import httpx

from ._resets import AsyncResets, SyncResets
from ._wire import BatchStep, batch_body, http_base, step_body
from .errors import ConnectionFailedError, ProvingServerError, SessionError, error_from_reply
from .results import (
    BatchEntry,
    Curriculum,
    GroupReset,
    GroupResult,
    StepResult,
    batch_entry_from_wire,
    episodes_from_wire,
)

__all__ = ["AsyncClient", "Client"]

def _headers(token: str | None) -> dict[str, str]:
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return headers

def _reply(response: httpx.Response) -> Any:
    try:
        body = response.json()
    except ValueError:
        body = {"message": response.text[:200]}
    if response.status_code >= 400:
        raise error_from_reply(body, response.status_code)
    return body

def _connection_failed(err: Exception, base_url: str) -> ConnectionFailedError:
    return ConnectionFailedError("CONNECTION_FAILED", f"{base_url}: {type(err).__name__}: {err}")

class _Episodes:
    """The episodes a client opened and the current one (shared by the sync and async clients)."""

    def __init__(self) -> None:
        self.episode_id: str | None = None
        self._open: dict[str, None] = {}

    def _opened(self, results: Sequence[StepResult], *, current: bool) -> None:
        for r in results:
            if r.episode_id:
                self._open[r.episode_id] = None
        if current and results and results[0].episode_id:
            self.episode_id = results[0].episode_id

    def _episode(self, episode_id: str | None) -> str:
        chosen = episode_id or self.episode_id
        if chosen is None:
            raise SessionError("SESSION_ERROR", "no episode: reset first", status=409)
        return chosen

    def _after_reset(self, reply: Any) -> StepResult | GroupReset:
        if isinstance(reply, dict) and "group_id" in reply:
            group = GroupReset.from_wire(reply)
            self._opened(group.episodes, current=True)
            return group
        result = StepResult.from_wire(reply)
        self._opened([result], current=True)
        return result

class Client(_Episodes, SyncResets):
    """A synchronous HTTP client: ``with Client("http://127.0.0.1:8000") as env: env.reset(seed=7)``."""

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000",
        *,
        token: str | None = None,
        timeout: float = 60.0,
    ) -> None:
        super().__init__()
        self.base_url = http_base(base_url)
        self._http = httpx.Client(base_url=self.base_url, headers=_headers(token), timeout=timeout)

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _request(self, method: str, path: str, *, body: Any = None, params: dict[str, str] | None = None) -> Any:
        try:
            response = self._http.request(method, path, json=body, params=params)
        except httpx.HTTPError as err:
            raise _connection_failed(err, self.base_url) from err
        return _reply(response)

    # ---- what the server is
    def health(self) -> dict[str, Any]:
        return dict(self._request("GET", "/health"))

    def metadata(self) -> dict[str, Any]:
        """``/metadata``: the world, its tools (name, description, input_schema), families, capabilities, limits."""
        return dict(self._request("GET", "/metadata"))

    def schema(self) -> dict[str, Any]:
        """``/schema``: JSON Schemas of an action, an observation and ``/state``."""
        return dict(self._request("GET", "/schema"))

    def tools(self) -> list[dict[str, Any]]:
        return list(self.metadata().get("tools") or [])

    def curriculum(self) -> Curriculum:
        """``/curriculum`` of a server started with ``--curriculum`` (``NotFoundError`` otherwise)."""
        return Curriculum.from_wire(self._request("GET", "/curriculum"))

    # ---- episodes
    def _send_reset(self, body: dict[str, Any]) -> StepResult | GroupReset:
        return self._after_reset(self._request("POST", "/reset", body=body))

    def step(
        self,
        action: Any,
        *,
        episode_id: str | None = None,
        admissible: bool = False,
        timeout_s: float | None = None,
        request_id: str | None = None,
    ) -> StepResult:
        """One tool call (a mapping ``{"tool", "args"}`` or its JSON text) in the current (or named) episode."""
        body = step_body(
            action,
            episode_id=self._episode(episode_id),
            admissible=admissible,
            timeout_s=timeout_s,
            request_id=request_id,
        )
        return StepResult.from_wire(self._request("POST", "/step", body=body))

    def step_batch(self, steps: Sequence[BatchStep], *, admissible: bool = False) -> list[BatchEntry]:
        """Many sessions' steps in one request; answers in request order, each failure its own :class:`StepError`."""
        reply = self._request("POST", "/step_batch", body=batch_body(steps, admissible=admissible))
        return [batch_entry_from_wire(e) for e in reply.get("results") or [] if isinstance(e, dict)]

    def fork(self, n: int = 1, *, episode_id: str | None = None) -> list[StepResult]:
        """n new sessions continuing from the episode's current state (each with its own ``episode_id``)."""
        reply = self._request("POST", "/fork", body={"episode_id": self._episode(episode_id), "n": int(n)})
        results = episodes_from_wire(reply)
        self._opened(results, current=False)
        return results

    def group(self, group_id: str) -> GroupResult:
        return GroupResult.from_wire(self._request("GET", "/group", params={"group_id": group_id}))

    def state(self, episode_id: str | None = None) -> dict[str, Any]:
        """``/state``: step count, virtual time, and the ``verdict`` once the episode has ended."""
        return dict(self._request("GET", "/state", params={"episode_id": self._episode(episode_id)}))

    def close_episode(self, episode_id: str | None = None) -> None:
        """Frees one episode's session on the server."""
        chosen = self._episode(episode_id)
        self._open.pop(chosen, None)
        if chosen == self.episode_id:
            self.episode_id = None
        self._request("POST", "/close", body={"episode_id": chosen})

    def close(self) -> None:
        """Ends every episode this client opened (best effort), then the connection pool. Idempotent."""
        for episode_id in list(self._open):
            try:
                self.close_episode(episode_id)
            except ProvingServerError:
                pass
        self._http.close()

class AsyncClient(_Episodes, AsyncResets):
    """The asyncio HTTP client: ``async with AsyncClient(url) as env: await env.reset(seed=7)``."""

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000",
        *,
        token: str | None = None,
        timeout: float = 60.0,
    ) -> None:
        super().__init__()
        self.base_url = http_base(base_url)
        self._http = httpx.AsyncClient(base_url=self.base_url, headers=_headers(token), timeout=timeout)

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def _request(
        self, method: str, path: str, *, body: Any = None, params: dict[str, str] | None = None
    ) -> Any:
        try:
            response = await self._http.request(method, path, json=body, params=params)
        except httpx.HTTPError as err:
            raise _connection_failed(err, self.base_url) from err
        return _reply(response)

    async def health(self) -> dict[str, Any]:
        return dict(await self._request("GET", "/health"))

    async def metadata(self) -> dict[str, Any]:
        return dict(await self._request("GET", "/metadata"))

    async def schema(self) -> dict[str, Any]:
        return dict(await self._request("GET", "/schema"))

    async def tools(self) -> list[dict[str, Any]]:
        return list((await self.metadata()).get("tools") or [])

    async def curriculum(self) -> Curriculum:
        return Curriculum.from_wire(await self._request("GET", "/curriculum"))

    async def _send_reset(self, body: dict[str, Any]) -> StepResult | GroupReset:
        return self._after_reset(await self._request("POST", "/reset", body=body))

    async def step(
        self,
        action: Any,
        *,
        episode_id: str | None = None,
        admissible: bool = False,
        timeout_s: float | None = None,
        request_id: str | None = None,
    ) -> StepResult:
        body = step_body(
            action,
            episode_id=self._episode(episode_id),
            admissible=admissible,
            timeout_s=timeout_s,
            request_id=request_id,
        )
        return StepResult.from_wire(await self._request("POST", "/step", body=body))

    async def step_batch(self, steps: Sequence[BatchStep], *, admissible: bool = False) -> list[BatchEntry]:
        reply = await self._request("POST", "/step_batch", body=batch_body(steps, admissible=admissible))
        return [batch_entry_from_wire(e) for e in reply.get("results") or [] if isinstance(e, dict)]

    async def fork(self, n: int = 1, *, episode_id: str | None = None) -> list[StepResult]:
        reply = await self._request("POST", "/fork", body={"episode_id": self._episode(episode_id), "n": int(n)})
        results = episodes_from_wire(reply)
        self._opened(results, current=False)
        return results

    async def group(self, group_id: str) -> GroupResult:
        return GroupResult.from_wire(await self._request("GET", "/group", params={"group_id": group_id}))

    async def state(self, episode_id: str | None = None) -> dict[str, Any]:
        return dict(await self._request("GET", "/state", params={"episode_id": self._episode(episode_id)}))

    async def close_episode(self, episode_id: str | None = None) -> None:
        chosen = self._episode(episode_id)
        self._open.pop(chosen, None)
        if chosen == self.episode_id:
            self.episode_id = None
        await self._request("POST", "/close", body={"episode_id": chosen})

    async def close(self) -> None:
        for episode_id in list(self._open):
            try:
                await self.close_episode(episode_id)
            except ProvingServerError:
                pass
        await self._http.aclose()
