"""The significance table: systems x measures, with the systems each one beats.

:class:`SignificanceTable` is what :func:`rankviz.table` (``df.rank.table``) and
:func:`rankviz.stats.significance_table` return. Each cell is a system's mean
(optionally with its confidence interval); its superscript letters name the
systems it is significantly better than, and the best mean of each column is
marked. It renders for Jupyter (``_repr_html_``), LaTeX (booktabs) and markdown,
and gives its numbers tidy (``to_frame``). System and measure names are user
strings: escaped in HTML, LaTeX and markdown.
"""

from __future__ import annotations

import dataclasses
import html
from typing import Any, cast

import numpy as np
import pandas as pd

from .._errors import InputError

__all__ = ["SignificanceTable", "system_labels", "latex_escape", "markdown_escape"]

_TEST_NAMES = {
    "tukey": "randomized Tukey HSD (paired)",
    "randomization": "paired randomization test",
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
}
_CORRECTION_NAMES = {"holm": "Holm", "bh": "Benjamini-Hochberg", None: "no"}

_LATEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}


#: characters that are markup in a GitHub or Jupyter markdown table cell (``$``: math; ``~``: strikethrough)
_MARKDOWN_SPECIALS = frozenset("\\`*_[]|#$~")


def system_labels(n: int) -> tuple[str, ...]:
    """Labels of ``n`` systems in order: a, b, ..., z, aa, ab, ...

    >>> system_labels(3), system_labels(28)[-2:]
    (('a', 'b', 'c'), ('aa', 'ab'))
    """
    labels = []
    for i in range(n):
        text, k = "", i
        while k >= 0:
            text = chr(ord("a") + k % 26) + text
            k = k // 26 - 1
        labels.append(text)
    return tuple(labels)


def latex_escape(text) -> str:
    r"""Escape a user string for LaTeX text mode.

    >>> print(latex_escape("bm25_v2 & 100% <script>"))
    bm25\_v2 \& 100\% \textless{}script\textgreater{}
    """
    return "".join(_LATEX.get(c, c) for c in str(text))


def markdown_escape(text) -> str:
    r"""Escape a user string for a markdown table cell: it stays one cell, shown literally.

    HTML specials become entities, markup characters (``|`` included, which would end
    the cell, and ``$``, which GitHub and Jupyter would read as math) get a backslash,
    and every line break (``\n``, ``\r``, blank lines, Unicode separators), which would
    end the table row, becomes ``<br>``.

    >>> print(markdown_escape("a|b *x* $5 <script>"))
    a\|b \*x\* \$5 &lt;script&gt;
    >>> print(markdown_escape("dense\nv2\n\nfinal"))
    dense<br>v2<br><br>final
    """
    escaped = html.escape(str(text), quote=False)
    marked = "".join("\\" + c if c in _MARKDOWN_SPECIALS else c for c in escaped)
    lines = (marked + "x").splitlines()  # the "x": a trailing line break becomes a <br> too
    return "<br>".join(lines)[:-1]


@dataclasses.dataclass(frozen=True, repr=False)
class SignificanceTable:
    """Means of every system x measure, with the systems each is significantly better than.

    Attributes
    ----------
    systems : tuple of str
        The rows, in order; ``labels`` names them a, b, c, ...
    measures : tuple of str
    means, ci_low, ci_high : DataFrame
        System x measure (the intervals are None without a confidence level).
    pairs : DataFrame
        Every unordered pair per measure: ``measure``, ``system``, ``other``,
        ``difference`` (system - other), ``p_value``, ``p_corrected``,
        ``significant``, ``better`` (see :func:`rankviz.stats.all_pairs`).
    test, correction, alpha, confidence_level, n_resamples, rng, n_queries
        How it was computed (``correction`` is None for Tukey's HSD).
    exact : tuple of str
        Measures (Tukey) or pairs (randomization) whose p-values were enumerated exactly.
    notes : tuple of str
    tiers : DataFrame, optional
        A suite's table only (``rankviz.table`` of a suite): system x macro-average column, the tier
        letters of :func:`rankviz.ranks` (systems sharing a letter are not separated); shown as a
        ``tier`` column after each macro-average column.
    datasets : tuple of str
        A suite's table only: its datasets (each measure's columns are one per dataset, then the macro average).
    """

    systems: tuple[str, ...]
    measures: tuple[str, ...]
    labels: tuple[str, ...]
    means: pd.DataFrame
    ci_low: pd.DataFrame | None
    ci_high: pd.DataFrame | None
    pairs: pd.DataFrame
    test: str
    correction: str | None
    alpha: float
    confidence_level: float | None
    n_resamples: int
    rng: int | None
    n_queries: int
    exact: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    tiers: pd.DataFrame | None = None
    datasets: tuple[str, ...] = ()

    # ------------------------------------------------------------------ reading
    def better_than(self, system: str, measure: str) -> tuple[str, ...]:
        """The systems that ``system`` is significantly better than on ``measure``, in row order."""
        self._check(system, measure)
        p = self.pairs
        rows = p[(p["measure"] == measure) & p["significant"] & (p["better"] == system)]
        losers = set(np.where(rows["system"] == system, rows["other"], rows["system"]))
        return tuple(s for s in self.systems if s in losers)

    def letters(self, system: str, measure: str) -> str:
        """The labels of the systems ``system`` beats on ``measure`` (comma-separated beyond 26 systems)."""
        label = dict(zip(self.systems, self.labels))
        parts = [label[s] for s in self.better_than(system, measure)]
        return ("," if len(self.systems) > 26 else "").join(parts)

    def best(self, measure: str) -> tuple[str, ...]:
        """The system(s) with the highest mean on ``measure``."""
        column = self.means[measure]
        return tuple(s for s in self.systems if column[s] >= column.max() - 1e-12 * max(1.0, abs(column.max())))

    def _check(self, system, measure) -> None:
        if system not in self.systems:
            raise KeyError(f"Unknown system {system!r}; the table has {list(self.systems)}.")
        if measure not in self.measures:
            raise KeyError(f"Unknown measure {measure!r}; the table has {list(self.measures)}.")

    def to_frame(self) -> pd.DataFrame:
        """Tidy: one row per system x measure (``better_than`` missing), then one per significant pair.

        Columns ``system``, ``label``, ``measure``, ``mean``, ``ci_low``, ``ci_high``,
        ``better_than``, ``difference`` (system - better_than), ``p_value``,
        ``p_corrected``, ``test``, ``correction``.
        """
        label = dict(zip(self.systems, self.labels))
        rows: list[dict[str, Any]] = []
        for s in self.systems:
            for m in self.measures:
                rows.append(
                    {
                        "system": s,
                        "measure": m,
                        "better_than": None,
                        "difference": np.nan,
                        "p_value": np.nan,
                        "p_corrected": np.nan,
                    }
                )
        won = self.pairs[self.pairs["significant"]]
        r: Any  # a row of the pairs table (pandas-stubs types its fields as any scalar)
        for r in won.itertuples(index=False):
            loser = r.other if r.better == r.system else r.system
            rows.append(
                {
                    "system": r.better,
                    "measure": r.measure,
                    "better_than": loser,
                    "difference": abs(r.difference),
                    "p_value": r.p_value,
                    "p_corrected": r.p_corrected,
                }
            )
        frame = pd.DataFrame(rows)
        frame.insert(1, "label", [label[s] for s in frame["system"]])
        frame.insert(3, "mean", [self.means.loc[s, m] for s, m in zip(frame["system"], frame["measure"])])
        for name, source in (("ci_low", self.ci_low), ("ci_high", self.ci_high)):
            frame.insert(
                cast(int, frame.columns.get_loc("better_than")),  # unique column names: an int
                name,
                np.nan if source is None else [source.loc[s, m] for s, m in zip(frame["system"], frame["measure"])],
            )
        for name in ("system", "label", "measure", "better_than"):
            frame[name] = frame[name].astype("str")
        frame = frame.assign(test=self.test, correction=str(self.correction))
        if self.tiers is not None:  # a suite's table: the tier of the system on a macro-average column
            tiers = self.tiers
            frame["tier"] = [
                str(tiers.loc[s, m]) if m in tiers.columns else None for s, m in zip(frame["system"], frame["measure"])
            ]
        return frame

    def _tier(self, system: str, measure: str) -> str | None:
        """The tier letters shown after ``measure``'s column (None: no tier column follows it)."""
        if self.tiers is None or measure not in self.tiers.columns:
            return None
        return str(self.tiers.loc[system, measure])

    # ------------------------------------------------------------------ rendering
    def _cells(self, digits: int, ci: bool):
        """Per system and measure: (mean text, letters, is best, interval text or '')."""
        if ci and self.ci_low is None:
            raise InputError(
                "This table has no intervals (it was made with confidence_level=None); call with ci=False."
            )
        low, high = cast(pd.DataFrame, self.ci_low), cast(pd.DataFrame, self.ci_high)  # set whenever ci (checked above)
        out = {}
        for m in self.measures:
            best = set(self.best(m))
            for s in self.systems:
                # the frames hold floats (pandas-stubs types a cell as any scalar, bytes included)
                interval = (
                    f"[{cast(float, low.loc[s, m]):.{digits}f}, {cast(float, high.loc[s, m]):.{digits}f}]" if ci else ""
                )
                mean = cast(float, self.means.loc[s, m])
                out[s, m] = (f"{mean:.{digits}f}", self.letters(s, m), s in best, interval)
        return out

    def description(self, *, ci: bool | None = None) -> str:
        """One sentence saying how the letters were decided (plain text).

        ``ci`` says whether the intervals are shown (default: whether the table has
        them); the sentence mentions intervals only then.
        """
        shown = self.ci_low is not None if ci is None else ci
        if self.datasets:
            return self._suite_description(shown)
        test = _TEST_NAMES[self.test]
        n_pairs = len(self.systems) * (len(self.systems) - 1) // 2
        if self.test in ("tukey", "randomization"):
            every = bool(self.exact) if self.test == "tukey" else len(self.exact) == n_pairs
            how = f"exact {test}" if every else f"{test}, {self.n_resamples} random permutations"
        else:
            how = test
        if self.test != "tukey":
            how += f", {_CORRECTION_NAMES[self.correction]} correction over the pairs of each measure"
        intervals = (
            f"; intervals are {self.confidence_level:.0%} bootstrap intervals"
            if shown and self.confidence_level
            else ""
        )
        return (
            f"Mean over {self.n_queries} queries; superscripts name the systems each one is significantly better "
            f"than ({how}, alpha = {self.alpha:g}); the best per column is in bold{intervals}."
        )

    def _suite_description(self, shown: bool) -> str:
        test = _TEST_NAMES[self.test]
        if self.test != "tukey":
            test += f", {_CORRECTION_NAMES[self.correction]} correction over the pairs of each column"
        intervals = (
            f"; intervals are {self.confidence_level:.0%} bootstrap intervals (on the macro average: stratified percentile)"
            if shown and self.confidence_level
            else ""
        )
        return (
            f"A suite of {len(self.datasets)} datasets ({self.n_queries} queries): each dataset's mean, its superscripts "
            f"naming the systems each one is significantly better than on that dataset ({test}, alpha = "
            f"{self.alpha:g}); then the macro average (the mean of the dataset means), its superscripts from the "
            f"{1 - self.alpha:.0%} simultaneous band of the paired stratified bootstrap (rankviz.ranks), and its tier "
            f"letters (systems sharing a letter are not separated); the best per column is in bold{intervals}."
        )

    def __repr__(self) -> str:
        cells = self._cells(4, False)
        shown = pd.DataFrame(
            {
                m: [f"{cells[s, m][0]}{'*' if cells[s, m][2] else ' '} {cells[s, m][1]}".rstrip() for s in self.systems]
                for m in self.measures
            },
            index=[f"({label}) {s}" for label, s in zip(self.labels, self.systems)],
        )
        for m in self.measures:
            if self._tier(self.systems[0], m) is not None:  # a suite's macro-average column: its tiers beside it
                at = cast(int, shown.columns.get_loc(m)) + 1  # unique column names: an int
                shown.insert(at, f"tier ({m})", [self._tier(s, m) for s in self.systems])
        head = f"SignificanceTable: {_TEST_NAMES[self.test]}, correction={self.correction}, alpha={self.alpha:g}, rng={self.rng}"
        foot = "* best in column; letters: significantly better than the systems with those labels"
        with pd.option_context("display.width", 120, "display.max_columns", 20):
            return f"{head}\n{shown.to_string()}\n{foot}"

    def _repr_html_(self) -> str:
        ci = self.ci_low is not None
        cells = self._cells(4, ci)
        head = "".join(
            f"<th>{html.escape(m)}</th>" + ("<th>tier</th>" if self._tier(self.systems[0], m) is not None else "")
            for m in self.measures
        )
        body = []
        for label, s in zip(self.labels, self.systems):
            tds = []
            for m in self.measures:
                mean, letters, best, interval = cells[s, m]
                text = f"<b>{mean}</b>" if best else mean
                text += f"<sup>{letters}</sup>" if letters else ""
                text += f"<br><small>{interval}</small>" if interval else ""
                tds.append(f'<td style="text-align:right">{text}</td>')
                tier = self._tier(s, m)
                if tier is not None:
                    tds.append(f'<td style="text-align:center">{html.escape(tier)}</td>')
            body.append(f"<tr><td>{label}</td><td>{html.escape(s)}</td>{''.join(tds)}</tr>")
        notes = "".join(f"<p><small>{html.escape(n)}</small></p>" for n in self.notes)
        return (
            f"<div><p>{html.escape(self.description())}</p><table><thead><tr><th></th><th>system</th>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>{notes}</div>"
        )

    def to_markdown(self, *, ci: bool = False, digits: int = 3) -> str:
        """A markdown (pipe) table: bold best, ``<sup>`` letters, optional intervals, then the description."""
        cells = self._cells(digits, ci)
        tiered = {m for m in self.measures if self._tier(self.systems[0], m) is not None}
        lines = [
            "|  | system | "
            + " | ".join(markdown_escape(m) + (" | tier" if m in tiered else "") for m in self.measures)
            + " |",
            "|---|---|" + "".join("---:|" + (":---:|" if m in tiered else "") for m in self.measures),
        ]
        for label, s in zip(self.labels, self.systems):
            row = []
            for m in self.measures:
                mean, letters, best, interval = cells[s, m]
                text = (f"**{mean}**" if best else mean) + (f"<sup>{letters}</sup>" if letters else "")
                row.append(f"{text} {interval}".rstrip())
                if m in tiered:
                    row.append(markdown_escape(self._tier(s, m)))
            lines.append(f"| {label} | {markdown_escape(s)} | " + " | ".join(row) + " |")
        return "\n".join(lines) + "\n\n" + markdown_escape(self.description(ci=ci)) + "\n"

    def to_latex(
        self,
        *,
        ci: bool = False,
        digits: int = 3,
        caption: str | None = None,
        label: str | None = None,
        standalone: bool = False,
    ) -> str:
        r"""A booktabs table (``\usepackage{booktabs}``): bold best, superscript letters, optional intervals.

        Parameters
        ----------
        ci : bool, default False
            Show each mean's interval under it (small).
        digits : int, default 3
        caption : str, optional
            LaTeX source of the caption (not escaped); by default the description,
            escaped.
        label : str, optional
            A ``\label{...}`` for the table.
        standalone : bool, default False
            A whole document (``\documentclass{article}`` with booktabs) that compiles as is.
        """
        cells = self._cells(digits, ci)
        lines = [
            r"\begin{table}[t]",
            r"\centering",
            r"\caption{" + (caption if caption is not None else latex_escape(self.description(ci=ci))) + "}",
        ]
        if label:
            lines.append(r"\label{" + label + "}")
        tiered = {m for m in self.measures if self._tier(self.systems[0], m) is not None}
        spec = "".join("r" + ("c" if m in tiered else "") for m in self.measures)
        lines += [r"\begin{tabular}{ll" + spec + "}", r"\toprule"]
        heads = (latex_escape(m) + (" & Tier" if m in tiered else "") for m in self.measures)
        lines.append(" & System & " + " & ".join(heads) + r" \\")
        lines.append(r"\midrule")
        for tag, s in zip(self.labels, self.systems):
            row = []
            for m in self.measures:
                mean, letters, best, interval = cells[s, m]
                text = (r"\textbf{" + mean + "}" if best else mean) + (
                    r"$^{\mathrm{" + letters + "}}$" if letters else ""
                )
                row.append(text + (r" {\scriptsize " + interval + "}" if interval else ""))
                if m in tiered:
                    row.append(latex_escape(self._tier(s, m)))
            lines.append(f"({tag}) & {latex_escape(s)} & " + " & ".join(row) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
        text = "\n".join(lines) + "\n"
        if standalone:
            text = "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n" + text + "\\end{document}\n"
        return text
