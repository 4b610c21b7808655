"""The wire shapes of ``proving serve``, in one place: request bodies, URLs, and reading replies.

Every client (sync/async, HTTP/WebSocket) builds its requests and reads its replies here, so the
four stay one protocol. See docs/serving.md and docs/python.md for the shapes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Union
from urllib.parse import urlsplit, urlunsplit

from .errors import ValidationError, error_from_reply
from .results import Action

__all__ = [
    "BatchStep",
    "action_of",
    "batch_body",
    "http_base",
    "reset_body",
    "step_body",
    "ws_url",
]

#: One entry of ``step_batch``: ``(episode_id, action)`` or ``{"episode_id", "action", "admissible"?}``.
BatchStep = Union[tuple[str, Any], Mapping[str, Any]]

#: Most sessions in one group, most steps in one batch (the server's limits).
MAX_GROUP = 64
MAX_BATCH = 256


def http_base(url: str) -> str:
    """``http(s)://host:port`` from any of the server's addresses (``ws://.../ws`` included)."""
    parts = urlsplit(url.rstrip("/"))
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme or "http")
    path = parts.path[: -len("/ws")] if parts.path.endswith("/ws") else parts.path
    return urlunsplit((scheme, parts.netloc, path.rstrip("/"), "", ""))


def ws_url(url: str, token: str | None = None) -> str:
    """The server's WebSocket endpoint (``ws(s)://host:port/ws``)."""
    parts = urlsplit(http_base(url))
    scheme = "wss" if parts.scheme == "https" else "ws"
    return urlunsplit((scheme, parts.netloc, parts.path + "/ws", "", ""))


def action_of(action: Any) -> Action:
    """A tool call as the server takes it: a mapping ``{"tool", "args"}``, or its JSON text."""
    if isinstance(action, str):
        try:
            action = json.loads(action)
        except ValueError as err:
            raise ValidationError("VALIDATION_ERROR", f"action: not JSON ({err})", status=422) from None
    if not isinstance(action, Mapping):
        raise ValidationError(
            "VALIDATION_ERROR", 'action: expected {"tool": name, "args": {...}} or its JSON text', status=422
        )
    return dict(action)


def reset_body(
    *,
    seed: int | None = None,
    family: str | None = None,
    difficulty: int | None = None,
    admissible: bool = False,
    group: int | None = None,
    split: str | None = None,
    episode_id: str | None = None,
) -> dict[str, Any]:
    """A reset's body; what is not given is not sent (the server derives it from the seed, or the curriculum)."""
    body: dict[str, Any] = {}
    if seed is not None:
        body["seed"] = int(seed)
    if family is not None:
        body["family"] = family
    if difficulty is not None:
        body["difficulty"] = int(difficulty)
    if admissible:
        body["admissible"] = True
    if group is not None:
        if not 1 <= int(group) <= MAX_GROUP:
            raise ValidationError("VALIDATION_ERROR", f"group: 1..{MAX_GROUP} sessions", status=422)
        body["group"] = int(group)
    if split is not None:
        body["split"] = split
    if episode_id is not None:
        body["episode_id"] = episode_id
    return body


def step_body(
    action: Any,
    *,
    episode_id: str | None = None,
    admissible: bool = False,
    timeout_s: float | None = None,
    request_id: str | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {"action": action_of(action)}
    if episode_id is not None:
        body["episode_id"] = episode_id
    if admissible:
        body["admissible"] = True
    if timeout_s is not None:
        body["timeout_s"] = timeout_s
    if request_id is not None:
        body["request_id"] = request_id
    return body


def ws_step_data(action: Any, *, admissible: bool = False) -> dict[str, Any]:
    """A WS ``step`` message's data: the action itself (plus ``admissible``)."""
    data = action_of(action)
    return {**data, "admissible": True} if admissible else data


def batch_body(steps: Sequence[BatchStep], *, admissible: bool = False) -> dict[str, Any]:
    """``{"steps": [{"episode_id", "action", "admissible"?}, ...]}`` (at most 256)."""
    if len(steps) > MAX_BATCH:
        raise ValidationError("VALIDATION_ERROR", f"step_batch: at most {MAX_BATCH} steps", status=422)
    out: list[dict[str, Any]] = []
    for step in steps:
        if isinstance(step, Mapping):
            entry: dict[str, Any] = {"episode_id": str(step["episode_id"]), "action": action_of(step["action"])}
            if step.get("admissible", admissible):
                entry["admissible"] = True
        else:
            episode_id, action = step
            entry = {"episode_id": str(episode_id), "action": action_of(action)}
            if admissible:
                entry["admissible"] = True
        out.append(entry)
    return {"steps": out}


def ws_reply(message: Any) -> tuple[str, Any]:
    """A WS reply's ``(type, data)``; an ``error`` frame raises its coded exception."""
    if not isinstance(message, dict):
        raise error_from_reply({"code": "INVALID_JSON", "message": "a reply that is not a JSON object"}, 502)
    kind = str(message.get("type"))
    data = message.get("data")
    if kind == "error":
        raise error_from_reply(data)
    return kind, data
