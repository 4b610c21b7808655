"""Groups, forks and batched steps against a real server, over HTTP and WebSocket (the wire contract)."""

from __future__ import annotations

import pytest
from conftest import Server

from proving_ground import (
    Client,
    GroupReset,
    SessionError,
    StepError,
    StepResult,
    WsClient,
)


def denied_case(r: StepResult) -> str:
    return str(r.observation["context"]["case_id"])


@pytest.mark.parametrize("kind", [Client, WsClient])
def test_group_of_identical_tasks(server: Server, kind: type[Client] | type[WsClient]) -> None:
    with kind(server.url) as env:
        group = env.reset(seed=11, family="denied", difficulty=1, group=4)
        assert isinstance(group, GroupReset) and len(group.episodes) == 4
        ids = group.episode_ids
        assert len(set(ids)) == 4 and all(ids)
        assert len({e.task_id for e in group.episodes}) == 1
        assert len({str(e.observation) for e in group.episodes}) == 1
        case_id = denied_case(group.episodes[0])
        # two members pass, two fail: one batch of steps each time
        env.step_batch([(i, {"tool": "get_approval", "args": {"case_id": case_id}}) for i in ids])
        resolutions = ["denied", "denied", "no_action", "no_action"]
        ends = env.step_batch(
            [(i, {"tool": "close_case", "args": {"case_id": case_id, "resolution": res}}) for i, res in zip(ids, resolutions)]
        )
        assert [e.episode_id for e in ends] == ids
        assert all(isinstance(e, StepResult) and e.done for e in ends)
        assert [e.passed for e in ends if isinstance(e, StepResult)] == [True, True, False, False]
        result = env.group(group.group_id)
        assert result.finished and not result.all_passed and not result.all_failed
        assert [m.episode_id for m in result.members] == ids
        assert result.task_id == group.episodes[0].task_id


@pytest.mark.parametrize("kind", [Client, WsClient])
def test_batch_errors_are_their_own(server: Server, kind: type[Client] | type[WsClient]) -> None:
    with kind(server.url) as env:
        group = env.reset(seed=12, family="denied", difficulty=1, group=2)
        case_id = denied_case(group.episodes[0])
        a, b = group.episode_ids
        env.step_batch([(a, {"tool": "close_case", "args": {"case_id": case_id, "resolution": "denied"}})])
        entries = env.step_batch(
            [
                (a, {"tool": "get_case", "args": {"case_id": case_id}}),  # a has ended
                (b, {"tool": "get_case", "args": {"case_id": case_id}}),
                ("ep-no-such-episode", {"tool": "get_case", "args": {"case_id": case_id}}),
            ]
        )
        assert isinstance(entries[0], StepError) and isinstance(entries[0].error, SessionError)
        assert isinstance(entries[1], StepResult) and entries[1].observation["result"]["ok"] is True
        assert isinstance(entries[2], StepError) and entries[2].episode_id == "ep-no-such-episode"


@pytest.mark.parametrize("kind", [Client, WsClient])
def test_fork_continues_from_the_state(server: Server, kind: type[Client] | type[WsClient]) -> None:
    with kind(server.url) as env:
        first = env.reset(seed=13, family="denied", difficulty=1)
        case_id = denied_case(first)
        after = env.step({"tool": "get_approval", "args": {"case_id": case_id}})
        forks = env.fork(2)
        assert len(forks) == 2 and len({f.episode_id for f in forks}) == 2
        assert all(f.observation == after.observation for f in forks)  # the parent's latest
        assert all(f.metadata["step_count"] == 1 for f in forks)
        # each fork is independent and deterministic: the same action, the same result
        a, b = (f.episode_id or "" for f in forks)
        ra = env.step({"tool": "close_case", "args": {"case_id": case_id, "resolution": "denied"}}, episode_id=a)
        rb = env.step({"tool": "close_case", "args": {"case_id": case_id, "resolution": "denied"}}, episode_id=b)
        assert ra.passed is True and rb.passed is True and ra.observation == rb.observation
        # the parent goes on where it was
        rp = env.step({"tool": "close_case", "args": {"case_id": case_id, "resolution": "no_action"}})
        assert rp.done and rp.passed is False


def test_async_clients_group_batch_fork(server: Server) -> None:
    import asyncio

    from proving_ground import AsyncClient, AsyncWsClient

    async def play(kind: type[AsyncClient] | type[AsyncWsClient]) -> list[bool | None]:
        async with kind(server.url) as env:
            group = await env.reset(seed=21, family="denied", difficulty=1, group=2)
            case_id = denied_case(group.episodes[0])
            a, b = group.episode_ids
            await env.step_batch([(a, {"tool": "get_approval", "args": {"case_id": case_id}})])
            forks = await env.fork(1, episode_id=a)
            close = {"tool": "close_case", "args": {"case_id": case_id, "resolution": "denied"}}
            ends = await env.step_batch([(a, close), (b, close), (forks[0].episode_id or "", close)])
            assert (await env.group(group.group_id)).all_passed
            return [e.passed for e in ends if isinstance(e, StepResult)]

    assert asyncio.run(play(AsyncClient)) == [True, True, True]
    assert asyncio.run(play(AsyncWsClient)) == [True, True, True]
