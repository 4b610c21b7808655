"""The TRL ``environment_factory`` adapter, tested against TRL's contract without TRL (it pulls torch).

What GRPOTrainer does with a factory (trl/trainer/grpo_trainer.py): ``factory()`` per rollout slot;
``inspect.getmembers(env, inspect.ismethod)`` minus ``reset``/``get_reward``/``_*`` are the tools, each
rendered by transformers' ``get_json_schema``; ``reset(**row)``; tools called with the model's
arguments as keywords; ``get_reward()`` summed into the rewards.
"""

from __future__ import annotations

import inspect
import json
import pickle
from collections.abc import Callable
from typing import Any

import pytest
from conftest import Server

from proving_ground import BUILTIN_WORLDS, Client
from proving_ground.trl import RESERVED, EnvironmentFactory, environment_factory


def tool_methods(env: object) -> dict[str, Any]:
    return {
        name: member
        for name, member in inspect.getmembers(env, predicate=inspect.ismethod)
        if name not in RESERVED and not name.startswith("_")
    }


def projected(schema: dict[str, Any], name: str | None = None) -> dict[str, Any]:
    """What a signature + Google docstring can carry of a property's schema (type, enum, items, description);
    transformers needs every argument described: one the server left undescribed is described by its name."""
    out: dict[str, Any] = {}
    if "type" in schema:
        out["type"] = schema["type"]
    if "enum" in schema:
        out["enum"] = schema["enum"]
    if isinstance(schema.get("items"), dict):
        out["items"] = projected(schema["items"])
    if name is not None:
        out["description"] = " ".join(str(schema.get("description") or name).split())
    return out


@pytest.mark.parametrize("world", BUILTIN_WORLDS)
def test_tools_match_the_server(serve: Callable[..., Server], world: str) -> None:
    server = serve(world)
    with Client(server.url) as client:
        server_tools = client.metadata()["tools"]
    factory = environment_factory(server.url)
    env = factory()
    assert factory.env_class.tool_schemas == server_tools
    methods = tool_methods(env)
    assert sorted(methods) == sorted(t["name"] for t in server_tools)
    for tool in server_tools:
        method = methods[tool["name"]]
        assert method.__tool_schema__ == tool  # the exact server schema, on the method
        schema = tool["input_schema"]
        params = inspect.signature(method).parameters
        assert list(params) == list(schema.get("properties", {}))
        required = {n for n, p in params.items() if p.default is inspect.Parameter.empty}
        assert required == set(schema.get("required", []))
    try:
        from transformers.utils.chat_template_utils import get_json_schema
    except ImportError:
        return
    for tool in server_tools:
        rendered = get_json_schema(methods[tool["name"]])["function"]
        schema = tool["input_schema"]
        assert rendered["name"] == tool["name"]
        assert rendered["description"] == " ".join(tool["description"].split())
        props = schema.get("properties", {})
        assert rendered["parameters"]["properties"] == {n: projected(p, n) for n, p in props.items()}
        assert set(rendered["parameters"].get("required", [])) == set(schema.get("required", []))


def test_a_rollout_as_grpo_trainer_plays_it(server: Server) -> None:
    factory = environment_factory(server.url)
    env = factory()
    prompt = env.reset(seed=7, family="denied", difficulty=1, prompt_id=3)  # other row columns are ignored
    assert "Context:" in prompt
    case_id = env.last.observation["context"]["case_id"]  # type: ignore[union-attr]
    tools = tool_methods(env)
    got = json.loads(tools["get_case"](case_id=case_id))
    assert got["ok"] is True
    assert env.get_reward() == 0.0  # not ended yet
    tools["get_approval"](case_id=case_id)
    tools["close_case"](case_id=case_id, resolution="denied")
    assert env.done and env.get_reward() == 1.0
    with pytest.raises(RuntimeError, match="ended"):
        tools["get_case"](case_id=case_id)
    # the instance is reused: reset starts a new episode on the same session
    first_session = env._client.episode_id  # type: ignore[union-attr]
    env.reset(seed=8, family="denied", difficulty=1)
    assert env.get_reward() == 0.0 and env._client.episode_id == first_session  # type: ignore[union-attr]
    bad = json.loads(tools["get_case"](case_id=""))
    assert bad["ok"] is False and bad["error"]["code"] == "invalid_argument"
    env._close()


def test_factory_pickles(server: Server) -> None:
    factory = environment_factory(server.url)
    again = pickle.loads(pickle.dumps(factory))
    assert isinstance(again, EnvironmentFactory)
    assert again.env_class.tool_schemas == factory.env_class.tool_schemas
    assert type(again()).__name__ == "DeviceSupport1Env"
