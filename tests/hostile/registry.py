"""The registry of rankviz's public entry points, each with a valid example and its argument roles.

Every name in the ``__all__`` of the modules in :data:`PUBLIC_MODULES`, and every
``rankviz`` CLI command, must be registered here (``test_registry.py`` fails on a
missing or a stale name). An entry is either callable (roles, an example builder and
a call) or explicitly not an entry point (a class, exception, constant or module,
with the reason).

Roles name what the arguments hold, so the harness picks the mutators that apply:

``run``      a long run frame (system, query_id, doc_id, score)
``qrels``    a qrels frame (query_id, doc_id, relevance)
``table``    a per-query table (system, query_id, measure columns)
``ids``      query/doc ids appear somewhere in the inputs (consistently renamable)
``systems``  system names appear in the inputs (consistently renamable)
``by``       query attributes (a dict query -> value) used to slice
``path``     a file argument (:class:`data.FileInput`)
``json``     a file argument holding JSON (duplicate keys, deep nesting apply)
``mapping``  nested dict input (``{query: {doc: value}}``)
``numbers``  plain numbers (p-values, counts)
``text``     free text that ends up in a rendering (markup applies)
``measures`` measure names
``plot``     the result is a matplotlib Axes (rendered text must be escaped)
``html``     the result is an HTML document (user strings must be escaped)
"""

from __future__ import annotations

import contextlib
import importlib
import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import data as D

PUBLIC_MODULES = (
    "rankviz",
    "rankviz.labels",
    "rankviz.stats",
    "rankviz.io",
    "rankviz.fusion",
    "rankviz.plots",
    "rankviz.widgets",
)

NOT_ENTRY = "not an entry point"


@dataclass
class Entry:
    name: str  # the qualified name: "rankviz.evaluate", "rankviz.labels.LabelStore.add", "cli:eval"
    roles: tuple[str, ...] = ()
    build: Callable[[], dict] | None = None  # the valid example inputs
    call: Callable[[dict, Path], Any] | None = None
    aliases: tuple[str, ...] = ()  # other public names of the same object
    reason: str | None = None  # why a registered name is not an entry point
    stochastic: bool = False  # resampling: renamed/reordered queries may draw other resamples
    text_ids: bool = False  # ids pass through a whitespace-separated text file
    numbers: bool = True  # whether the result's numbers are compared (not for an HTML page that prints ids)

    @property
    def is_entry_point(self) -> bool:
        return self.call is not None


REGISTRY: dict[str, Entry] = {}


def register(entry: Entry) -> Entry:
    for key in (entry.name, *entry.aliases):
        assert key not in REGISTRY, f"{key} registered twice"
        REGISTRY[key] = entry
    return entry


def not_entry(name: str, reason: str, aliases: tuple[str, ...] = ()) -> None:
    register(Entry(name=name, roles=(NOT_ENTRY,), reason=reason, aliases=aliases))


def resolve(qualified: str) -> Any:
    """The object a registered public name denotes (``None`` for CLI commands)."""
    if qualified.startswith("cli:"):
        return None
    for module in sorted(PUBLIC_MODULES, key=len, reverse=True):
        if qualified.startswith(module + "."):
            obj: Any = importlib.import_module(module)
            for part in qualified[len(module) + 1 :].split("."):
                obj = getattr(obj, part)
            return obj
    raise KeyError(qualified)


# ---------------------------------------------------------------------------------------------- helpers

_CACHE: dict[str, Any] = {}


def _cached(key: str, make: Callable[[], Any]) -> Any:
    """Derived examples (per-query tables, bootstrap results) computed once; callers get deep copies."""
    import copy
    import warnings

    if key not in _CACHE:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an example's own warnings are the harness's baseline, not its build's
            _CACHE[key] = make()
    return copy.deepcopy(_CACHE[key])


def per_query_table() -> pd.DataFrame:
    import rankviz

    return _cached(
        "table",
        lambda: rankviz.evaluate(D.run_frame(), ["RR@10", "nDCG@10", "R@10"], D.qrels_frame(), per_query=True),
    )


def run_qrels() -> dict:
    return {"run": D.run_frame(), "qrels": D.qrels_frame()}


RUN_ROLES = ("run", "qrels", "ids", "systems")


def _core(fn: Callable, *args_after: Any, **kwargs: Any) -> Callable[[dict, Path], Any]:
    return lambda inp, tmp: fn(inp["run"], inp["qrels"], *args_after, **kwargs)


def _path(tmp: Path, spec: Any) -> str:
    return str(spec)  # the harness has already written FileInputs to files under tmp


def cli(argv: list[str]) -> tuple[int, str, str]:
    """Run ``python -m rankviz argv`` in process: (exit status, stdout, stderr)."""
    from rankviz.cli.commands import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's -h / usage errors
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


# ---------------------------------------------------------------------------------------------- rankviz

_EXC = "an exception or warning class: raised/emitted, not called with user data"
for _name in (
    "ClosedWorldWarning",
    "ColumnError",
    "DegenerateDataWarning",
    "DuplicateError",
    "DuplicateTextWarning",
    "IdTypeWarning",
    "InputError",
    "QueryIdWarning",
    "RankvizError",
    "RankvizWarning",
    "TiesWarning",
    "TrecFormatError",
    "UnannotatedWarning",
    "UnknownMeasureError",
    "UnknownOptionError",
    "UnmatchedIdsWarning",
):
    not_entry(f"rankviz.{_name}", _EXC)

_RESULT = "a result class: built by the entry points (their outputs are checked there), not from user data"
not_entry("rankviz.BeirData", _RESULT + " (read_beir)", aliases=("rankviz.io.BeirData",))
not_entry("rankviz.RetrievalLog", _RESULT + " (read_jsonl)", aliases=("rankviz.io.RetrievalLog",))
not_entry("rankviz.BootstrapResult", _RESULT + " (bootstrap)", aliases=("rankviz.stats.BootstrapResult",))
not_entry("rankviz.BootstrapResults", _RESULT + " (bootstrap)", aliases=("rankviz.stats.BootstrapResults",))
not_entry("rankviz.Comparison", _RESULT + " (compare)", aliases=("rankviz.stats.Comparison",))
not_entry("rankviz.ConfidenceInterval", _RESULT + " (bootstrap)", aliases=("rankviz.stats.ConfidenceInterval",))
not_entry("rankviz.SignificanceTable", _RESULT + " (table)", aliases=("rankviz.stats.SignificanceTable",))
not_entry("rankviz.TieReport", _RESULT + " (tie_report)")
not_entry("rankviz.Measure", "the parsed-measure class: built by parse_measure, which is registered")
for _name in ("fusion", "stats"):
    not_entry(f"rankviz.{_name}", "a submodule namespace: its public functions are registered under its own name")

register(
    Entry(
        "rankviz.evaluate",
        RUN_ROLES + ("measures", "by"),
        build=lambda: {**run_qrels(), "measures": ["RR@10", "nDCG@10", "AP"], "by": D.attributes()},
        call=lambda inp, tmp: rankviz_module().evaluate(inp["run"], inp["measures"], inp["qrels"], by=inp["by"]),
    )
)


def rankviz_module():
    import rankviz

    return rankviz


def _rv(name: str) -> Callable:
    return lambda *a, **k: getattr(rankviz_module(), name)(*a, **k)


register(
    Entry(
        "rankviz.evaluate[per_query]",
        RUN_ROLES + ("measures",),
        build=lambda: {**run_qrels(), "measures": ["RR@10", "nDCG@10", "P@5", "R@10"]},
        call=lambda inp, tmp: _rv("evaluate")(inp["run"], inp["measures"], inp["qrels"], per_query=True),
    )
)
register(
    Entry(
        "rankviz.summary",
        RUN_ROLES,
        build=run_qrels,
        call=lambda inp, tmp: _rv("summary")(inp["run"], inp["qrels"], k=5, n_resamples=200, rng=0),
        stochastic=True,
    )
)
register(
    Entry(
        "rankviz.bootstrap",
        RUN_ROLES + ("by",),
        build=lambda: {**run_qrels(), "by": D.attributes()},
        call=lambda inp, tmp: _rv("bootstrap")(
            inp["run"], ["RR@10"], inp["qrels"], by=inp["by"], n_resamples=200, method="percentile", rng=0
        ),
        stochastic=True,
    )
)
register(
    Entry(
        "rankviz.compare",
        RUN_ROLES,
        build=lambda: {**run_qrels(), "baseline": "A"},
        call=lambda inp, tmp: _rv("compare")(
            inp["run"], inp["baseline"], ["RR@10", "AP"], inp["qrels"], n_resamples=200, rng=0
        ),
        stochastic=True,
    )
)
register(
    Entry(
        "rankviz.table",
        RUN_ROLES,
        build=run_qrels,
        call=lambda inp, tmp: _rv("table")(inp["run"], ["RR@10", "AP"], inp["qrels"], n_resamples=200, rng=0),
        stochastic=True,
    )
)
register(
    Entry(
        "rankviz.changes",
        RUN_ROLES,
        build=lambda: {**run_qrels(), "system": "B", "baseline": "A"},
        call=lambda inp, tmp: _rv("changes")(
            inp["run"], inp["qrels"], system=inp["system"], baseline=inp["baseline"], k=5
        ),
    )
)
for _name, _kw in (
    ("first_relevant_rank", {}),
    ("hit_rate", {"k": 3}),
    ("mean_average_precision", {}),
    ("mrr", {"k": 10}),
    ("ndcg", {"k": 5}),
    ("precision", {"k": 3}),
    ("r_precision", {}),
    ("recall", {"k": 3}),
):
    register(
        Entry(
            f"rankviz.{_name}",
            RUN_ROLES,
            build=run_qrels,
            call=(lambda n, kw: lambda inp, tmp: _rv(n)(inp["run"], inp["qrels"], **kw))(_name, _kw),
        )
    )
register(
    Entry(
        "rankviz.ranked_list",
        RUN_ROLES,
        build=lambda: {**run_qrels(), "query": "q3", "system": "A"},
        call=lambda inp, tmp: _rv("ranked_list")(inp["run"], inp["query"], inp["qrels"], system=inp["system"]),
    )
)
register(
    Entry(
        "rankviz.tie_report",
        RUN_ROLES,
        build=run_qrels,
        call=lambda inp, tmp: _rv("tie_report")(inp["run"], inp["qrels"], k=5),
    )
)
register(
    Entry(
        "rankviz.fuse",
        ("run", "ids", "systems"),
        build=lambda: {"run": D.run_frame()},
        call=lambda inp, tmp: _rv("fuse")(inp["run"], "rrf"),
        aliases=("rankviz.fusion.fuse",),
    )
)
register(
    Entry(
        "rankviz.failure_slices",
        ("table", "ids", "systems", "by", "text"),
        build=lambda: {"table": per_query_table(), "queries": D.queries_frame(), "system": "A"},
        call=lambda inp, tmp: _rv("failure_slices")(
            inp["table"], measure="RR@10", system=inp["system"], queries=inp["queries"], min_count=2
        ),
        aliases=("rankviz.stats.failure_slices",),
    )
)
register(
    Entry(
        "rankviz.parse_measure",
        ("measures",),
        build=lambda: {"measures": ["nDCG@10", "RR(rel=2)@5", "AP", "P@5"]},
        call=lambda inp, tmp: [str(_rv("parse_measure")(m)) for m in inp["measures"]],
    )
)
register(
    Entry(
        "rankviz.io.qrels_from_dict",
        ("mapping", "ids"),
        build=lambda: {"mapping": D.qrels_dict()},
        call=lambda inp, tmp: _rv("qrels_from_dict")(inp["mapping"]),
        aliases=("rankviz.qrels_from_dict",),
    )
)
register(
    Entry(
        "rankviz.io.run_from_dict",
        ("mapping", "ids"),
        build=lambda: {"mapping": D.run_dict()},
        call=lambda inp, tmp: _rv("run_from_dict")(inp["mapping"], system="A"),
        aliases=("rankviz.run_from_dict",),
    )
)
register(
    Entry(
        "rankviz.io.qrels_to_dict",
        ("qrels", "ids"),
        build=lambda: {"qrels": D.qrels_frame()},
        call=lambda inp, tmp: _rv("qrels_to_dict")(inp["qrels"]),
        aliases=("rankviz.qrels_to_dict",),
    )
)
register(
    Entry(
        "rankviz.io.run_to_dict",
        ("run", "ids"),
        build=lambda: {"run": D.single_system_run()},
        call=lambda inp, tmp: _rv("run_to_dict")(inp["run"]),
        aliases=("rankviz.run_to_dict",),
    )
)
register(
    Entry(
        "rankviz.io.read_run",
        ("path", "ids", "systems"),
        build=lambda: {"path": D.FileInput(D.single_system_run(), "trec_run", "run.txt")},
        call=lambda inp, tmp: _rv("read_run")(inp["path"]),
        aliases=("rankviz.read_run",),
        text_ids=True,
    )
)
register(
    Entry(
        "rankviz.io.read_runs",
        ("path", "ids", "systems"),
        build=lambda: {
            "paths": [
                D.FileInput(D.run_frame().query("system == 'A'"), "trec_run", "a.txt"),
                D.FileInput(D.run_frame().query("system == 'B'"), "trec_run", "b.txt"),
            ]
        },
        call=lambda inp, tmp: _rv("read_runs")(inp["paths"]),
        aliases=("rankviz.read_runs",),
        text_ids=True,
    )
)
register(
    Entry(
        "rankviz.io.read_qrels",
        ("path", "ids"),
        build=lambda: {"path": D.FileInput(D.qrels_frame(), "trec_qrels", "qrels.txt")},
        call=lambda inp, tmp: _rv("read_qrels")(inp["path"]),
        aliases=("rankviz.read_qrels",),
        text_ids=True,
    )
)
register(
    Entry(
        "rankviz.io.read_topics",
        ("path", "ids", "text"),
        build=lambda: {"path": D.FileInput(D.queries_frame(), "topics_tsv", "topics.tsv")},
        call=lambda inp, tmp: _rv("read_topics")(inp["path"]),
        aliases=("rankviz.read_topics",),
        text_ids=True,
    )
)
register(
    Entry(
        "rankviz.io.read_jsonl",
        ("path", "json", "ids", "by", "text"),
        build=lambda: {"path": D.FileInput(D.jsonl_log_records(), "jsonl_log", "log.jsonl")},
        call=lambda inp, tmp: _rv("read_jsonl")(inp["path"], text="question"),
        aliases=("rankviz.read_jsonl",),
    )
)
register(
    Entry(
        "rankviz.io.read_beir",
        ("path", "json", "ids", "text"),
        build=lambda: {"folder": D.FileInput(D.beir_data(), "beir", "beir")},
        call=lambda inp, tmp: _rv("read_beir")(inp["folder"]),
        aliases=("rankviz.read_beir",),
    )
)


def _written(tmp: Path, name: str) -> str:
    return (tmp / name).read_text(encoding="utf-8")


register(
    Entry(
        "rankviz.io.write_run",
        ("run", "ids", "systems"),
        build=lambda: {"run": D.single_system_run()},
        call=lambda inp, tmp: (_rv("write_run")(inp["run"], tmp / "out.run"), _written(tmp, "out.run"))[1],
        aliases=("rankviz.write_run",),
        text_ids=True,
    )
)
register(
    Entry(
        "rankviz.io.write_qrels",
        ("qrels", "ids"),
        build=lambda: {"qrels": D.qrels_frame()},
        call=lambda inp, tmp: (_rv("write_qrels")(inp["qrels"], tmp / "out.qrels"), _written(tmp, "out.qrels"))[1],
        aliases=("rankviz.write_qrels",),
        text_ids=True,
    )
)
register(
    Entry(
        "rankviz.io.write_jsonl",
        ("run", "qrels", "ids", "systems"),
        build=lambda: {"run": D.single_system_run(), "qrels": D.qrels_frame()},
        call=lambda inp, tmp: (
            _rv("write_jsonl")(inp["run"], tmp / "out.jsonl", qrels=inp["qrels"]),
            _written(tmp, "out.jsonl"),
        )[1],
        aliases=("rankviz.write_jsonl",),
    )
)

# ---------------------------------------------------------------------------------------------- labels


def _labels():
    import rankviz.labels

    return rankviz.labels


not_entry("rankviz.labels.Agreement", _RESULT + " (agreement)")
not_entry(
    "rankviz.labels.LabelStore",
    "a class: its methods that take user data are registered as rankviz.labels.LabelStore.add, "
    ".import_label_studio, .import_qrels and .to_qrels",
)


def _other_qrels() -> pd.DataFrame:
    qrels = D.qrels_frame()
    qrels.loc[::3, "relevance"] = (qrels.loc[::3, "relevance"] + 1) % 3
    return qrels


register(
    Entry(
        "rankviz.labels.agreement",
        ("qrels", "ids"),
        build=lambda: {"qrels": D.qrels_frame(), "qrels_b": _other_qrels()},
        call=lambda inp, tmp: _labels().agreement(inp["qrels"], inp["qrels_b"]),
    )
)
register(
    Entry(
        "rankviz.labels.bounds",
        RUN_ROLES,
        build=run_qrels,
        call=lambda inp, tmp: _labels().bounds(inp["run"], inp["qrels"], ["RR@10", "P@5"], k=5),
    )
)
register(
    Entry(
        "rankviz.labels.holes",
        RUN_ROLES,
        build=run_qrels,
        call=lambda inp, tmp: _labels().holes(inp["run"], inp["qrels"], k=5),
    )
)
register(
    Entry(
        "rankviz.labels.stability",
        RUN_ROLES,
        build=lambda: {**run_qrels(), "qrels_b": _other_qrels()},
        call=lambda inp, tmp: _labels().stability(inp["run"], inp["qrels"], inp["qrels_b"], ["RR@10", "AP"]),
    )
)


def _store(tmp: Path):
    return _labels().LabelStore(tmp / "labels.sqlite")


def _store_add(inp: dict, tmp: Path):
    store = _store(tmp)
    try:
        for row in inp["qrels"].itertuples(index=False):
            store.add(row.query_id, row.doc_id, row.relevance, annotator=inp["annotator"])
        return store.to_qrels()
    finally:
        store.close()


def _store_call(method: str, *args_keys: str, **kwargs: Any) -> Callable[[dict, Path], Any]:
    def call(inp: dict, tmp: Path):
        store = _store(tmp)
        try:
            getattr(store, method)(*(inp[k] for k in args_keys), **kwargs)
            return store.to_qrels()
        finally:
            store.close()

    return call


register(
    Entry(
        "rankviz.labels.LabelStore.add",
        ("qrels", "ids", "text"),
        build=lambda: {"qrels": D.qrels_frame(), "annotator": "me"},
        call=_store_add,
    )
)
register(
    Entry(
        "rankviz.labels.LabelStore.import_qrels",
        ("qrels", "ids"),
        build=lambda: {"qrels": D.qrels_frame()},
        call=_store_call("import_qrels", "qrels", annotator="me"),
    )
)
register(
    Entry(
        "rankviz.labels.LabelStore.import_label_studio",
        ("path", "json", "ids"),
        build=lambda: {"export": D.FileInput(D.label_studio_tasks(), "label_studio", "export.json")},
        call=_store_call("import_label_studio", "export", grades=D.LABEL_STUDIO_GRADES),
    )
)


def _to_qrels_file(inp: dict, tmp: Path):
    store = _store(tmp)
    try:
        store.import_qrels(inp["qrels"], annotator="me")
        store.to_qrels(tmp / "from_store.qrels")
        return _written(tmp, "from_store.qrels")
    finally:
        store.close()


register(
    Entry(
        "rankviz.labels.LabelStore.to_qrels",
        ("qrels", "ids"),
        build=lambda: {"qrels": D.qrels_frame()},
        call=_to_qrels_file,
    )
)

# ---------------------------------------------------------------------------------------------- stats


def _stats():
    import rankviz.stats

    return rankviz.stats


for _name in ("CORRECTIONS", "DIFFERENCE_INTERVALS", "TESTS"):
    not_entry(f"rankviz.stats.{_name}", "a constant tuple of option names")
not_entry("rankviz.stats.PowerResult", _RESULT + " (power)")

TABLE_ROLES = ("table", "ids", "systems")
register(
    Entry(
        "rankviz.stats.bootstrap",
        TABLE_ROLES,
        build=lambda: {"table": per_query_table()},
        call=lambda inp, tmp: _stats().bootstrap(inp["table"], ["RR@10"], n_resamples=200, method="percentile", rng=0),
        stochastic=True,
    )
)
register(
    Entry(
        "rankviz.stats.compare",
        TABLE_ROLES,
        build=lambda: {"table": per_query_table(), "baseline": "A"},
        call=lambda inp, tmp: _stats().compare(
            inp["table"], baseline=inp["baseline"], measures=["RR@10"], n_resamples=200, rng=0
        ),
        stochastic=True,
    )
)
register(
    Entry(
        "rankviz.stats.all_pairs",
        TABLE_ROLES,
        build=lambda: {"table": per_query_table()},
        call=lambda inp, tmp: _stats().all_pairs(inp["table"], "RR@10", test="t"),
    )
)
register(
    Entry(
        "rankviz.stats.significance_table",
        TABLE_ROLES,
        build=lambda: {"table": per_query_table()},
        call=lambda inp, tmp: _stats().significance_table(inp["table"], "nDCG@10", test="t", n_resamples=200, rng=0),
        stochastic=True,
    )
)
register(
    Entry(
        "rankviz.stats.paired_differences",
        TABLE_ROLES,
        build=lambda: {"table": per_query_table(), "system": "B", "baseline": "A"},
        call=lambda inp, tmp: _stats().paired_differences(
            inp["table"], system=inp["system"], baseline=inp["baseline"], measure="RR@10"
        ),
    )
)
register(
    Entry(
        "rankviz.stats.power",
        TABLE_ROLES,
        build=lambda: {"table": per_query_table(), "system": "B", "baseline": "A"},
        call=lambda inp, tmp: _stats().power(
            inp["table"], system=inp["system"], baseline=inp["baseline"], measure="nDCG@10", difference=0.1
        ),
    )
)
register(
    Entry(
        "rankviz.stats.holm",
        ("numbers",),
        build=lambda: {"p_values": [0.01, 0.04, 0.03, 0.2]},
        call=lambda inp, tmp: _stats().holm(inp["p_values"]),
    )
)
register(
    Entry(
        "rankviz.stats.benjamini_hochberg",
        ("numbers",),
        build=lambda: {"p_values": [0.01, 0.04, 0.03, 0.2]},
        call=lambda inp, tmp: _stats().benjamini_hochberg(inp["p_values"]),
    )
)
register(
    Entry(
        "rankviz.stats.wilson_interval",
        ("numbers",),
        build=lambda: {"successes": 7, "n": 20},
        call=lambda inp, tmp: _stats().wilson_interval(inp["successes"], inp["n"]),
    )
)
register(
    Entry(
        "rankviz.stats.tukey_hsd_p",
        ("numbers",),
        build=lambda: {"scores": np.array([[0.5, 0.2, 0.4], [0.9, 0.4, 0.5], [0.3, 0.3, 0.2], [0.8, 0.1, 0.6]])},
        call=lambda inp, tmp: _stats().tukey_hsd_p(inp["scores"], 100, np.random.default_rng(0)),
        aliases=(),
        stochastic=True,
    )
)

# ---------------------------------------------------------------------------------------------- fusion


def _fusion():
    import rankviz.fusion

    return rankviz.fusion


for _name in ("METHODS", "NORMS", "WEIGHTED"):
    not_entry(f"rankviz.fusion.{_name}", "a constant tuple of option names")
not_entry("rankviz.fusion.TuneResult", _RESULT + " (tune)")
register(
    Entry(
        "rankviz.fusion.tune",
        RUN_ROLES,
        build=run_qrels,
        call=lambda inp, tmp: _fusion().tune(inp["run"], inp["qrels"], grid=0.5, folds=2, rng=0),
        stochastic=True,
    )
)
register(
    Entry(
        "rankviz.fusion.weight_grid",
        ("numbers",),
        build=lambda: {"n_systems": 3, "step": 0.25},
        call=lambda inp, tmp: _fusion().weight_grid(inp["n_systems"], inp["step"]),
    )
)

# ---------------------------------------------------------------------------------------------- plots


def _plots():
    import rankviz.plots

    return rankviz.plots


not_entry("rankviz.plots.RunPlots", "the accessor class behind run.rankviz.plot: its methods call the plot functions")
PLOT_ROLES = ("table", "ids", "systems", "plot", "text")


def _plot(name: str, key: str = "table", **kwargs: Any) -> Callable[[dict, Path], Any]:
    return lambda inp, tmp: getattr(_plots(), name)(inp[key], **kwargs)


register(
    Entry("rankviz.plots.rr_distribution", PLOT_ROLES, lambda: {"table": per_query_table()}, _plot("rr_distribution"))
)
register(
    Entry(
        "rankviz.plots.failures",
        PLOT_ROLES,
        lambda: {"table": per_query_table(), "queries": D.queries_frame(), "system": "B"},
        lambda inp, tmp: _plots().failures(inp["table"], measure="RR@10", system=inp["system"], queries=inp["queries"]),
    )
)
register(
    Entry(
        "rankviz.plots.paired_differences",
        PLOT_ROLES,
        lambda: {"table": per_query_table(), "system": "B", "baseline": "A"},
        lambda inp, tmp: _plots().paired_differences(
            inp["table"], system=inp["system"], baseline=inp["baseline"], measure="nDCG@10"
        ),
    )
)
register(
    Entry(
        "rankviz.plots.metric_at_k",
        PLOT_ROLES,
        lambda: {"table": per_query_table()},
        _plot("metric_at_k", measures=("RR", "R", "nDCG")),
    )
)
register(
    Entry(
        "rankviz.plots.recall_vs_mrr",
        PLOT_ROLES,
        lambda: {"table": per_query_table()},
        _plot("recall_vs_mrr", k=10, recall_k=10),
    )
)


def _bootstrapped(table: pd.DataFrame):
    """The plots' input: bootstrap results of a (possibly mutated) per-query table (its warnings are the plot's)."""
    return _stats().bootstrap(table, ["RR@10", "nDCG@10"], n_resamples=200, method="percentile", rng=0)


register(
    Entry(
        "rankviz.plots.ci",
        PLOT_ROLES,
        lambda: {"table": per_query_table(), "baseline": "A"},
        lambda inp, tmp: _plots().ci(_bootstrapped(inp["table"]), baseline=inp["baseline"]),
    )
)
register(
    Entry(
        "rankviz.plots.bootstrap_distribution",
        PLOT_ROLES,
        lambda: {"table": per_query_table(), "system": "A"},
        lambda inp, tmp: _plots().bootstrap_distribution(
            _bootstrapped(inp["table"]), system=inp["system"], measure="RR@10"
        ),
    )
)
register(
    Entry(
        "rankviz.plots.failure_causes",
        ("table", "plot", "text", "by"),
        lambda: {
            "slices": _cached(
                "fs",
                lambda: rankviz_module().failure_slices(
                    per_query_table(), measure="RR@10", system="A", queries=D.queries_frame(), min_count=2
                ),
            )
        },
        _plot("failure_causes", key="slices"),
    )
)
register(
    Entry(
        "rankviz.plots.changes",
        ("table", "ids", "plot", "text"),
        lambda: {
            "moved": _cached(
                "changes",
                lambda: rankviz_module().changes(D.run_frame(), D.qrels_frame(), system="B", baseline="A", k=5),
            ),
            "queries": D.queries_frame(),
        },
        lambda inp, tmp: _plots().changes(inp["moved"], n=5, queries=inp["queries"]),
    )
)
register(
    Entry(
        "rankviz.plots.slices",
        ("table", "systems", "plot", "text", "by"),
        lambda: {
            "sliced": _cached(
                "sliced",
                lambda: rankviz_module().evaluate(D.run_frame(), ["RR@10"], D.qrels_frame(), by=D.attributes()),
            )
        },
        _plot("slices", key="sliced"),
    )
)

# ---------------------------------------------------------------------------------------------- widgets


def _widgets():
    import rankviz.widgets

    return rankviz.widgets


for _name in ("Explorer", "ExplorerModel", "Judge", "JudgeModel", "Playground", "PlaygroundModel"):
    not_entry(
        f"rankviz.widgets.{_name}",
        "a widget/model class: built by explore/judge/playground, which are registered",
    )
register(
    Entry(
        "rankviz.widgets.explore",
        RUN_ROLES + ("text",),
        build=lambda: {**run_qrels(), "queries": D.queries_frame()},
        call=lambda inp, tmp: _widgets().explore(inp["run"], inp["qrels"], queries=inp["queries"], k=5),
    )
)


def _judge(inp: dict, tmp: Path):
    store = _store(tmp)
    try:
        ui = _widgets().judge(inp["todo"], store, annotator="me", queries=inp["queries"])
        return ui.model.progress()
    finally:
        store.close()


register(
    Entry(
        "rankviz.widgets.judge",
        ("qrels", "ids", "text"),
        build=lambda: {"todo": D.qrels_frame()[["query_id", "doc_id"]], "queries": D.queries_frame()},
        call=_judge,
    )
)
register(
    Entry(
        "rankviz.widgets.playground",
        ("numbers",),
        build=lambda: {"n": 10, "relevant": [1, 4], "k": 5},
        call=lambda inp, tmp: _widgets().playground(inp["n"], relevant=inp["relevant"], k=inp["k"]).model.__dict__,
    )
)

# ---------------------------------------------------------------------------------------------- CLI


register(
    Entry(
        "cli:eval",
        ("path", "ids"),
        build=lambda: {
            "qrels": D.FileInput(D.qrels_frame(), "trec_qrels", "qrels.txt"),
            "run": D.FileInput(D.single_system_run(), "trec_run", "run.txt"),
        },
        call=lambda inp, tmp: cli(["eval", inp["qrels"], inp["run"]]),
        text_ids=True,
    )
)
register(
    Entry(
        "cli:diff",
        ("path", "ids"),
        build=lambda: {
            "qrels": D.FileInput(D.qrels_frame(), "trec_qrels", "qrels.txt"),
            "a": D.FileInput(D.run_frame().query("system == 'A'"), "trec_run", "a.txt"),
            "b": D.FileInput(D.run_frame().query("system == 'B'"), "trec_run", "b.txt"),
        },
        call=lambda inp, tmp: cli(["diff", inp["qrels"], inp["a"], inp["b"], "--n-resamples", "200"]),
        text_ids=True,
        stochastic=True,
    )
)


def _report(inp: dict, tmp: Path):
    out = tmp / "report.html"
    code, stdout, stderr = cli(
        ["report", "--qrels", inp["qrels"], inp["a"], inp["b"], "--n-resamples", "40", "-o", str(out), "--quiet"]
        + ["--title", inp["title"]]
    )
    return code, out.read_text(encoding="utf-8") if code == 0 else "", stderr


register(
    Entry(
        "cli:report",
        ("path", "ids", "html", "text"),
        build=lambda: {
            "qrels": D.FileInput(D.qrels_frame(), "trec_qrels", "qrels.txt"),
            "a": D.FileInput(D.run_frame().query("system == 'A'"), "trec_run", "a.txt"),
            "b": D.FileInput(D.run_frame().query("system == 'B'"), "trec_run", "b.txt"),
            "title": "Report of A and B",
        },
        call=_report,
        text_ids=True,
        numbers=False,
        stochastic=True,
    )
)

MINIMAL_NOTEBOOK = {
    "cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# A title\n", "Some text."]}],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}
register(
    Entry(
        "cli:notebooks",
        ("path", "json"),
        build=lambda: {"folder": D.FileInput({"a.ipynb": MINIMAL_NOTEBOOK}, "notebook_dir", "nbs")},
        call=lambda inp, tmp: cli(["notebooks", inp["folder"], "-o", str(tmp / "build"), "--quiet"]),
    )
)


# ---------------------------------------------------------------------------------------------- suites, ranks, stages

not_entry("rankviz.ModelLabelsWarning", _EXC)
not_entry("rankviz.RankIntervals", _RESULT + " (ranks)", aliases=("rankviz.stats.RankIntervals",))
not_entry("rankviz.Stages", _RESULT + " (stages)")
not_entry("rankviz.stats.MetaAnalysis", _RESULT + " (meta_analysis)")
not_entry("rankviz.stats.SuiteIntervals", _RESULT + " (suite_intervals)")


def suite() -> dict:
    """A suite of two collections, ``{dataset: (run, qrels)}``: the example and a copy with its queries renamed."""
    run, qrels = D.run_frame(), D.qrels_frame()
    other_run, other_qrels = run.copy(), qrels.copy()
    # the second collection: the same ids, other scores (system B's order reversed), other grades
    other_run.loc[other_run["system"] == "B", "score"] *= -1
    other_qrels["relevance"] = (other_qrels["relevance"] + 1) % 3
    return {"news": (run, qrels), "web": (other_run, other_qrels)}


def suite_table() -> pd.DataFrame:
    """The suite's per-query table (a ``dataset`` column beside system and query_id)."""
    return _cached("suite_table", lambda: rankviz_module().evaluate(suite(), ["RR@10", "nDCG@10"], per_query=True))


register(
    Entry(
        "rankviz.evaluate[suite]",
        RUN_ROLES + ("measures",),
        build=lambda: {"suite": suite(), "measures": ["RR@10", "nDCG@10"]},
        call=lambda inp, tmp: _rv("evaluate")(inp["suite"], inp["measures"]),
    )
)
register(
    Entry(
        "rankviz.ranks",
        RUN_ROLES,
        build=run_qrels,
        call=lambda inp, tmp: _rv("ranks")(inp["run"], "nDCG@10", inp["qrels"], n_resamples=200, rng=0),
        stochastic=True,
    )
)
register(
    Entry(
        "rankviz.ranks[suite]",
        RUN_ROLES,
        build=lambda: {"suite": suite()},
        call=lambda inp, tmp: _rv("ranks")(inp["suite"], "nDCG@10", n_resamples=200, rng=0),
        stochastic=True,
    )
)
register(
    Entry(
        "rankviz.stats.ranks",
        TABLE_ROLES,
        build=lambda: {"table": per_query_table()},
        call=lambda inp, tmp: _stats().ranks(inp["table"], "nDCG@10", n_resamples=200, rng=0),
        stochastic=True,
    )
)
register(
    Entry(
        "rankviz.stats.suite_intervals",
        TABLE_ROLES,
        build=lambda: {"table": suite_table()},
        call=lambda inp, tmp: _stats().suite_intervals(inp["table"], ["RR@10"], n_resamples=200, rng=0),
        stochastic=True,
    )
)
register(
    Entry(
        "rankviz.stats.suite_compare",
        TABLE_ROLES,
        build=lambda: {"table": suite_table(), "baseline": "A"},
        call=lambda inp, tmp: _stats().suite_compare(
            inp["table"], baseline=inp["baseline"], measures=["RR@10"], n_resamples=200, rng=0
        ),
        stochastic=True,
    )
)
register(
    Entry(
        "rankviz.stats.meta_analysis",
        TABLE_ROLES,
        build=lambda: {"table": suite_table(), "system": "B", "baseline": "A"},
        call=lambda inp, tmp: _stats().meta_analysis(inp["table"], inp["system"], inp["baseline"], "nDCG@10"),
    )
)


def pipeline() -> dict:
    """A pipeline's stages ``{stage: {query: [docs]}}`` and the gold ``{query: [docs]}``."""
    run = D.single_system_run().sort_values(["query_id", "score"], ascending=[True, False], kind="mergesort")
    retrieved = {q: group["doc_id"].tolist() for q, group in run.groupby("query_id", sort=False)}
    qrels = D.qrels_frame()
    gold = {q: group.loc[group["relevance"] > 0, "doc_id"].tolist() for q, group in qrels.groupby("query_id")}
    return {
        "stages": {
            "retrieved": retrieved,
            "reranked": {q: list(reversed(docs))[:4] for q, docs in retrieved.items()},
            "context": {q: list(reversed(docs))[:2] for q, docs in retrieved.items()},
        },
        "gold": {q: docs for q, docs in gold.items() if docs},
    }


register(
    Entry(
        "rankviz.stages",
        ("mapping", "ids"),
        build=pipeline,
        call=lambda inp, tmp: _rv("stages")(inp["stages"], inp["gold"], n_resamples=200, rng=0),
        stochastic=True,
    )
)
register(
    Entry(
        "rankviz.plots.funnel",
        ("mapping", "ids", "plot"),
        build=pipeline,
        call=lambda inp, tmp: _plots().funnel(_rv("stages")(inp["stages"], inp["gold"], n_resamples=200, rng=0)),
        stochastic=True,
    )
)


def _history(inp: dict, tmp: Path):
    history = rankviz_module().History(tmp / "history.sqlite")
    try:
        history.record(inp["run"], inp["qrels"], ["RR@10", "nDCG@10"], name="nightly")
        return history.list()
    finally:
        history.close()


not_entry(
    "rankviz.History",
    "a class: its method that takes user data first is registered as rankviz.History.record",
)
register(Entry("rankviz.History.record", RUN_ROLES, build=run_qrels, call=_history))

# ---------------------------------------------------------------------------------------------- model labels

for _name in ("Alignment", "Corrected", "Design", "JudgeReport", "Judgement", "Plan", "SelfConsistency"):
    not_entry(f"rankviz.labels.{_name}", _RESULT)
for _name in ("CallableJudge", "Judge", "LLMJudge"):
    not_entry(f"rankviz.labels.{_name}", "a judge class: built by callable_judge / llm_judge, which are registered")
not_entry("rankviz.labels.DEFAULT_PROMPT", "a constant: the default judging prompt")
not_entry("rankviz.labels.GRADE_DEFINITIONS", "a constant: the grade definitions of the default prompt")


def _model_qrels() -> pd.DataFrame:
    """A lenient model's labels of the example's pairs: one grade higher, clipped at 2."""
    qrels = D.qrels_frame()
    qrels["relevance"] = (qrels["relevance"] + 1).clip(upper=2)
    return qrels


register(
    Entry(
        "rankviz.labels.alignment",
        ("qrels", "ids"),
        build=lambda: {"model": _model_qrels(), "human": D.qrels_frame()},
        call=lambda inp, tmp: _labels().alignment(inp["model"], inp["human"]),
    )
)
register(
    Entry(
        "rankviz.labels.self_consistency",
        ("qrels", "ids"),
        build=lambda: {"runs": {"try 1": _model_qrels(), "try 2": _other_qrels()}},
        call=lambda inp, tmp: _labels().self_consistency(inp["runs"]),
    )
)
register(
    Entry(
        "rankviz.labels.simulate_judge",
        ("qrels", "ids"),
        build=lambda: {"qrels": D.qrels_frame()},
        call=lambda inp, tmp: _labels().simulate_judge(inp["qrels"], noise=0.3, leniency=0.5, seed=0),
        stochastic=True,
    )
)
register(
    Entry(
        "rankviz.labels.sample_queries",
        ("ids", "numbers"),
        build=lambda: {"queries": tuple(D.QUERIES), "n": 4},  # a tuple: the number mutators change the count
        call=lambda inp, tmp: _labels().sample_queries(inp["queries"], n=inp["n"], seed=0).inclusion,
        stochastic=True,
    )
)


def _human_half() -> pd.DataFrame:
    qrels = D.qrels_frame()
    return qrels[qrels["query_id"].isin(D.QUERIES[::2])]


register(
    Entry(
        "rankviz.labels.corrected",
        RUN_ROLES,
        build=lambda: {"run": D.single_system_run(), "model": _model_qrels(), "human": _human_half()},
        call=lambda inp, tmp: _labels().corrected(inp["run"], inp["model"], inp["human"], "nDCG@10", design="random"),
    )
)
register(
    Entry(
        "rankviz.labels.plan",
        RUN_ROLES,
        build=lambda: {**run_qrels(), "model": _model_qrels()},
        call=lambda inp, tmp: _labels().plan(
            inp["run"], inp["model"], budget=4, target=("A", "B"), measure="nDCG@10", seed=0, n_simulations=5
        ),
        stochastic=True,
    )
)
register(
    Entry(
        "rankviz.labels.parse_grade",
        ("text", "numbers"),
        build=lambda: {"text": ("2", ' {"grade": 3}', "Grade: 2", "7"), "scale": [0, 1, 2, 3]},  # texts: a tuple
        call=lambda inp, tmp: [_labels().parse_grade(t, tuple(inp["scale"])) for t in inp["text"]],
    )
)


def _overlap(pairs):
    """A toy judge: 1 when the document's text shares a word with the query."""
    return [int(bool(set(str(q).lower().split()) & set(str(d).lower().split()))) for q, d in pairs]


def _texts(inp: dict) -> tuple[dict, dict]:
    queries = dict(zip(inp["queries"]["query_id"], inp["queries"]["text"], strict=True))
    documents = {d: f"how to {d} json" for d in inp["todo"]["doc_id"]}
    return queries, documents


def _callable_judge(inp: dict, tmp: Path):
    queries, documents = _texts(inp)
    judge = _labels().callable_judge(_overlap, scale=(0, 1), config={"rule": "word overlap"})
    pairs = [(queries.get(q, ""), documents[d]) for q, d in zip(inp["todo"]["query_id"], inp["todo"]["doc_id"])]
    return [j.grade for j in judge(pairs)]


def _judge_pairs(inp: dict, tmp: Path):
    queries, documents = _texts(inp)
    store = _store(tmp)
    try:
        judge = _labels().callable_judge(_overlap, scale=(0, 1))
        pairs = list(zip(inp["todo"]["query_id"], inp["todo"]["doc_id"]))
        _labels().judge_pairs(judge, pairs, store, queries=queries, documents=documents, progress=False)
        return store.to_qrels()
    finally:
        store.close()


def _llm_judge(inp: dict, tmp: Path):
    """Built with an unreachable server: the judge's prompt is checked, nothing is sent (no server in tests).

    The grading itself needs a server: covered by tests/labels/test_judges.py (a local fake server).
    """
    queries, documents = _texts(inp)
    judge = _labels().llm_judge("http://127.0.0.1:9/v1", "a-model", api_key="sk-secret", max_retries=0, timeout=1)
    first = inp["todo"].iloc[0]
    messages = judge.messages(queries.get(first["query_id"], ""), documents[first["doc_id"]])
    return [len(m["content"]) > 0 for m in messages], "sk-secret" not in repr(judge)


JUDGE_BUILD = lambda: {"todo": D.qrels_frame()[["query_id", "doc_id"]], "queries": D.queries_frame()}  # noqa: E731
register(Entry("rankviz.labels.callable_judge", ("ids", "text"), build=JUDGE_BUILD, call=_callable_judge))
register(Entry("rankviz.labels.judge_pairs", ("qrels", "ids", "text"), build=JUDGE_BUILD, call=_judge_pairs))
register(Entry("rankviz.labels.llm_judge", ("ids", "text"), build=JUDGE_BUILD, call=_llm_judge))


def entry_points() -> list[Entry]:
    """The distinct callable entries, in registration order."""
    seen: dict[int, Entry] = {}
    for entry in REGISTRY.values():
        if entry.is_entry_point:
            seen.setdefault(id(entry), entry)
    return list(seen.values())
