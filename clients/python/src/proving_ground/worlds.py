"""The built-in worlds of ``proving`` and their Gymnasium ids (``device-support@1`` is ``proving/device-support-v1``).

A static list, so registration needs no server; a test keeps it equal to ``proving worlds --json``.
"""

from __future__ import annotations

__all__ = ["BUILTIN_WORLDS", "GYM_NAMESPACE", "gym_id", "world_of"]

BUILTIN_WORLDS: tuple[str, ...] = (
    "device-support@1",
    "device-support@2",
    "order-ops@1",
    "support-orders@1",
    "code-repair@1",
)

GYM_NAMESPACE = "proving"


def gym_id(world: str) -> str:
    """``name@N`` -> ``proving/name-vN``."""
    name, _, version = world.partition("@")
    return f"{GYM_NAMESPACE}/{name}-v{version or '1'}"


def world_of(env_id: str) -> str:
    """``proving/name-vN`` -> ``name@N``."""
    _, _, rest = env_id.rpartition("/")
    name, _, version = rest.rpartition("-v")
    if not name or not version.isdigit():
        raise ValueError(f"not a proving Gymnasium id: {env_id!r} (expected proving/<world>-v<N>)")
    return f"{name}@{version}"
