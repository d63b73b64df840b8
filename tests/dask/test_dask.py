"""rankviz.dask: the same per-query numbers, errors and semantics as the pandas path (issue #17).

One session-scoped ``distributed.LocalCluster`` (2 worker processes on 127.0.0.1,
one thread each, a small memory limit) serves every test, as CI starts it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import rankviz  # noqa: E402
import rankviz.dask  # noqa: E402
from rankviz.cli.trec_output import expand_trec_names
from rankviz.measures import parse_measures
from tests.conftest import shared_path  # noqa: E402

ALL_TREC = [m.name for m in parse_measures(expand_trec_names(["all_trec"])[0])]
FEW = ["RR@10", "nDCG@10", "AP", "R@100", "P@5", "Rprec", "Success@10", "bpref"]


def _local_cluster(workers: int) -> distributed.LocalCluster:
    return distributed.LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        memory_limit="1.5GB",
        dashboard_address=":0",
    )


@pytest.fixture(scope="session")
def client():
    cluster = _local_cluster(2)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


#: Families whose kernels accumulate floating-point sums across the cells of the whole call (interpolated
#: precision, nDCGRel, RnDCG, ERR): the pandas path itself gives a query values that differ in the last bits
#: (up to ~5e-14) depending on which other queries share the frame (one system alone vs all ten), so a
#: partition can too. Every other family is compared bit for bit.
ACROSS_CELLS = ("IPrec", "nDCGRel", "RnDCG", "ERR")


def _same(dask_table: pd.DataFrame, pandas_table: pd.DataFrame) -> None:
    loose = [c for c in pandas_table.columns if c.startswith(ACROSS_CELLS)]
    pd.testing.assert_frame_equal(dask_table.drop(columns=loose), pandas_table.drop(columns=loose), check_exact=True)
    pd.testing.assert_frame_equal(dask_table[loose], pandas_table[loose], check_exact=False, rtol=0, atol=1e-12)
    assert dask_table.attrs == pandas_table.attrs


def _generated(n_queries: int, depth: int, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A run of n_queries x depth rows (string ids, tied scores) in random row order, and graded qrels."""
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(n_queries), depth)
    doc = np.tile(np.arange(depth), n_queries) * 7 + q % 5
    run = pd.DataFrame(
        {
            "query_id": pd.array([f"q{x}" for x in q], dtype="str"),
            "doc_id": pd.array([f"d{x}" for x in doc], dtype="str"),
            "score": np.round(rng.random(len(q)) * 50, 1),  # one decimal: many ties
        }
    )
    judged = rng.integers(0, depth * 7 + 5, size=(n_queries + 20, 15))  # 20 judged queries the run never retrieves
    qrels = pd.DataFrame(
        {
            "query_id": np.repeat([f"q{x}" for x in range(n_queries + 20)], 15),
            "doc_id": [f"d{x}" for x in judged.ravel()],
            "relevance": rng.integers(0, 3, size=judged.size),
        }
    ).drop_duplicates(["query_id", "doc_id"], ignore_index=True)
    order = rng.permutation(len(run))  # every query's rows spread over every input partition
    return run.iloc[order].reset_index(drop=True), qrels


# ----------------------------------------------------------------------------- import and accessor


def test_import_rankviz_does_not_import_dask():
    code = "import sys, rankviz; print('dask' in sys.modules or 'rankviz.dask' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_dask_has_no_rank_method_of_its_own_and_keeps_its_api():
    code = "import dask.dataframe as dd; print(hasattr(dd.DataFrame, 'rank'), hasattr(dd.DataFrame, 'rankviz'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
    ddf = dd.from_pandas(pd.DataFrame({"rank": [2, 1], "score": [1.0, 2.0]}), npartitions=1)
    assert isinstance(ddf.rank, rankviz.dask.DaskRankAccessor)
    assert isinstance(ddf.rankviz, rankviz.dask.DaskRankAccessor)
    assert ddf["rank"].compute().tolist() == [2, 1]  # the column, by item access as on pandas
    assert ddf.score.compute().tolist() == [1.0, 2.0]  # attribute access to other columns is Dask's as before


# ----------------------------------------------------------------------------- same numbers


@pytest.mark.slow  # all_trec on ten runs, twice: ~90 s on this shared machine
def test_trec_covid_every_measure_same_as_pandas(client, tmp_path):
    folder = shared_path("trec_covid_round1")
    paths = sorted(str(p) for p in (folder / "runs").iterdir())
    qrels = rankviz.read_qrels(folder / "qrels-rnd1.txt")
    pandas_run = pd.concat([rankviz.read_run(p) for p in paths], ignore_index=True)
    # 200 kB blocks: the larger runs are split into several partitions, cutting queries at block ends
    run = rankviz.dask.read_run(paths, blocksize=200_000)
    assert run.npartitions > len(paths)
    expected = rankviz.evaluate(pandas_run, ALL_TREC, qrels, per_query=True)
    _same(run.rankviz.evaluate(ALL_TREC, qrels=qrels, per_query=True), expected)
    pd.testing.assert_frame_equal(
        run.rankviz.evaluate(FEW, qrels=qrels, depth=100, ties="optimistic"),
        rankviz.evaluate(pandas_run, FEW, qrels, depth=100, ties="optimistic"),
    )
    pd.testing.assert_series_equal(run.rank.ndcg(qrels, k=10), rankviz.ndcg(pandas_run, qrels, k=10))


def test_missing_queries_and_systems_without_some_queries(client):
    run, qrels = _generated(60, 30)
    run = pd.concat(
        [run.assign(system="a"), run[~run["query_id"].isin(["q1", "q2"])].assign(system="b")], ignore_index=True
    )
    ddf = dd.from_pandas(run, npartitions=5, sort=False)
    for missing in ("zero", "drop"):
        _same(
            ddf.rankviz.evaluate(FEW, qrels=qrels, per_query=True, missing=missing),
            rankviz.evaluate(run, FEW, qrels, per_query=True, missing=missing),
        )
    with pytest.raises(rankviz.InputError) as pandas_error:
        rankviz.evaluate(run, FEW, qrels, missing="error")
    with pytest.raises(rankviz.InputError) as dask_error:
        ddf.rankviz.evaluate(FEW, qrels=qrels, missing="error")
    assert str(dask_error.value) == str(pandas_error.value)


def test_closed_world_and_score_dtype(client):
    run, qrels = _generated(40, 20, seed=3)
    graded = run.merge(qrels, on=["query_id", "doc_id"], how="left")
    graded = pd.concat(
        [graded.assign(system="a"), graded[graded["query_id"] != "q3"].assign(system="b")], ignore_index=True
    )
    ddf = dd.from_pandas(graded, npartitions=4, sort=False)
    with pytest.warns(rankviz.ClosedWorldWarning):
        expected = rankviz.evaluate(graded, FEW, per_query=True, score_dtype="float32")
    with pytest.warns(rankviz.ClosedWorldWarning):
        _same(ddf.rankviz.evaluate(FEW, per_query=True, score_dtype="float32"), expected)


@pytest.mark.slow
def test_million_rows_split_across_partitions_with_duplicates(client):
    run, qrels = _generated(1_000, 1_000, seed=1)
    # 5 (query, doc) pairs repeated with another score, the copies appended at the end: another partition
    copies = run.groupby("query_id").head(1).head(5).assign(score=lambda f: f["score"] + 0.05)
    run = pd.concat([run, copies], ignore_index=True)
    assert len(run) >= 1_000_000
    ddf = dd.from_pandas(run, npartitions=16, sort=False)
    first_rows = ddf.partitions[0].compute()
    assert first_rows["query_id"].nunique() == 1_000  # every query has rows in the first partition and in others
    measures = [
        "RR@10",
        "nDCG@10",
        "AP",
        "R@100",
        "P@5",
        "Rprec",
        "Success@10",
        "bpref",
        "infAP",
        "ERR@20",
        "RBP(p=0.8)",
    ]
    expected = rankviz.evaluate(run, measures, qrels, per_query=True, duplicates="first")
    _same(ddf.rankviz.evaluate(measures, qrels=qrels, per_query=True, duplicates="first"), expected)
    with pytest.raises(rankviz.DuplicateError) as pandas_error:
        rankviz.evaluate(run, "RR@10", qrels)
    with pytest.raises(rankviz.DuplicateError) as dask_error:
        ddf.rankviz.evaluate("RR@10", qrels=qrels)
    # the same message, but its count and examples are those of the partition that raised first
    # (the five repeated pairs are in different partitions after the shuffle)
    head, rest = str(dask_error.value).split(" repeated rows): ")
    assert head.startswith("The run retrieves the same document more than once for a query (")
    assert 1 <= int(head.rsplit("(", 1)[1]) <= 5
    pairs = {f"query {q!r}, doc {d!r}" for q, d in zip(copies["query_id"], copies["doc_id"])}
    examples, advice = rest.split(". trec_eval refuses")
    assert set(examples.split("; ")) <= pairs
    assert advice == str(pandas_error.value).split(". trec_eval refuses")[1]


# ----------------------------------------------------------------------------- errors


def test_worker_errors_are_the_pandas_errors(client):
    run, qrels = _generated(30, 10)
    one_copy = pd.concat([run, run.iloc[[0]].assign(score=-1.0)], ignore_index=True)
    ddf = dd.from_pandas(one_copy, npartitions=3, sort=False)
    with pytest.raises(rankviz.DuplicateError) as pandas_error:
        rankviz.evaluate(one_copy, "AP", qrels)
    with pytest.raises(rankviz.DuplicateError) as dask_error:
        ddf.rankviz.evaluate("AP", qrels=qrels)
    assert str(dask_error.value) == str(pandas_error.value)
    other_ids = qrels.assign(query_id="x" + qrels["query_id"])
    with pytest.raises(rankviz.InputError) as pandas_error:
        rankviz.evaluate(run, "AP", other_ids)
    with pytest.raises(rankviz.InputError) as dask_error:
        dd.from_pandas(run, npartitions=3, sort=False).rankviz.evaluate("AP", qrels=other_ids)
    assert str(dask_error.value) == str(pandas_error.value)
    with pytest.raises(rankviz.UnknownMeasureError, match="nDGC"):
        ddf.rankviz.evaluate("nDGC@10", qrels=qrels)
    with pytest.raises(rankviz.ColumnError, match="columns="):
        ddf.rankviz.evaluate("AP", qrels=qrels, columns={"query": "qid"})


def test_bad_trec_line_in_a_later_block_names_the_file_line(client, tmp_path):
    path = tmp_path / "run.txt"
    lines = [f"q{i // 100} Q0 d{i} {i % 100 + 1} {1000 - i}.5 tag" for i in range(3000)]
    lines[2500] = "q25 Q0 d2500 1 nan tag"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(rankviz.TrecFormatError) as pandas_error:
        rankviz.read_run(path)
    run = rankviz.dask.read_run(str(path), blocksize=10_000)
    assert run.npartitions > 5
    with pytest.raises(rankviz.TrecFormatError) as dask_error:
        run.compute()
    assert str(dask_error.value) == str(pandas_error.value)
    assert "line 2501" in str(dask_error.value)


def test_read_run_gzip_plain_and_parquet_round_trip(client, tmp_path):
    import gzip

    text = "".join(f"q{i % 7} Q0 d{i} {i + 1} {1.0 / (i + 1)!r} t\n" for i in range(500))
    (tmp_path / "a.txt").write_text(text)
    (tmp_path / "b.txt.gz").write_bytes(gzip.compress(text.replace(" t\n", " u\n").encode()))
    run = rankviz.dask.read_run(str(tmp_path / "*.txt*"), blocksize=1_000)
    expected = pd.concat(
        [rankviz.read_run(tmp_path / "a.txt"), rankviz.read_run(tmp_path / "b.txt.gz")], ignore_index=True
    )
    got = run.compute().reset_index(drop=True)
    # read_run keeps the tag as a categorical; concatenating two files' categories gives str in pandas and their
    # union in Dask: compare the tags as text
    assert isinstance(got["system"].dtype, pd.CategoricalDtype)
    got, expected = got.astype({"system": "str"}), expected.astype({"system": "str"})
    pd.testing.assert_frame_equal(got, expected)
    rankviz.dask.write_run(run, tmp_path / "ds")
    back = rankviz.dask.read_run(str(tmp_path / "ds")).compute().reset_index(drop=True)
    pd.testing.assert_frame_equal(back, expected, check_dtype=False)
    with pytest.raises(FileNotFoundError, match="no file matches"):
        rankviz.dask.read_run(str(tmp_path / "none*.txt"))
    with pytest.raises(rankviz.InputError, match="'blocksize' parameter of read_run"):
        rankviz.dask.read_run(str(tmp_path / "a.txt"), blocksize=0)


# ----------------------------------------------------------------------------- a worker dies


def _evaluate_killing(client, ddf, qrels, victims) -> tuple[pd.DataFrame, bool]:
    """``ddf`` evaluated on ``client`` while ``victims(client)`` (worker addresses) are killed once tasks run."""
    killed = threading.Event()

    def kill():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if any(client.processing().values()):
                killed.set()
                try:  # the workers die before they can answer
                    client.run(os._exit, 1, workers=victims(client))
                except Exception:  # noqa: BLE001 - the connection to a dead worker breaks, as intended
                    pass
                return
            time.sleep(0.02)

    thread = threading.Thread(target=kill, daemon=True)
    thread.start()
    table = ddf.rankviz.evaluate(FEW, qrels=qrels, per_query=True)
    thread.join()
    return table, killed.is_set()


@pytest.mark.slow
def test_a_worker_killed_mid_computation_gives_the_same_numbers(client):
    run, qrels = _generated(600, 500, seed=2)
    ddf = dd.from_pandas(run, npartitions=12, sort=False)
    expected = rankviz.evaluate(run, FEW, qrels, per_query=True)
    client.wait_for_workers(2, timeout=60)  # a worker restarted by an earlier test is back
    before = set(client.scheduler_info()["workers"])
    table, killed = _evaluate_killing(client, ddf, qrels, lambda c: sorted(c.scheduler_info()["workers"])[:1])
    assert killed
    _same(table, expected)
    client.wait_for_workers(2, timeout=60)
    assert set(client.scheduler_info()["workers"]) != before  # the nanny started a new worker


@pytest.mark.slow
def test_the_only_worker_killed_mid_computation_gives_the_same_numbers():
    """Every worker lost at once: nothing the computation needs may live only on a worker (scattered data would)."""
    run, qrels = _generated(300, 400, seed=5)
    ddf = dd.from_pandas(run, npartitions=8, sort=False)
    expected = rankviz.evaluate(run, FEW, qrels, per_query=True)
    with _local_cluster(1) as cluster, distributed.Client(cluster, set_as_default=False) as alone, alone.as_current():
        table, killed = _evaluate_killing(alone, ddf, qrels, lambda c: None)  # None: every worker
    assert killed
    _same(table, expected)


def test_cli_eval_dask_matches_pandas(client, tmp_path):
    folder = shared_path("trec_covid_round1")
    args = [str(folder / "qrels-rnd1.txt"), str(folder / "runs" / "BERT"), "-m", "map", "ndcg_cut_10", "P_5"]
    plain = subprocess.run([sys.executable, "-m", "rankviz", "eval", *args], capture_output=True, text=True)
    address = client.scheduler.address
    on_dask = subprocess.run(
        [sys.executable, "-m", "rankviz", "eval", "--dask", address, *args], capture_output=True, text=True
    )
    assert on_dask.returncode == 0, on_dask.stderr
    assert on_dask.stdout == plain.stdout


def test_shuffle_false_uses_the_partitions_as_they_are_and_refuses_split_queries(client):
    run, qrels = _generated(40, 25, seed=4)
    run = pd.concat([run.assign(system="a"), run.assign(system="b")], ignore_index=True)
    expected = rankviz.evaluate(run, FEW, qrels, per_query=True)
    by_query = run.sort_values("query_id", kind="stable")
    whole = dd.from_pandas(by_query, npartitions=1, sort=False)
    pd.testing.assert_frame_equal(whole.rankviz.evaluate(FEW, qrels=qrels, per_query=True, shuffle=False), expected)
    split = dd.from_pandas(run, npartitions=3, sort=False)  # random row order: every query in every partition
    with pytest.raises(rankviz.InputError, match="shuffle=True"):
        split.rankviz.evaluate(FEW, qrels=qrels, shuffle=False)


def test_a_pandas_frame_is_pointed_to_the_pandas_functions():
    run, qrels = _generated(3, 3)
    with pytest.raises(rankviz.InputError, match="for a pandas DataFrame use rankviz.evaluate"):
        rankviz.dask.evaluate(run, "AP", qrels)


def test_the_dask_shortcuts_take_the_data_by_position_and_the_cutoff_by_name():
    import inspect

    for name in ("mrr", "ndcg", "mean_average_precision", "recall", "precision", "hit_rate"):
        pandas_params = list(inspect.signature(getattr(rankviz, name)).parameters)[:3]
        dask_params = list(inspect.signature(getattr(rankviz.dask, name)).parameters)[:3]
        assert dask_params == pandas_params == ["run", "qrels", "k"], name
