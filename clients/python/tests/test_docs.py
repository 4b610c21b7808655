"""Every Python block of docs/python.md runs against a live server (``PROVING_URL``), unless the HTML
comment right above it says ``<!-- no-run: why -->`` (those need a trainer and a model)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable

import pytest
from conftest import ROOT, Server

PAGE = ROOT / "docs" / "python.md"


def python_blocks() -> list[tuple[int, str, str]]:
    """``(line, note, code)`` of each python block (the note: the comment above it, or "")."""
    lines = PAGE.read_text().split("\n")
    blocks: list[tuple[int, str, str]] = []
    i = 0
    while i < len(lines):
        fence = re.match(r"^```(\S*)\s*$", lines[i])
        if not fence:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        above = i - 1
        while above >= 0 and not lines[above].strip():
            above -= 1
        note = lines[above].strip()[4:-3].strip() if above >= 0 and re.match(r"^<!--.*-->$", lines[above].strip()) else ""
        if fence.group(1) == "python":
            blocks.append((i + 1, note, "\n".join(lines[i + 1 : end]) + "\n"))
        i = end + 1
    return blocks


BLOCKS = python_blocks()


def test_the_page_has_runnable_blocks() -> None:
    assert sum(1 for _, note, _ in BLOCKS if not note.startswith("no-run")) >= 3


@pytest.mark.parametrize(("line", "note", "code"), BLOCKS, ids=[f"python.md:{b[0]}" for b in BLOCKS])
def test_block_runs(serve: Callable[..., Server], line: int, note: str, code: str) -> None:
    if note.startswith("no-run"):
        compile(code, f"docs/python.md:{line}", "exec")  # still valid Python
        return
    server = serve("device-support@1")
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PROVING_URL": server.url},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, f"docs/python.md:{line}\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}"
