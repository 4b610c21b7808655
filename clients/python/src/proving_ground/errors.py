"""Coded exceptions mirroring the server's wire errors (``src/core/error-catalogue.ts``, ``WIRE_ERRORS``).

Every error a server answers carries a ``code`` a caller can branch on, a ``message``, the ``errors``
list (``[{type, loc, msg}]``) and an HTTP ``status``. The status decides the fault, as the server's
catalogue does: a 4xx is the caller's (:class:`CallerError`: fix the request), anything else is the
infrastructure's (:class:`InfrastructureError`: retry, or look at the server). A network failure is
an :class:`InfrastructureError` too, with the client-side code ``CONNECTION_FAILED``.
"""

from __future__ import annotations

from typing import Any, Literal

__all__ = [
    "WIRE_STATUS",
    "CallerError",
    "CapacityReachedError",
    "ConnectionFailedError",
    "ExecutionError",
    "ForbiddenError",
    "InfrastructureError",
    "InvalidJsonError",
    "NotFoundError",
    "PayloadTooLargeError",
    "ProvingServerError",
    "SessionError",
    "UnauthorizedError",
    "UnknownTypeError",
    "ValidationError",
    "error_from_reply",
]

Fault = Literal["caller", "infrastructure"]

#: The server's wire codes and their HTTP status (a test keeps this equal to the server's catalogue).
WIRE_STATUS: dict[str, int] = {
    "INVALID_JSON": 400,
    "UNKNOWN_TYPE": 400,
    "VALIDATION_ERROR": 422,
    "EXECUTION_ERROR": 500,
    "CAPACITY_REACHED": 503,
    "SESSION_ERROR": 409,
    "UNAUTHORIZED": 401,
    "FORBIDDEN_HOST": 403,
    "FORBIDDEN_ORIGIN": 403,
    "PAYLOAD_TOO_LARGE": 413,
    "NOT_FOUND": 404,
}


class ProvingServerError(Exception):
    """A coded error from a ``proving serve`` server (or the way to it)."""

    code: str
    status: int | None
    message: str
    errors: list[dict[str, Any]]
    data: dict[str, Any]

    def __init__(
        self,
        code: str,
        message: str,
        *,
        status: int | None = None,
        errors: list[dict[str, Any]] | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(f"{message} (code: {code}{'' if status is None else f', status: {status}'})")
        self.code = code
        self.status = status if status is not None else WIRE_STATUS.get(code)
        self.message = message
        self.errors = list(errors or [])
        self.data = dict(data or {})

    @property
    def fault(self) -> Fault:
        """``caller`` for a 4xx, ``infrastructure`` for anything else (a 5xx, no answer)."""
        return "caller" if self.status is not None and 400 <= self.status < 500 else "infrastructure"


class CallerError(ProvingServerError):
    """A 4xx: the request was wrong (a field, the episode id, the token). Retrying it as is will not help."""


class InfrastructureError(ProvingServerError):
    """A 5xx or no answer: the server failed or is full. A retry may succeed."""


class InvalidJsonError(CallerError):
    """``INVALID_JSON``: the body or message is not JSON."""


class UnknownTypeError(CallerError):
    """``UNKNOWN_TYPE``: a WebSocket message of a type the server does not know."""


class ValidationError(CallerError):
    """``VALIDATION_ERROR``: a field is missing, malformed or out of range (see ``errors``)."""


class SessionError(CallerError):
    """``SESSION_ERROR``: no episode yet, the episode has ended, or the session was closed or reclaimed."""


class UnauthorizedError(CallerError):
    """``UNAUTHORIZED``: a missing or wrong bearer token."""


class ForbiddenError(CallerError):
    """``FORBIDDEN_HOST`` / ``FORBIDDEN_ORIGIN``: the Host or Origin header was refused."""


class PayloadTooLargeError(CallerError):
    """``PAYLOAD_TOO_LARGE``: the request is over the server's ``limits.max_body_bytes``."""


class NotFoundError(CallerError):
    """``NOT_FOUND``: no such route (an older server, or a feature it was not started with)."""


class ExecutionError(InfrastructureError):
    """``EXECUTION_ERROR``: task generation, reset, step or evaluation failed on the server."""


class CapacityReachedError(InfrastructureError):
    """``CAPACITY_REACHED``: every session slot is in use (``--max-sessions``); retry later."""


class ConnectionFailedError(InfrastructureError):
    """``CONNECTION_FAILED`` (client side): the server could not be reached or the connection dropped."""


_BY_CODE: dict[str, type[ProvingServerError]] = {
    "INVALID_JSON": InvalidJsonError,
    "UNKNOWN_TYPE": UnknownTypeError,
    "VALIDATION_ERROR": ValidationError,
    "SESSION_ERROR": SessionError,
    "UNAUTHORIZED": UnauthorizedError,
    "FORBIDDEN_HOST": ForbiddenError,
    "FORBIDDEN_ORIGIN": ForbiddenError,
    "PAYLOAD_TOO_LARGE": PayloadTooLargeError,
    "NOT_FOUND": NotFoundError,
    "EXECUTION_ERROR": ExecutionError,
    "CAPACITY_REACHED": CapacityReachedError,
    "CONNECTION_FAILED": ConnectionFailedError,
}


def error_from_reply(reply: Any, status: int | None = None) -> ProvingServerError:
    """The exception for an error reply's body (HTTP) or ``data`` (WebSocket ``error`` frame)."""
    body: dict[str, Any] = reply if isinstance(reply, dict) else {"message": str(reply)[:200]}
    code = str(body.get("code") or "UNKNOWN")
    message = str(body.get("message") or body.get("detail") or "unknown error")
    errors = body.get("errors")
    status = status if status is not None else WIRE_STATUS.get(code)
    cls = _BY_CODE.get(code)
    if cls is None:
        cls = CallerError if status is not None and 400 <= status < 500 else InfrastructureError
    extra = {k: v for k, v in body.items() if k not in ("code", "message", "errors", "detail")}
    return cls(code, message, status=status, errors=errors if isinstance(errors, list) else None, data=extra)
