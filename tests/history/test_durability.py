"""The history file under process death and concurrent writers (issue 33): records whole or absent, none lost."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pandas as pd

from rankviz.history import History
from tests.conftest import ROOT

# Each child records precomputed per-query tables (no evaluation: the loop is the file's work only),
# 50 queries whose values encode (writer, i), so a record read back can be checked whole.
_CHILD = textwrap.dedent(
    """
    import sys
    import numpy as np, pandas as pd
    from rankviz.history import History
    path, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    queries = [f"q{j:03d}" for j in range(50)]
    qrels = pd.DataFrame({"query_id": queries, "doc_id": ["d"] * 50, "relevance": [1] * 50})
    history = History(path)
    for i in range(n):
        table = pd.DataFrame({"query_id": queries, "P@5": np.full(50, i / 1000.0), "AP": np.arange(50) + i})
        history.record(table, qrels, name=name, meta={"i": i})
        print(i, flush=True)  # acknowledged: record has returned
    """
)


def _child(path, name: str, n: int) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(path), name, str(n)], stdout=subprocess.PIPE, text=True, cwd=ROOT, env=env
    )


def _check_whole(history: History, name: str) -> list[int]:
    """Every record of ``name``: its table, means and meta agree with the i it was written for; the i's."""
    seen = []
    for rid in history.list().query("name == @name")["id"]:
        record = history.get(int(rid))
        i = record.meta["i"]
        assert len(record.table) == 50
        np.testing.assert_array_equal(record.table["P@5"], np.full(50, i / 1000.0))
        np.testing.assert_array_equal(record.table["AP"], np.arange(50) + i)
        assert record.means.loc["run", "AP"] == 24.5 + i
        seen.append(i)
    return seen


def test_sigkill_while_recording_leaves_every_record_whole_or_absent(tmp_path):
    path = tmp_path / "history.sqlite"
    History(path).close()
    rng = random.Random()
    stop_after = rng.randint(3, 40)
    child = _child(path, "killed", 100_000)
    acknowledged = []
    assert child.stdout is not None
    for line in child.stdout:
        acknowledged.append(int(line))
        if len(acknowledged) >= stop_after:
            break
    time.sleep(rng.random() * 0.05)  # at a random point of a later record
    child.send_signal(signal.SIGKILL)
    acknowledged += [int(line) for line in child.stdout.read().split()]
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    history = History(path)  # readable: the checks on opening pass
    seen = _check_whole(history, "killed")
    assert set(acknowledged) <= set(seen)  # nothing acknowledged is lost
    assert seen == list(range(len(seen)))  # and at most the one in flight beyond them, whole
    assert len(seen) - len(acknowledged) in (0, 1)


def test_two_processes_recording_200_each_lose_none(tmp_path):
    path = tmp_path / "history.sqlite"
    History(path).close()
    children = [_child(path, name, 200) for name in ("left", "right")]
    outputs = [child.communicate(timeout=600)[0] for child in children]
    assert [child.returncode for child in children] == [0, 0]
    assert [len(out.split()) for out in outputs] == [200, 200]
    history = History(path)
    assert len(history) == 400
    for name in ("left", "right"):
        assert sorted(_check_whole(history, name)) == list(range(200))
    assert pd.Index(history.list()["id"]).is_unique


_GATE_CHILD = textwrap.dedent(
    """
    import sys
    import numpy as np, pandas as pd
    from rankviz.history import History
    path, n = sys.argv[1], int(sys.argv[2])
    queries = [f"q{j:03d}" for j in range(50)]
    qrels = pd.DataFrame({"query_id": queries, "doc_id": ["d"] * 50, "relevance": [1] * 50})
    table = pd.DataFrame({"query_id": queries, "P@5": np.linspace(0, 1, 50)})
    history = History(path)
    for i in range(n):
        print(history.gate(table, qrels, sequential=True).check, flush=True)
    """
)


def test_two_processes_gating_at_once_get_distinct_check_numbers(tmp_path):
    path = tmp_path / "history.sqlite"
    with History(path) as history:
        queries = [f"q{j:03d}" for j in range(50)]
        qrels = pd.DataFrame({"query_id": queries, "doc_id": ["d"] * 50, "relevance": [1] * 50})
        history.accept(history.record(pd.DataFrame({"query_id": queries, "P@5": np.linspace(0, 1, 50)}), qrels).id)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    children = [
        subprocess.Popen(
            [sys.executable, "-W", "ignore", "-c", _GATE_CHILD, str(path), "15"],
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=env,
        )  # fmt: skip
        for _ in range(2)
    ]
    outputs = [child.communicate(timeout=600)[0] for child in children]
    assert [child.returncode for child in children] == [0, 0]
    checks = [int(k) for out in outputs for k in out.split()]
    assert sorted(checks) == list(range(1, 31))  # each check numbered once: alpha is never spent twice
