"""A TRL ``environment_factory`` adapter generated from the server's tool list (no TRL import needed).

TRL's ``GRPOTrainer(environment_factory=...)`` calls the factory with no argument once per rollout
slot, calls ``reset(**row)`` with the dataset row's columns (its ``prompt`` aside) at the start of each
rollout (a returned string is appended to the prompt), exposes every public method except ``reset``
and ``get_reward`` as a tool (its schema comes from the method's signature and Google-style docstring,
as transformers' ``get_json_schema`` reads them), and sums ``get_reward()`` into the rewards.

:func:`environment_factory` reads ``/metadata`` and builds such a class: one method per server tool,
its keyword parameters in the schema's property order, typed from the schema (``Literal`` for an
enum), documented with the tool's and each property's description; the exact server schema is on
the method as ``__tool_schema__`` and on the class as ``tool_schemas``. ``reset(seed=, family=,
difficulty=, split=)`` starts the episode (a row without them: the server derives or draws the task);
``get_reward()`` is the verdict: 1.0 when it passed, else 0.0 (``reward="score"``: the verdict's score).
"""

from __future__ import annotations

import inspect
import json
import keyword
import re
from collections.abc import Mapping
from typing import Any, ClassVar, Literal, Union

from .http_client import Client
from .results import StepResult

__all__ = ["EnvironmentFactory", "ProvingToolEnv", "environment_class", "environment_factory", "python_type"]

RESERVED = frozenset({"reset", "get_reward"})
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SIMPLE: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "object": dict,
    "null": type(None),
}


def python_type(schema: Mapping[str, Any]) -> Any:
    """The type hint transformers turns back into this schema's ``type``/``enum``/``items``."""
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, (str, int, float, bool)) for v in enum):
        return Literal[tuple(enum)]
    kind = schema.get("type")
    if isinstance(kind, list):
        members = tuple(python_type({**schema, "type": k}) for k in kind)
        return Union[members] if len(members) > 1 else members[0]
    if kind == "array":
        items = schema.get("items")
        return list[python_type(items)] if isinstance(items, Mapping) else list  # type: ignore[misc]
    return _SIMPLE.get(str(kind), Any)


def _one_line(text: Any, fallback: str) -> str:
    words = " ".join(str(text or "").split())
    return words or fallback


def _docstring(tool: Mapping[str, Any], properties: Mapping[str, Any]) -> str:
    lines = [_one_line(tool.get("description"), f"Calls the {tool['name']} tool.")]
    if properties:
        lines += ["", "Args:"]
        lines += [f"    {name}: {_one_line(p.get('description'), name)}" for name, p in properties.items()]
    lines += ["", "Returns:", "    The tool's result as JSON text."]
    return "\n".join(lines)


def _tool_method(tool: Mapping[str, Any]) -> Any:
    name = str(tool["name"])
    schema = tool.get("input_schema") or {}
    properties: dict[str, Any] = dict(schema.get("properties") or {})
    required = set(schema.get("required") or [])
    bad = [p for p in [name, *properties] if not _IDENTIFIER.match(p) or keyword.iskeyword(p)]
    if bad:
        raise ValueError(f"tool {name!r}: {bad} cannot be Python names; use the client directly")

    def method(self: ProvingToolEnv, **arguments: Any) -> str:
        return self._call(name, arguments)

    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    for prop, prop_schema in properties.items():
        hint = python_type(prop_schema if isinstance(prop_schema, Mapping) else {})
        annotations[prop] = hint
        default = inspect.Parameter.empty if prop in required else None
        params.append(inspect.Parameter(prop, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=hint))
    annotations["return"] = str
    method.__name__ = name
    method.__qualname__ = f"ProvingToolEnv.{name}"
    method.__doc__ = _docstring(tool, properties)
    method.__annotations__ = annotations
    method.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    method.__tool_schema__ = {  # type: ignore[attr-defined]
        "name": name,
        "description": tool.get("description"),
        "input_schema": schema,
    }
    return method


class ProvingToolEnv:
    """The base of generated classes: one episode per ``reset``, the world's tools as methods."""

    base_url: ClassVar[str] = "http://127.0.0.1:8000"
    token: ClassVar[str | None] = None
    world: ClassVar[str | None] = None
    tool_schemas: ClassVar[list[dict[str, Any]]] = []
    reward_kind: ClassVar[str] = "passed"

    def __init__(self) -> None:
        self._client: Client | None = None
        self.last: StepResult | None = None
        self.done = False
        self.verdict: dict[str, Any] | None = None

    def _get_client(self) -> Client:
        if self._client is None:
            self._client = Client(self.base_url, token=self.token)
        return self._client

    def reset(
        self,
        seed: int | None = None,
        family: str | None = None,
        difficulty: int | None = None,
        split: str | None = None,
        **row: Any,
    ) -> str:
        """Starts an episode for a dataset row; returns the task's instruction and context as the prompt's text."""
        client = self._get_client()
        result = client.reset(
            None if seed is None else int(seed),
            family,
            None if difficulty is None else int(difficulty),
            split=split,
            episode_id=client.episode_id,  # the same session, a new episode: nothing leaks across rollouts
        )
        self.last, self.done, self.verdict = result, False, None
        obs = result.observation
        context = json.dumps(obs.get("context", {}), ensure_ascii=False, sort_keys=True)
        return f"{obs.get('instruction', '')}\n\nContext: {context}"

    def get_reward(self) -> float:
        """The verdict: 1.0 if it passed (or its ``score``), 0.0 when the episode did not end."""
        if self.verdict is None:
            return 0.0
        if self.reward_kind == "score":
            return float(self.verdict.get("score") or 0.0)
        return 1.0 if self.verdict.get("passed") else 0.0

    def _call(self, tool: str, arguments: dict[str, Any]) -> str:
        if self.done:
            raise RuntimeError("the episode has ended: no more tool calls")
        result = self._get_client().step({"tool": tool, "args": arguments})
        self.last, self.done = result, result.done
        if result.verdict is not None:
            self.verdict = result.verdict
        observation = result.observation
        return json.dumps(observation.get("result", observation), ensure_ascii=False)

    def _close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


def environment_class(
    tools: list[dict[str, Any]],
    *,
    base_url: str,
    token: str | None = None,
    world: str | None = None,
    reward: Literal["passed", "score"] = "passed",
    name: str = "ProvingEnv",
) -> type[ProvingToolEnv]:
    """A :class:`ProvingToolEnv` subclass with one method per tool (``tools``: ``/metadata``'s list)."""
    clash = [t["name"] for t in tools if t["name"] in RESERVED or hasattr(ProvingToolEnv, t["name"])]
    if clash:
        raise ValueError(f"tools {clash} clash with the environment's own methods")
    namespace: dict[str, Any] = {t["name"]: _tool_method(t) for t in tools}
    namespace.update(
        base_url=base_url,
        token=token,
        world=world,
        tool_schemas=[dict(t) for t in tools],
        reward_kind=reward,
        __doc__=f"{world or 'A proving world'} served at {base_url}: its tools as methods (TRL environment_factory).",
    )
    return type(name, (ProvingToolEnv,), namespace)


class EnvironmentFactory:
    """The callable TRL takes (``factory()`` is a fresh env); picklable (by its address and tool list)."""

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000",
        *,
        token: str | None = None,
        reward: Literal["passed", "score"] = "passed",
        tools: list[dict[str, Any]] | None = None,
        world: str | None = None,
    ) -> None:
        if tools is None:
            with Client(base_url, token=token) as client:
                meta = client.metadata()
            tools = list(meta.get("tools") or [])
            world = meta.get("world") if isinstance(meta.get("world"), str) else None
        self.base_url, self.token, self.reward, self.tools, self.world = base_url, token, reward, tools, world
        words = re.split(r"[^A-Za-z0-9]+", world or "proving")
        self.env_class = environment_class(
            tools,
            base_url=base_url,
            token=token,
            world=world,
            reward=reward,
            name="".join(w.capitalize() for w in words) + "Env",
        )

    def __call__(self) -> ProvingToolEnv:
        return self.env_class()

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.base_url, self.token, self.reward, self.tools, self.world))


def _rebuild(
    base_url: str, token: str | None, reward: Literal["passed", "score"], tools: list[dict[str, Any]], world: str | None
) -> EnvironmentFactory:
    return EnvironmentFactory(base_url, token=token, reward=reward, tools=tools, world=world)


def environment_factory(
    base_url: str = "http://127.0.0.1:8000",
    *,
    token: str | None = None,
    reward: Literal["passed", "score"] = "passed",
) -> EnvironmentFactory:
    """Reads the server's tools; pass the result as ``GRPOTrainer(environment_factory=...)``."""
    return EnvironmentFactory(base_url, token=token, reward=reward)
