"""Result objects of the statistics: one type per function, whatever the input.

- :class:`BootstrapResult`: one measure of one system (scipy-like fields).
- :class:`BootstrapResults`: what ``bootstrap`` always returns, a collection
  indexable by system and measure, with ``.to_frame()`` and an HTML view.
- :class:`Comparison`: what ``compare`` always returns, its table plus how it was
  computed (test, correction, interval method, seed), which ``pd.concat`` of a bare
  table used to lose.

A per-query table with segment columns (``rankviz.evaluate(..., by=..., per_query=True)``)
gives the same types with a segment level: each result carries its segment, ``by`` names
the segment columns and ``.to_frame()`` has them after ``system``.

Tidy frames use one column style: ``system``, ``measure`` (canonical measure
names) and snake_case fields (``estimate``, ``ci_low``, ``ci_high``, ...).
"""

from __future__ import annotations

import dataclasses
import html
import math
from collections.abc import Iterator
from typing import Any, NamedTuple, cast

import numpy as np
import pandas as pd

__all__ = ["ConfidenceInterval", "BootstrapResult", "BootstrapResults", "Comparison", "formatted", "html_table"]


class ConfidenceInterval(NamedTuple):
    """A two-sided interval; unpacks as ``(low, high)``."""

    low: float
    high: float


def _fmt(value) -> str:
    return "nan" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.4f}"


@dataclasses.dataclass(frozen=True, repr=False)
class BootstrapResult:
    """A bootstrap confidence interval of one measure's mean for one system.

    Attributes
    ----------
    system : str
        The system (``"run"`` for a table without a system column).
    measure : str
    estimate : float
        The mean over queries.
    confidence_interval : ConfidenceInterval
    standard_error : float
        Standard deviation of the bootstrap distribution.
    confidence_level : float
    method : {'bca', 'percentile'}
        The method actually used (BCa falls back to percentile where undefined).
    n_queries, n_resamples : int
    bootstrap_distribution : ndarray
        The resampled means (kept, but not shown in the repr).
    zero_share, zero_share_interval
        RR measures only: share of queries with RR = 0 and its Wilson interval.
    nonzero_estimate, nonzero_interval
        RR measures only: MRR over the queries with RR > 0 and its bootstrap interval.
    notes : tuple of str
        What was degenerate or unreliable about the data, if anything.
    segment : tuple of (str, str) pairs
        Per segment column, its value (empty without segments). A segment's ``estimate`` and
        ``zero_share`` are a pandas groupby of the per-query table, to the last bit, and
        ``zero_share`` (with its Wilson interval) is given for every measure.
    """

    system: str
    measure: str
    estimate: float
    confidence_interval: ConfidenceInterval
    standard_error: float
    confidence_level: float
    method: str
    n_queries: int
    n_resamples: int
    bootstrap_distribution: np.ndarray
    zero_share: float | None = None
    zero_share_interval: ConfidenceInterval | None = None
    nonzero_estimate: float | None = None
    nonzero_interval: ConfidenceInterval | None = None
    notes: tuple[str, ...] = ()
    segment: tuple[tuple[str, Any], ...] = ()

    def __repr__(self) -> str:
        low, high = self.confidence_interval
        where = "".join(f", {name}={value!r}" for name, value in self.segment)
        text = (
            f"BootstrapResult(system={self.system!r}{where}, measure={self.measure!r}, estimate={self.estimate:.4f}, "
            f"{self.confidence_level:.0%} CI=({low:.4f}, {high:.4f}), standard_error={self.standard_error:.4f}, "
            f"method={self.method!r}, n_queries={self.n_queries}, n_resamples={self.n_resamples}"
        )
        if self.zero_share is not None:  # an RR result (or a segment's): its Wilson interval is set too
            zl, zh = cast(ConfidenceInterval, self.zero_share_interval)
            text += f", zero_share={self.zero_share:.4f} ({zl:.4f}, {zh:.4f})"
        if self.nonzero_interval is not None:  # an RR result
            nl, nh = self.nonzero_interval
            text += f", nonzero_estimate={_fmt(self.nonzero_estimate)} ({nl:.4f}, {nh:.4f})"
        return text + ")"

    def _repr_html_(self) -> str:
        row = {k: v for k, v in self.to_dict().items() if k not in ("system", "measure", "confidence_level")}
        row = {k: v for k, v in row.items() if k not in dict(self.segment)}
        frame = pd.DataFrame([row], index=pd.Index([self.measure], name=self.system))
        where = "".join(f", {name}={value}" for name, value in self.segment)
        caption = f"{self.system}{where}, {self.measure}: {self.confidence_level:.0%} {self.method} interval"
        return html_table(frame, caption, self.notes, transpose=True)

    def to_dict(self) -> dict:
        """The fields as a flat dict (the bootstrap distribution and notes left out)."""
        row = {
            "system": self.system,
            **dict(self.segment),
            "measure": self.measure,
            "estimate": self.estimate,
            "ci_low": self.confidence_interval.low,
            "ci_high": self.confidence_interval.high,
            "standard_error": self.standard_error,
            "confidence_level": self.confidence_level,
            "method": self.method,
            "n_queries": self.n_queries,
            "n_resamples": self.n_resamples,
        }
        if self.zero_share is not None:  # an RR result (or a segment's): its Wilson interval is set too
            zero_ci = cast(ConfidenceInterval, self.zero_share_interval)
            row.update(zero_share=self.zero_share, zero_share_ci_low=zero_ci.low, zero_share_ci_high=zero_ci.high)
        if self.nonzero_interval is not None:  # an RR result
            row.update(
                nonzero_estimate=self.nonzero_estimate,
                nonzero_ci_low=self.nonzero_interval.low,
                nonzero_ci_high=self.nonzero_interval.high,
            )
        return row


@dataclasses.dataclass(frozen=True, repr=False)
class BootstrapResults:
    """Bootstrap intervals of every system x measure of one call (x segment, when the table has segments).

    Index it by ``(system, measure)``; with one system (or one measure) the other
    key alone is enough. Iterating yields :class:`BootstrapResult` values in the
    order of the systems, then the measures. With segment columns (``by``), index it
    by ``(system, <one value per segment column>, measure)``, the same keys left out;
    the order is system, segment (in the columns' category order), measure.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> table = pd.DataFrame({"query_id": [f"q{i}" for i in range(40)], "RR@10": [1.0, 0.5, 0.0, 0.25] * 10})
    >>> results = rankviz.stats.bootstrap(table, "RR@10", rng=0)
    >>> results.systems, results.measures
    (('run',), ('RR@10',))
    >>> round(results["RR@10"].estimate, 4) == round(results["run", "RR@10"].estimate, 4) == 0.4375
    True
    """

    results: tuple[BootstrapResult, ...]
    #: the segment columns (empty without segments)
    by: tuple[str, ...] = ()
    #: per segment column, its categories in order (what ``.to_frame()`` gives the column)
    categories: tuple[tuple[str, ...], ...] = ()

    @property
    def systems(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.system for r in self.results))

    @property
    def measures(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.measure for r in self.results))

    @property
    def segments(self) -> tuple[tuple[str, ...], ...]:
        """The segments, each a tuple of one value per column of ``by`` (empty without segments)."""
        return tuple(dict.fromkeys(tuple(str(v) for _, v in r.segment) for r in self.results)) if self.by else ()

    def __iter__(self) -> Iterator[BootstrapResult]:
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)

    def __getitem__(self, key) -> BootstrapResult:
        parts = tuple(str(k) for k in key) if isinstance(key, tuple) else (str(key),)
        fields = ("system", *self.by, "measure")
        shapes = [fields]
        if len(self.systems) == 1:
            shapes.append(fields[1:])
        if len(self.measures) == 1:
            shapes.append(fields[:-1])
        if self.by and len(self.systems) == 1 and len(self.measures) == 1:
            shapes.append(fields[1:-1])
        for shape in shapes:
            if len(shape) != len(parts):
                continue
            wanted = dict(zip(shape, parts))
            for r in self.results:
                have = {"system": r.system, "measure": r.measure, **dict(r.segment)}
                if all(str(have[f]) == v for f, v in wanted.items()):
                    return r
        segments = f", segments {[', '.join(s) for s in self.segments]}" if self.by else ""
        raise KeyError(
            f"{key!r}: index by ({', '.join(fields)}); systems {list(self.systems)}{segments}, "
            f"measures {list(self.measures)}."
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per system x measure: system, measure, estimate, ci_low, ci_high, standard_error, ...

        With segments, their columns follow ``system`` as ordered categoricals.
        """
        table = pd.DataFrame([r.to_dict() for r in self.results])
        for name in ("system", "measure", "method"):
            table[name] = table[name].astype("str")
        for name, categories in zip(self.by, self.categories):
            table[name] = pd.Categorical(table[name], categories=list(categories), ordered=True)
        return table

    @property
    def notes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(n for r in self.results for n in r.notes))

    def _shown(self) -> pd.DataFrame:
        return self.to_frame()[["system", *self.by, "measure", "estimate", "ci_low", "ci_high", "method", "n_queries"]]

    def __repr__(self) -> str:
        segments = f" by {', '.join(self.by)}" if self.by else ""
        with pd.option_context("display.width", 120, "display.max_columns", 12):
            return (
                f"BootstrapResults ({len(self)} intervals{segments})\n{self._shown().round(4).to_string(index=False)}"
            )

    def _repr_html_(self) -> str:
        level = self.results[0].confidence_level if self.results else 0.95
        caption = f"Bootstrap {level:.0%} intervals ({self.results[0].n_resamples if self.results else 0} resamples)"
        if self.by:
            caption += f" by {', '.join(self.by)}"
        return html_table(self._shown(), caption, self.notes)


@dataclasses.dataclass(frozen=True, repr=False)
class Comparison:
    """Paired comparisons of systems against a baseline, and how they were computed.

    ``table`` has one row per system x measure (see :func:`rankviz.stats.compare`);
    the other fields record the test, the correction, the interval method, the seed
    and which randomization p-values were exact, so they survive ``to_frame()`` +
    ``pd.concat`` as columns.

    With segment columns (``by``, from a per-query table of ``rankviz.evaluate(..., by=...,
    per_query=True)``) the table has one row per system x segment x measure, the segment
    columns after ``baseline``, the correction applied once over every row, and
    ``heterogeneity`` holds, per system x measure, the permutation test of whether the
    difference varies across segments (:func:`rankviz.stats.segments.heterogeneity`).
    """

    table: pd.DataFrame
    baseline: str
    test: str
    correction: str | None
    method: str
    confidence_level: float
    n_resamples: int
    rng: int | None
    exact_randomization: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    by: tuple[str, ...] = ()
    heterogeneity: pd.DataFrame | None = None

    #: what a reader needs first: who, on what, by how much (with its interval), how sure, how big, how often
    KEY_COLUMNS = (
        "system",
        "measure",
        "difference",
        "ci_low",
        "ci_high",
        "p_value",
        "p_corrected",
        "effect_size",
        "wins",
        "ties",
        "losses",
    )

    @property
    def key_columns(self) -> pd.DataFrame:
        """The table's :attr:`KEY_COLUMNS` only (a copy): what the notebook view shows first."""
        key = ("system", *self.by, *self.KEY_COLUMNS[1:])
        return self.table[[c for c in key if c in self.table.columns]].copy()

    def to_frame(self, *, all_columns: bool = True) -> pd.DataFrame:
        """The table, with ``test``, ``correction`` and ``confidence_level`` columns added (a copy).

        ``all_columns=False`` keeps only :attr:`KEY_COLUMNS` (and the three added).
        """
        table = self.table if all_columns else self.key_columns
        return table.assign(test=self.test, correction=str(self.correction), confidence_level=self.confidence_level)

    def __len__(self) -> int:
        return len(self.table)

    def __repr__(self) -> str:
        segments = f" by {', '.join(self.by)}" if self.by else ""
        head = (
            f"Comparison against {self.baseline!r}{segments}: {self.test} test, correction={self.correction}, "
            f"{self.confidence_level:.0%} {self.method} interval of the difference, rng={self.rng}"
        )
        shown = self.table[["system", *self.by, "measure", "difference", "ci_low", "ci_high", "p_value", "p_corrected"]]
        with pd.option_context("display.width", 120):
            text = f"{head}\n{shown.round(4).to_string(index=False)}"
            if self.heterogeneity is not None and not self.heterogeneity.empty:
                varies = self.heterogeneity[["system", "measure", "n_segments", "statistic", "p_value"]]
                text += f"\n{_VARIES}\n{varies.round(4).to_string(index=False)}"
            return text

    def _repr_html_(self) -> str:
        """The key columns (interval and wins/ties/losses one cell each), every column in a closed <details>."""
        segments = f" by {', '.join(self.by)}" if self.by else ""
        caption = (
            f"Paired comparison against {html.escape(self.baseline)}{html.escape(segments)}: {self.test} test, "
            f"correction {self.correction}, "
            f"{self.confidence_level:.0%} {self.method} interval of the difference (system &minus; baseline)"
        )
        key = formatted(self.key_columns)
        level = f"{self.confidence_level:.0%} interval"
        shown = pd.DataFrame(
            {
                "system": key["system"],
                **{name: key[name] for name in self.by},
                "measure": key["measure"],
                "difference": key["difference"],
                level: "[" + key["ci_low"] + ", " + key["ci_high"] + "]",
                "p": key["p_value"],
                "p corrected": key["p_corrected"],
                "effect size": key["effect_size"],
                "wins / ties / losses": key["wins"] + " / " + key["ties"] + " / " + key["losses"],
            }
        )
        others = [c for c in self.table.columns if c not in self.KEY_COLUMNS and c not in self.by]
        rest = html_table(self.table[["system", *self.by, "measure", *others]])
        details = (
            f"<details><summary>the other columns ({', '.join(map(html.escape, others))}); every column: "
            f"<code>.table</code> or <code>.to_frame()</code></summary>{rest}</details>"
        )
        if self.heterogeneity is not None and not self.heterogeneity.empty:
            details += html_table(self.heterogeneity, _VARIES)
        return html_table(shown, caption, self.notes, escape_caption=False)[: -len("</div>")] + details + "</div>"


#: the heading of a segmented comparison's heterogeneity table
_VARIES = "Does the difference vary across segments? (permutation test)"


def _is_count(name, values: pd.Series) -> bool:
    """An integer column, or a float column of whole numbers named like a count (``n_...``)."""
    if pd.api.types.is_bool_dtype(values):
        return False
    if pd.api.types.is_integer_dtype(values):
        return True
    if not pd.api.types.is_float_dtype(values) or not str(name).startswith("n_"):
        return False
    finite = values.dropna().to_numpy(dtype=float)
    return bool(np.all(finite == np.round(finite)))


def formatted(frame: pd.DataFrame, digits: int = 4) -> pd.DataFrame:
    """The frame as text, column by column: counts as integers, other numbers to ``digits`` decimals.

    Formatting happens before any transpose, so a transposed table keeps its counts
    whole (``frame.T.round(4)`` cannot: a transposed column mixes counts and measures).

    Examples
    --------
    >>> import pandas as pd
    >>> formatted(pd.DataFrame({"n_queries": [30.0], "AP": [0.123456], "system": ["a"]})).iloc[0].tolist()
    ['30', '0.1235', 'a']
    """
    out = {}
    for name in frame.columns:
        values = frame[name]
        if _is_count(name, values):
            out[name] = ["" if pd.isna(v) else str(int(v)) for v in values]
        elif pd.api.types.is_float_dtype(values):
            out[name] = ["" if pd.isna(v) else f"{float(v):.{digits}f}" for v in values]
        else:
            out[name] = ["" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v) for v in values]
    return pd.DataFrame(out, index=frame.index, columns=frame.columns)


def html_table(
    frame: pd.DataFrame,
    caption: str = "",
    notes=(),
    *,
    transpose: bool = False,
    index: bool | None = None,
    escape_caption: bool = True,
) -> str:
    """A table with integer counts and 4-decimal measures, a caption and notes; every string escaped.

    Parameters
    ----------
    frame : DataFrame
    caption : str, default ''
        Shown above the table (escaped unless ``escape_caption=False``).
    notes : iterable of str
        Shown under it, small.
    transpose : bool, default False
        Fields as rows (formatted first, so that counts stay whole).
    index : bool, optional
        Show the index (default: when it is not a plain range, or when transposed).
    """
    shown = formatted(frame)
    if transpose:
        shown = shown.T
    if index is None:
        index = transpose or not isinstance(frame.index, pd.RangeIndex)
    body = shown.to_html(index=index, escape=True, na_rep="", classes="rankviz-table", border=0)
    cap = (html.escape(caption) if escape_caption else caption) if caption else ""
    head = f"<p><b>{cap}</b></p>" if cap else ""
    extra = "".join(f"<p><small>{html.escape(n)}</small></p>" for n in notes)
    return f"<div>{head}{body}{extra}</div>"
