"""A standard MCP client, the official Python SDK (``mcp``: what verifiers' MCPEnv and verl's MCP tools
use), plays an episode on ``/mcp``: the session from the MCP session header, a ``reset`` tool, the
world's tools, the verdict in the last call's result; two client sessions are two episodes."""

from __future__ import annotations

import asyncio
import os
import re
from typing import Any

import pytest
from conftest import Server

if os.environ.get("CI") == "true":
    import mcp  # noqa: F401  (.ci/run installs it: never skipped in CI)
mcp_sdk = pytest.importorskip("mcp")


def payload(result: Any) -> dict[str, Any]:
    structured = getattr(result, "structured_content", None) or getattr(result, "structuredContent", None)
    assert isinstance(structured, dict), result
    return structured


def test_the_official_sdk_plays_an_episode(server: Server) -> None:
    async def main() -> None:
        async with mcp_sdk.Client(f"{server.url}/mcp") as a, mcp_sdk.Client(f"{server.url}/mcp") as b:
            names = [t.name for t in (await a.list_tools()).tools]
            assert "reset" in names and "close_case" in names
            first = await a.call_tool("reset", {"seed": 7, "family": "denied", "difficulty": 1})
            other = await b.call_tool("reset", {"seed": 8, "family": "denied", "difficulty": 1})
            task = payload(first)["metadata"]
            assert task["task_id"] == "device-support@1/denied/d1/s7"
            assert payload(other)["metadata"]["episode_id"] != task["episode_id"]  # one episode per MCP session
            case_id = re.search(r"C-\d+", first.content[0].text).group(0)  # type: ignore[union-attr]
            approval = await a.call_tool("get_approval", {"case_id": case_id})
            assert not approval.is_error and payload(approval)["approval"]["status"] == "denied"
            end = await a.call_tool("close_case", {"case_id": case_id, "resolution": "denied"})
            assert not end.is_error and payload(end)["verdict"]["passed"] is True
            after = await a.call_tool("get_case", {"case_id": case_id})
            assert after.is_error and payload(after)["error"]["code"] == "trial_ended"

    asyncio.run(main())
