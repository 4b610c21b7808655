"""A stdlib-only Python client for `proving serve` (and any server speaking OpenEnv's HTTP API).

It mirrors the surface of OpenEnv's generic client, so code written for one runs with the other:

    with GenericEnvClient(base_url="http://127.0.0.1:8000").sync() as env:
        r = env.reset(seed=7)                  # StepResult(observation, reward, done)
        r = env.step({"tool": ..., "args": {...}})
        env.state()                            # the episode's state; its "verdict" once done

It talks HTTP (POST /reset, POST /step, GET /state, POST /close) with one `episode_id` per client,
and OpenEnv's MCP mode: `list_tools()` and `call_tool(name, **arguments)` are the `list_tools` and
`call_tool` step actions. Errors raise `ServerError` with the server's code, message and `errors` list.
Python 3.8+, no dependencies, nothing to install. The `proving-ground` package beside it
(`pip install ./clients/python`, docs/python.md) supersedes it: async and WebSocket clients, the full
step result, groups, forks, batched steps, a Gymnasium env and trainer adapters.
"""

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, List, NamedTuple, Optional

__all__ = ["GenericEnvClient", "ServerError", "StepResult"]


class StepResult(NamedTuple):
    observation: Dict[str, Any]
    reward: Optional[float]
    done: bool


class ServerError(RuntimeError):
    """A coded error reply: `code` (e.g. VALIDATION_ERROR), HTTP `status`, and the `errors` list."""

    def __init__(self, status: int, code: str, message: str, errors: List[Dict[str, Any]]):
        super().__init__(f"Server error: {message} (code: {code}, status: {status})")
        self.status = status
        self.code = code
        self.errors = errors


class GenericEnvClient:
    """One episode at a time against `base_url` (http:// or ws://; a ws:// URL is read as http://)."""

    def __init__(self, base_url: str, token: Optional[str] = None, timeout_s: float = 60.0):
        url = base_url.rstrip("/")
        if url.startswith("ws://"):
            url = "http://" + url[len("ws://"):]
        elif url.startswith("wss://"):
            url = "https://" + url[len("wss://"):]
        self.base_url = url
        self.token = token
        self.timeout_s = timeout_s
        self.episode_id: Optional[str] = None

    # OpenEnv's clients are async with a .sync() wrapper; this one is synchronous already.
    def sync(self) -> "GenericEnvClient":
        return self

    def __enter__(self) -> "GenericEnvClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _request(self, method: str, path: str, body: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        req = urllib.request.Request(self.base_url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as res:
                return json.loads(res.read().decode("utf-8"))
        except urllib.error.HTTPError as err:
            text = err.read().decode("utf-8", "replace")
            try:
                reply = json.loads(text)
            except ValueError:
                reply = {"message": text[:200]}
            raise ServerError(
                err.code,
                str(reply.get("code", "UNKNOWN")),
                str(reply.get("message", "unknown error")),
                list(reply.get("errors", [])),
            ) from None

    @staticmethod
    def _result(reply: Dict[str, Any]) -> StepResult:
        return StepResult(reply.get("observation", {}), reply.get("reward"), bool(reply.get("done", False)))

    def reset(self, **kwargs: Any) -> StepResult:
        """Starts an episode: seed (-1 or None: any), family, difficulty, episode_id."""
        reply = self._request("POST", "/reset", kwargs)
        self.episode_id = reply.get("metadata", {}).get("episode_id", kwargs.get("episode_id"))
        return self._result(reply)

    def step(self, action: Dict[str, Any], **kwargs: Any) -> StepResult:
        """One action: {"tool": name, "args": {...}}, or {"type": "call_tool", ...} / {"type": "list_tools"}."""
        if self.episode_id is None:
            raise RuntimeError("reset first")
        body = {"episode_id": self.episode_id, "action": action}
        body.update(kwargs)
        return self._result(self._request("POST", "/step", body))

    def state(self) -> Dict[str, Any]:
        if self.episode_id is None:
            raise RuntimeError("reset first")
        query = urllib.parse.urlencode({"episode_id": self.episode_id})
        return self._request("GET", f"/state?{query}")

    def list_tools(self) -> List[Dict[str, Any]]:
        """The episode's tools, `{name, description, input_schema}` (OpenEnv's list_tools action)."""
        return list(self.step({"type": "list_tools"}).observation.get("tools", []))

    def call_tool(self, name: str, **arguments: Any) -> Any:
        """Calls one tool (OpenEnv's call_tool action) and returns the world's result."""
        return self.step({"type": "call_tool", "tool_name": name, "arguments": arguments}).observation.get("result")

    def close(self) -> None:
        if self.episode_id is None:
            return
        try:
            self._request("POST", "/close", {"episode_id": self.episode_id})
        except (ServerError, OSError):
            pass
        self.episode_id = None
