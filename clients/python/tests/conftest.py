"""Real ``proving serve`` servers for the tests: one per (world, flags), started once per session, stopped at its end.

Each is ``node --no-node-snapshot --import tsx src/cli/main.ts serve --world W --port 0 --json`` from the
repository root, on 127.0.0.1; its address is the JSON line it prints on stdout.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(os.environ.get("PROVING_ROOT", Path(__file__).resolve().parents[3]))


class Server:
    def __init__(self, args: list[str]) -> None:
        self.args = args
        self.proc = subprocess.Popen(
            ["node", "--no-node-snapshot", "--import", "tsx", "src/cli/main.ts", "serve", *args],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        line = self._first_line(timeout=120)
        info = json.loads(line)
        self.url: str = info["url"]
        self.ws_url: str = info["ws_url"]
        self.world: str = info["world"]
        self.info = info
        self.stderr: list[str] = []
        threading.Thread(target=self._drain, daemon=True).start()

    def _first_line(self, timeout: float) -> str:
        assert self.proc.stdout is not None
        got: list[str] = []
        reader = threading.Thread(target=lambda: got.append(self.proc.stdout.readline()))  # type: ignore[union-attr]
        reader.start()
        reader.join(timeout)
        if not got or not got[0].strip():
            self.proc.kill()
            err = self.proc.stderr.read() if self.proc.stderr else ""
            raise RuntimeError(f"proving serve {' '.join(self.args)} did not start:\n{err[-3000:]}")
        return got[0]

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line)

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()
        return "".join(self.stderr)


@pytest.fixture(scope="session")
def serve() -> Iterator[Callable[..., Server]]:
    """``serve(world, *flags)``: the session's server for that world and flags (started on first use)."""
    servers: dict[tuple[str, ...], Server] = {}

    def get(world: str = "device-support@1", *flags: str) -> Server:
        key = (world, *flags)
        if key not in servers:
            servers[key] = Server(["--world", world, "--port", "0", "--json", "--heartbeat-s", "0", *flags])
        return servers[key]

    yield get
    for server in servers.values():
        server.stop()


@pytest.fixture(scope="session")
def server(serve: Callable[..., Server]) -> Server:
    """The default server: device-support@1."""
    return serve("device-support@1")
