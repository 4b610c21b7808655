"""WebSocket clients of ``proving serve`` (``/ws``): :class:`WsClient` (sync) and :class:`AsyncWsClient`.

One connection is one session; a group reset or a fork opens more sessions on the same connection
(each with its own ``episode_id``), and ``step_batch`` steps many of them in one message. Replies
keep request order. ``metadata``/``schema``/``curriculum`` are read over HTTP from the same server.
"""

from __future__ import annotations

import asyncio
import json
from contextlib import ExitStack
from collections.abc import Sequence
from types import TracebackType
from typing import Any

from websockets.asyncio.client import ClientConnection as AsyncConnection
from websockets.asyncio.client import connect as async_connect
from websockets.exceptions import WebSocketException
from websockets.sync.client import ClientConnection, connect

from ._resets import AsyncResets, SyncResets
from ._wire import BatchStep, batch_body, http_base, ws_reply, ws_step_data, ws_url
from .errors import ConnectionFailedError, SessionError
from .http_client import AsyncClient, Client
from .results import (
    BatchEntry,
    Curriculum,
    GroupReset,
    GroupResult,
    StepResult,
    batch_entry_from_wire,
    episodes_from_wire,
)

__all__ = ["AsyncWsClient", "WsClient"]


def _auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def _dropped(err: Exception, url: str) -> ConnectionFailedError:
    return ConnectionFailedError("CONNECTION_FAILED", f"{url}: {type(err).__name__}: {err}")


class _WsEpisodes:
    """The connection's own session (``primary``), and the episodes it opened; shared by sync and async."""

    def __init__(self, base_url: str) -> None:
        self.base_url = http_base(base_url)
        self.url = ws_url(base_url)
        self.episode_id: str | None = None
        self.primary: str | None = None
        #: The episodes of this connection's groups and forks (a reset naming one restarts that session).
        self.members: set[str] = set()

    def _episode(self, episode_id: str | None) -> str:
        chosen = episode_id or self.episode_id
        if chosen is None:
            raise SessionError("SESSION_ERROR", "no episode: reset first", status=409)
        return chosen

    def _after_reset(self, kind: str, data: Any) -> StepResult | GroupReset:
        if kind == "reset_group" or (isinstance(data, dict) and "group_id" in data):
            group = GroupReset.from_wire(data)
            self.members.update(e.episode_id for e in group.episodes if e.episode_id)
            self.episode_id = group.episodes[0].episode_id if group.episodes else None
            return group
        result = StepResult.from_wire(data)
        self.episode_id = result.episode_id
        if result.episode_id not in self.members:
            self.primary = result.episode_id
        return result

    def _forked(self, results: list[StepResult]) -> list[StepResult]:
        self.members.update(r.episode_id for r in results if r.episode_id)
        return results

    def _own(self, episode_id: str | None) -> None:
        """A WS ``state`` reads the connection's own session only: refuse to answer for another one."""
        if episode_id is not None and episode_id != self.primary:
            raise SessionError(
                "SESSION_ERROR",
                f"state: {episode_id} is not this connection's own session (its step results carry its state)",
                status=409,
            )

    @staticmethod
    def _single(entries: list[BatchEntry]) -> StepResult:
        entry = entries[0]
        if isinstance(entry, StepResult):
            return entry
        raise entry.error


class WsClient(_WsEpisodes, SyncResets):
    """A synchronous WebSocket client (websockets' sync API): ``with WsClient(url) as env: env.reset(seed=7)``."""

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000",
        *,
        token: str | None = None,
        timeout: float = 60.0,
    ) -> None:
        super().__init__(base_url)
        self.timeout = timeout
        self._token = token
        self._ws: ClientConnection | None = None
        self._stack = ExitStack()
        self._http: Client | None = None

    def __enter__(self) -> WsClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _connection(self) -> ClientConnection:
        if self._ws is None:
            try:
                self._ws = self._stack.enter_context(
                    connect(self.url, additional_headers=_auth(self._token), open_timeout=self.timeout, max_size=None)
                )
            except (OSError, WebSocketException, TimeoutError) as err:
                raise _dropped(err, self.url) from err
        return self._ws

    def _send(self, kind: str, data: Any = None) -> tuple[str, Any]:
        ws = self._connection()
        message: dict[str, Any] = {"type": kind} if data is None else {"type": kind, "data": data}
        try:
            ws.send(json.dumps(message))
            text = ws.recv(timeout=self.timeout)
        except (OSError, WebSocketException, TimeoutError) as err:
            self._ws = None
            self._stack.close()
            raise _dropped(err, self.url) from err
        return ws_reply(json.loads(text))

    def _rest(self) -> Client:
        if self._http is None:
            self._http = Client(self.base_url, token=self._token, timeout=self.timeout)
        return self._http

    def health(self) -> dict[str, Any]:
        return self._rest().health()

    def metadata(self) -> dict[str, Any]:
        return self._rest().metadata()

    def schema(self) -> dict[str, Any]:
        return self._rest().schema()

    def tools(self) -> list[dict[str, Any]]:
        return self._rest().tools()

    def curriculum(self) -> Curriculum:
        return self._rest().curriculum()

    def _send_reset(self, body: dict[str, Any]) -> StepResult | GroupReset:
        return self._after_reset(*self._send("reset", body))

    def step(self, action: Any, *, episode_id: str | None = None, admissible: bool = False) -> StepResult:
        """One tool call; the connection's own session takes a ``step`` message, another one a batch of one."""
        chosen = self._episode(episode_id)
        if chosen != self.primary:
            return self._single(self.step_batch([(chosen, action)], admissible=admissible))
        _, data = self._send("step", ws_step_data(action, admissible=admissible))
        return StepResult.from_wire(data)

    def step_batch(self, steps: Sequence[BatchStep], *, admissible: bool = False) -> list[BatchEntry]:
        _, data = self._send("step_batch", batch_body(steps, admissible=admissible))
        return [batch_entry_from_wire(e) for e in (data or {}).get("results") or [] if isinstance(e, dict)]

    def fork(self, n: int = 1, *, episode_id: str | None = None) -> list[StepResult]:
        _, data = self._send("fork", {"episode_id": self._episode(episode_id), "n": int(n)})
        return self._forked(episodes_from_wire(data or {}))

    def group(self, group_id: str) -> GroupResult:
        _, data = self._send("group", {"group_id": group_id})
        return GroupResult.from_wire(data or {})

    def state(self, episode_id: str | None = None) -> dict[str, Any]:
        """The connection's own session's state (a group member's or fork's is in its step results)."""
        self._own(episode_id)
        _, data = self._send("state")
        return dict(data or {})

    def close(self) -> None:
        """Ends the connection's sessions (a ``close`` message, then the socket), and the HTTP pool. Idempotent."""
        ws, self._ws = self._ws, None
        if ws is not None:
            try:
                ws.send(json.dumps({"type": "close"}))
            except (OSError, WebSocketException):
                pass
        self._stack.close()
        if self._http is not None:
            self._http.close()
            self._http = None
        self.episode_id = self.primary = None
        self.members.clear()


class AsyncWsClient(_WsEpisodes, AsyncResets):
    """The asyncio WebSocket client; concurrent calls on one client are sent one at a time (replies keep order)."""

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000",
        *,
        token: str | None = None,
        timeout: float = 60.0,
    ) -> None:
        super().__init__(base_url)
        self.timeout = timeout
        self._token = token
        self._ws: AsyncConnection | None = None
        self._http: AsyncClient | None = None
        self._lock = asyncio.Lock()

    async def __aenter__(self) -> AsyncWsClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def _send(self, kind: str, data: Any = None) -> tuple[str, Any]:
        message: dict[str, Any] = {"type": kind} if data is None else {"type": kind, "data": data}
        async with self._lock:
            try:
                if self._ws is None:
                    self._ws = await async_connect(
                        self.url, additional_headers=_auth(self._token), open_timeout=self.timeout, max_size=None
                    )
                await self._ws.send(json.dumps(message))
                text = await asyncio.wait_for(self._ws.recv(), self.timeout)
            except (OSError, WebSocketException, TimeoutError) as err:
                self._ws = None
                raise _dropped(err, self.url) from err
        return ws_reply(json.loads(text))

    def _rest(self) -> AsyncClient:
        if self._http is None:
            self._http = AsyncClient(self.base_url, token=self._token, timeout=self.timeout)
        return self._http

    async def health(self) -> dict[str, Any]:
        return await self._rest().health()

    async def metadata(self) -> dict[str, Any]:
        return await self._rest().metadata()

    async def schema(self) -> dict[str, Any]:
        return await self._rest().schema()

    async def tools(self) -> list[dict[str, Any]]:
        return await self._rest().tools()

    async def curriculum(self) -> Curriculum:
        return await self._rest().curriculum()

    async def _send_reset(self, body: dict[str, Any]) -> StepResult | GroupReset:
        return self._after_reset(*(await self._send("reset", body)))

    async def step(self, action: Any, *, episode_id: str | None = None, admissible: bool = False) -> StepResult:
        chosen = self._episode(episode_id)
        if chosen != self.primary:
            return self._single(await self.step_batch([(chosen, action)], admissible=admissible))
        _, data = await self._send("step", ws_step_data(action, admissible=admissible))
        return StepResult.from_wire(data)

    async def step_batch(self, steps: Sequence[BatchStep], *, admissible: bool = False) -> list[BatchEntry]:
        _, data = await self._send("step_batch", batch_body(steps, admissible=admissible))
        return [batch_entry_from_wire(e) for e in (data or {}).get("results") or [] if isinstance(e, dict)]

    async def fork(self, n: int = 1, *, episode_id: str | None = None) -> list[StepResult]:
        _, data = await self._send("fork", {"episode_id": self._episode(episode_id), "n": int(n)})
        return self._forked(episodes_from_wire(data or {}))

    async def group(self, group_id: str) -> GroupResult:
        _, data = await self._send("group", {"group_id": group_id})
        return GroupResult.from_wire(data or {})

    async def state(self, episode_id: str | None = None) -> dict[str, Any]:
        self._own(episode_id)
        _, data = await self._send("state")
        return dict(data or {})

    async def close(self) -> None:
        ws, self._ws = self._ws, None
        if ws is not None:
            try:
                await ws.send(json.dumps({"type": "close"}))
            except (OSError, WebSocketException):
                pass
            await ws.close()
        if self._http is not None:
            await self._http.close()
            self._http = None
        self.episode_id = self.primary = None
        self.members.clear()


