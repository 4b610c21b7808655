"""Proving Ground from Python: clients of ``proving serve``, a Gymnasium env, a vector env and trainer adapters.

``import proving_ground`` registers ``proving/<world>-v<N>`` with Gymnasium when it is installed
(``pip install 'proving-ground[gymnasium]'``). See docs/python.md.
"""

from __future__ import annotations

from .errors import (
    CallerError,
    CapacityReachedError,
    ConnectionFailedError,
    ExecutionError,
    ForbiddenError,
    InfrastructureError,
    InvalidJsonError,
    NotFoundError,
    PayloadTooLargeError,
    ProvingServerError,
    SessionError,
    UnauthorizedError,
    UnknownTypeError,
    ValidationError,
)
from .http_client import AsyncClient, Client
from .results import Action, BatchEntry, Curriculum, GroupMember, GroupReset, GroupResult, StepError, StepResult
from .worlds import BUILTIN_WORLDS, gym_id, world_of
from .ws_client import AsyncWsClient, WsClient

__version__ = "0.1.0"

__all__ = [
    "BUILTIN_WORLDS",
    "Action",
    "AsyncClient",
    "AsyncWsClient",
    "BatchEntry",
    "CallerError",
    "CapacityReachedError",
    "Client",
    "ConnectionFailedError",
    "Curriculum",
    "ExecutionError",
    "ForbiddenError",
    "GroupMember",
    "GroupReset",
    "GroupResult",
    "InfrastructureError",
    "InvalidJsonError",
    "NotFoundError",
    "PayloadTooLargeError",
    "ProvingServerError",
    "SessionError",
    "StepError",
    "StepResult",
    "UnauthorizedError",
    "UnknownTypeError",
    "ValidationError",
    "WsClient",
    "__version__",
    "gym_id",
    "world_of",
]

try:  # Gymnasium is an extra: register the envs when it is there
    import gymnasium as _gymnasium  # noqa: F401
except ImportError:  # pragma: no cover - without the extra
    pass
else:
    from .gym_env import register_envs as _register_envs

    _register_envs()
