"""The speed figures of ``run.py`` and ``files.py``, per commit, kept in ``RESULTS.md`` so a regression shows.

Each full run appends one row (date, commit, figure, ratio to its peer, goal, and the
machine's load as ``uptime`` says it at the start and at the end of the timing) to the
table between the ``speed-history`` markers; earlier rows are kept. On a shared machine
a ratio is only comparable with rows of a similar load: both are printed together.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "RESULTS.md"
START, END = "<!-- speed-history:start -->", "<!-- speed-history:end -->"
HEADER = [
    "## Speed history (`run.py`, `files.py`)",
    "",
    "One row per full run: the ratio to the peer with the machine's load (1, 5, 15 minute averages, from `uptime`) at",
    "the start and the end of the timing. Compare rows measured under a similar load.",
    "",
    "| date | commit | benchmark | rankviz | peer | ratio | goal | load at start | load at end |",
    "|---|---|---|---|---|---|---|---|---|",
]


def uptime() -> str:
    """``uptime``'s line (the load averages), or the load averages alone where there is no such command."""
    try:
        out = subprocess.run(["uptime"], capture_output=True, text=True, timeout=5, check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        out = ""
    return out or "load average: " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def load() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def commit() -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(HERE), "log", "-1", "--format=%h"], capture_output=True, text=True, timeout=5, check=False
        )
        dirty = subprocess.run(
            ["git", "-C", str(HERE), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return (out.stdout.strip() or "unknown") + ("+" if dirty.stdout.strip() else "")


def say(label: str, ratio: float, goal: str) -> str:
    """One line with the ratio, the goal (``'>= 12x'``) and the load: print it as it is measured."""
    return f"{label}: {ratio:.2f}x (goal {goal}) | {uptime()}"


def append(benchmark: str, rankviz_s: float, peer: str, peer_s: float, goal: float, load_start: str) -> None:
    """Add a row to the history table of ``RESULTS.md`` (created after the other sections when missing)."""
    row = (
        f"| {time.strftime('%Y-%m-%d %H:%M')} | {commit()} | {benchmark} | {rankviz_s:.3f} s | {peer} {peer_s:.2f} s | "
        f"{peer_s / rankviz_s:.2f}x | >= {goal:g}x | {load_start} | {load()} |"
    )
    text = RESULTS.read_text() if RESULTS.exists() else "# rankviz benchmarks\n"
    if START in text and END in text:
        before, rest = text.split(START, 1)
        body, after = rest.split(END, 1)
        rows = [line for line in body.strip().splitlines() if line.startswith("| ") and not line.startswith("| date")]
        rows = [r for r in rows if not r.startswith("|---")]
    else:
        before, after, rows = text.rstrip() + "\n\n", "\n", []
    section = "\n".join([START, "", *HEADER, *rows, row, "", END])
    RESULTS.write_text(before + section + after)
