"""Whose labels a number rests on: the share of each system's top k that a model graded.

Qrels read from a label store in which a model judged (``rankviz.read_qrels(store)``,
``LabelStore.to_qrels()``) carry a ``kind`` column (``'human'`` or ``'model'``).
:func:`rankviz.evaluate` and :func:`rankviz.summary` then say, per system, which
share of the judged documents in its top k was graded by a model, and warn when
that is most of them and no person's label is there to check the model against.
Qrels without a ``kind`` column are all taken as given: nothing is said.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._core.columns import find_column
from .._core.input_shapes import run_arrays
from .._core.long_run import MISSING_DOC
from .._core.options import EvalOptions
from .._errors import InputError, ModelLabelsWarning, RankvizWarning, warn
from .pipeline import read_judgements, read_run_input

__all__ = ["model_share", "warn_model_labels"]


def _kinds(qrels: pd.DataFrame, options: EvalOptions) -> pd.Series | None:
    """The ``kind`` of each judged (query id, doc id), ids as strings; None when it cannot be read."""
    try:
        query = find_column(qrels, "query", options.columns.query, required=True, what="qrels")
        doc = find_column(qrels, "doc", options.columns.doc, required=True, what="qrels")
    except InputError:
        return None
    frame = pd.DataFrame(
        {"q": qrels[query].astype(str).to_numpy(), "d": qrels[doc].astype(str).to_numpy(),
         "kind": qrels["kind"].astype(str).to_numpy()}
    )  # fmt: skip
    frame = frame.drop_duplicates(["q", "d"], keep="last")
    return pd.Series(frame["kind"].to_numpy(), index=pd.MultiIndex.from_frame(frame[["q", "d"]]))


def model_share(run, qrels, *, k: int | None, options: EvalOptions, caller: str) -> pd.Series | None:
    """Per system: of the judged documents in its top ``k`` (all retrieved when None), the share a model graded.

    None when the qrels carry no ``kind`` column (or there are no qrels). NaN for a
    system whose top ``k`` has no judged document. The ranking is trec_eval's
    (score descending, ties by doc id descending), as the measures rank.
    """
    qrels = read_judgements(qrels)
    if not isinstance(qrels, pd.DataFrame) or "kind" not in qrels.columns:
        return None
    kinds = _kinds(qrels, options)
    if kinds is None:
        return None
    with warnings.catch_warnings():  # the evaluation itself has said whatever there is to say about these inputs
        warnings.simplefilter("ignore", RankvizWarning)
        arrays, _ = run_arrays(read_run_input(run), qrels, caller=caller, columns=options.columns,
                               order=options.order, score_dtype=options.score_dtype)  # fmt: skip
    systems = arrays.systems or ("run",)
    codes = arrays.sys_codes if arrays.sys_codes is not None else np.zeros(len(arrays.q_codes), dtype=np.int64)
    rows = pd.DataFrame({"s": codes, "q": arrays.q_codes, "key": arrays.key,
                         "d": np.asarray(arrays.docs.to_pylist(), dtype=object)})  # fmt: skip
    rows = rows[~rows["d"].astype(str).str.startswith(MISSING_DOC)]
    rows = rows.sort_values(["s", "q", "key", "d"], ascending=[True, True, False, False], kind="stable")
    if k is not None:
        rows = rows[rows.groupby(["s", "q"], sort=False).cumcount() < k]
    query_ids = np.asarray(arrays.q_values, dtype=object)[rows["q"].to_numpy()]  # str objects: no NUL dropped
    found = kinds.reindex(pd.MultiIndex.from_arrays([query_ids, rows["d"].astype(str).to_numpy()]))
    judged = found.notna().to_numpy()
    by_model = (found == "model").to_numpy()
    s = rows["s"].to_numpy()
    n_judged = np.bincount(s[judged], minlength=len(systems))
    n_model = np.bincount(s[by_model], minlength=len(systems))
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n_judged > 0, n_model / np.maximum(n_judged, 1), np.nan)
    label = "model_share" + ("" if k is None else f"@{k}")
    return pd.Series(share, index=pd.Index([str(x) for x in systems], name="system", dtype="str"), name=label)


def warn_model_labels(share: pd.Series | None, qrels, caller: str) -> None:
    """Warn when a model graded most of some system's judged top k and no label in the qrels is a person's."""
    if share is None:
        return
    qrels = read_judgements(qrels)
    if (qrels["kind"].astype(str) == "human").any():
        return
    most = share[share > 0.5]
    if len(most) == 0:
        return
    names = ", ".join(f"{name!r} ({value:.0%})" for name, value in most.items())
    depth = str(share.name).partition("@")[2]
    top = f"top {depth}" if depth else "rankings"
    warn(
        f"{caller}: a model graded most of the judged documents in the {top} of {names}, and none of the labels is a "
        "person's: these numbers are the model's opinion, of unknown bias. Have people grade a random sample of "
        "queries and check the judge against them before trusting the means or a difference.",
        ModelLabelsWarning,
    )
