"""The sync and async clients over HTTP and WebSocket against a real server: full step results, errors, state."""

from __future__ import annotations

import asyncio
import json
import subprocess

import pytest
from conftest import ROOT, Server

from proving_ground import (
    AsyncClient,
    AsyncWsClient,
    Client,
    ConnectionFailedError,
    InfrastructureError,
    SessionError,
    StepResult,
    ValidationError,
    WsClient,
)
from proving_ground.errors import WIRE_STATUS, CallerError, error_from_reply


def play_denied(env: Client | WsClient) -> StepResult:
    """Plays device-support's denied case to its end: read the case, the approval, close as denied."""
    r = env.reset(seed=7, family="denied", difficulty=1)
    case_id = r.observation["context"]["case_id"]
    env.step({"tool": "get_case", "args": {"case_id": case_id}})
    env.step(json.dumps({"tool": "get_approval", "args": {"case_id": case_id}}))
    return env.step({"tool": "close_case", "args": {"case_id": case_id, "resolution": "denied"}})


@pytest.mark.parametrize("kind", [Client, WsClient])
def test_full_step_result(server: Server, kind: type[Client] | type[WsClient]) -> None:
    with kind(server.url) as env:
        first = env.reset(seed=7, family="denied", difficulty=1)
        assert first.observation["kind"] == "task"
        assert first.reward is None and not first.done and not first.terminated and not first.truncated
        assert first.task_id and first.metadata["family"] == "denied" and first.metadata["seed"] == 7
        assert first.episode_id == env.episode_id
        last = play_denied(env)
        assert last.done and last.terminated and not last.truncated
        assert last.verdict is not None and last.passed is True
        assert last.verdict["violations"] == []
        assert isinstance(last.reward, float)
        state = env.state()
        assert state["done"] is True and state["verdict"]["passed"] is True
        with pytest.raises(SessionError) as err:
            env.step({"tool": "get_case", "args": {"case_id": "C-1"}})
        assert err.value.code == "SESSION_ERROR" and err.value.fault == "caller"


@pytest.mark.parametrize("kind", [Client, WsClient])
def test_same_seed_same_episode(server: Server, kind: type[Client] | type[WsClient]) -> None:
    with kind(server.url) as env:
        ids = {env.reset(seed=123).task_id for _ in range(3)}
        assert len(ids) == 1, ids


@pytest.mark.parametrize("kind", [Client, WsClient])
def test_coded_errors(server: Server, kind: type[Client] | type[WsClient]) -> None:
    with kind(server.url) as env:
        with pytest.raises(ValidationError) as err:
            env.reset(seed=-5)
        assert err.value.status == 422 and err.value.errors[0]["loc"] == ["reset", "seed"]
        assert isinstance(err.value, CallerError) and err.value.fault == "caller"
        with pytest.raises(ValidationError):
            env.reset(family="no-such-family", seed=1)


def test_metadata_schema_tools(server: Server) -> None:
    with Client(server.url) as env:
        meta = env.metadata()
        assert meta["world"] == "device-support@1"
        assert [t["name"] for t in env.tools()] == [t["name"] for t in meta["tools"]]
        assert "action" in env.schema()
        assert env.health() == {"status": "healthy"}


def test_unreachable_server_is_infrastructure() -> None:
    with Client("http://127.0.0.1:9", timeout=2) as env, pytest.raises(ConnectionFailedError) as err:
        env.reset(seed=1)
    assert isinstance(err.value, InfrastructureError) and err.value.fault == "infrastructure"
    with WsClient("http://127.0.0.1:9", timeout=2) as ws, pytest.raises(ConnectionFailedError):
        ws.reset(seed=1)


def test_close_frees_the_sessions(server: Server) -> None:
    env = Client(server.url)
    env.reset(seed=1)
    episode = env.episode_id
    env.close()
    env.close()  # idempotent
    with Client(server.url) as other, pytest.raises(SessionError) as err:
        other.state(episode)
    assert err.value.status == 404


def test_async_clients(server: Server) -> None:
    async def main() -> list[bool | None]:
        out: list[bool | None] = []
        for kind in (AsyncClient, AsyncWsClient):
            async with kind(server.url) as env:
                r = await env.reset(seed=7, family="denied", difficulty=1)
                case_id = r.observation["context"]["case_id"]
                await env.step({"tool": "get_approval", "args": {"case_id": case_id}})
                last = await env.step({"tool": "close_case", "args": {"case_id": case_id, "resolution": "denied"}})
                out.append(last.passed)
                assert (await env.state())["done"] is True
                assert (await env.metadata())["world"] == "device-support@1"
        return out

    assert asyncio.run(main()) == [True, True]


def test_error_codes_mirror_the_server_catalogue() -> None:
    script = (
        'import { WIRE_ERRORS } from "./src/core/error-catalogue.ts";'
        "console.log(JSON.stringify(Object.fromEntries(Object.entries(WIRE_ERRORS).map(([k, v]) => [k, v.status]))));"
    )
    out = subprocess.run(
        ["node", "--no-node-snapshot", "--import", "tsx", "--input-type=module", "-e", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout) == WIRE_STATUS
    for code, status in WIRE_STATUS.items():
        err = error_from_reply({"code": code, "message": "m"})
        assert err.status == status
        assert isinstance(err, CallerError if status < 500 else InfrastructureError), code


def test_ws_error_frames_are_coded(server: Server) -> None:
    from proving_ground import UnknownTypeError

    with WsClient(server.url) as env:
        with pytest.raises(UnknownTypeError) as err:
            env._send("no_such_message")
        assert err.value.code == "UNKNOWN_TYPE" and err.value.status == 400
        assert env.reset(seed=2).task_id  # the connection goes on


def test_the_clients_need_no_gymnasium() -> None:
    code = (
        "import sys; sys.modules['gymnasium'] = None\n"  # as if the extra were not installed
        "import proving_ground\n"
        "assert proving_ground.Client and proving_ground.WsClient and proving_ground.AsyncClient\n"
    )
    import sys

    subprocess.run([sys.executable, "-c", code], check=True)
