"""The pieces of ``rankviz report``'s page: title, contents, sections, collapsed per-system detail.

The report notebook (``rankviz/report/templates/report.ipynb``) computes with the public
API and puts its results on the page with these functions, so that the page reads
the same for 1 run as for 50: a short title, a table of contents, the summary
first (the significance table and the zero problem, one row per system), overview
plots whose size does not depend on the number of runs, and one collapsed
``<details>`` section per system. Every user string (run names, query texts, the
title) is escaped here or by :func:`rankviz.stats.results.html_table`.
"""

from __future__ import annotations

import html

import pandas as pd

from ..stats.results import html_table

__all__ = [
    "title_block",
    "contents",
    "heading",
    "details",
    "system_anchor",
    "system_summary",
    "comparison_overview",
    "failed_queries",
    "query_order",
    "significance_overview",
    "resampling_floor",
    "failure_slices_table",
    "STYLE",
]

#: the report's own CSS: compact tables, collapsible sections that show they can open
STYLE = (
    "<style>"
    ".rankviz-report-toc{columns:2;max-width:44rem;margin:0 0 1rem 0}"
    ".rankviz-report details{border:1px solid #ddd;border-radius:4px;margin:4px 0;padding:2px 8px}"
    ".rankviz-report details>summary{cursor:pointer;padding:3px 0}"
    ".rankviz-report details[open]>summary{border-bottom:1px solid #eee;margin-bottom:6px}"
    ".rankviz-report .rankviz-subtitle{color:#555;margin-top:-0.4rem}"
    ".rankviz-report .rankviz-systems{line-height:1.8}"
    "</style>"
)


def title_block(title: str, subtitle: str, settings: str) -> str:
    """The short title, one line saying what was evaluated, and the settings in small print."""
    return (
        f'<div class="rankviz-report">{STYLE}<h1>{html.escape(title)}</h1>'
        f'<p class="rankviz-subtitle">{html.escape(subtitle)}</p><p><small>{html.escape(settings)}</small></p></div>'
    )


def contents(entries, systems=()) -> str:
    """A table of contents: (anchor, label) pairs, then every system's detail as a link."""
    items = "".join(
        f'<li><a href="#{html.escape(a, quote=True)}">{html.escape(label)}</a></li>' for a, label in entries
    )
    links = ""
    if systems:
        links = (
            '<p class="rankviz-systems"><small>Systems: '
            + " &middot; ".join(
                f'<a href="#{system_anchor(i)}">{html.escape(name)}</a>' for i, name in enumerate(systems)
            )
            + "</small></p>"
        )
    return f'<div class="rankviz-report"><h2 id="contents">Contents</h2><ol class="rankviz-report-toc">{items}</ol>{links}</div>'


def heading(anchor: str, text: str, intro: str = "") -> str:
    """A section heading with an anchor the contents link to, and a sentence saying how to read it."""
    lead = f"<p>{html.escape(intro)}</p>" if intro else ""
    return (
        f'<div class="rankviz-report"><h2 id="{html.escape(anchor, quote=True)}">{html.escape(text)}</h2>{lead}</div>'
    )


def system_anchor(index: int) -> str:
    """The anchor of the ``index``-th system's detail (by position: names may hold any character)."""
    return f"system-{int(index) + 1}"


def details(summary: str, body: str, *, anchor: str | None = None, open: bool = False) -> str:
    """A collapsed section: ``summary`` is HTML the caller escaped, ``body`` HTML."""
    ident = f' id="{html.escape(anchor, quote=True)}"' if anchor else ""
    return f'<div class="rankviz-report"><details{ident}{" open" if open else ""}><summary>{summary}</summary>{body}</details></div>'


def system_summary(name: str, means: pd.Series, baseline: bool = False) -> str:
    """The one line a collapsed system shows: its name and its means (escaped HTML)."""
    values = " &middot; ".join(f"{html.escape(str(m))} {float(v):.4f}" for m, v in means.items())
    tag = " <small>(baseline)</small>" if baseline else ""
    return f"<b>{html.escape(name)}</b>{tag} &mdash; {values}"


def comparison_overview(table: pd.DataFrame, baseline: str, alpha: float = 0.05) -> str:
    """How many systems are significantly better or worse than the baseline, per measure, as a small table.

    Parameters
    ----------
    table : DataFrame
        :attr:`rankviz.stats.Comparison.table` (``system``, ``measure``, ``difference``, ``p_corrected``).
    """
    rows = []
    for measure, part in table.groupby("measure", sort=False):
        significant = part["p_corrected"] < alpha
        rows.append(
            {
                "measure": measure,
                "n_better": int((significant & (part["difference"] > 0)).sum()),
                "n_worse": int((significant & (part["difference"] < 0)).sum()),
                "n_not_significant": int((~significant).sum()),
                "largest_gain": _extreme(part, part["difference"] > 0, "idxmax", "no system is above"),
                "largest_loss": _extreme(part, part["difference"] < 0, "idxmin", "no system is below"),
            }
        )
    caption = f"Systems against {baseline}: significantly better or worse after correction (alpha = {alpha:g})"
    return html_table(pd.DataFrame(rows), caption, index=False)


def _extreme(part: pd.DataFrame, side: pd.Series, pick: str, none: str) -> str:
    """The largest gain (or loss) with its system, '+0.0523 (dense)', or ``none`` when no system is on that side."""
    if not side.any():
        return none
    row = part.loc[getattr(part.loc[side, "difference"], pick)()]
    return f"{float(row['difference']):+.4f} ({row['system']})"


def query_order(ids: pd.Series) -> pd.Series:
    """A sort key for query ids: numbers when every id is a whole number (TREC topics 1, 2, ..., 10), else the text.

    Use it as ``frame.sort_values("query_id", key=query_order)``.

    >>> query_order(pd.Series(["11", "4", "5"])).tolist(), query_order(pd.Series(["q11", "q4"])).tolist()
    ([11, 4, 5], ['q11', 'q4'])
    """
    text = ids.astype(str)
    if len(text) and text.str.fullmatch(r"[0-9]+").all():
        return text.astype("int64")
    return text


def failed_queries(per_query: pd.DataFrame, measure: str, queries: pd.DataFrame | None = None) -> str:
    """The queries some system scores 0 on ``measure``, as a table: which systems fail each, and its text.

    One row per query with a zero, the queries most systems fail first (then by id,
    numerically for numeric ids); ``failed_by`` names the systems (or counts them
    beyond five). Empty when no system has a zero.
    """
    zero = per_query[per_query[measure] == 0]
    n_systems = per_query["system"].nunique()
    if zero.empty:
        return f"<p>No query has {html.escape(measure)} = 0 for any system.</p>"
    rows = []
    for query_id, part in zero.groupby("query_id", sort=False):
        names = [str(s) for s in part["system"]]
        failed_by = ", ".join(names) if len(names) <= 5 else f"{len(names)} of {n_systems} systems"
        rows.append({"query_id": query_id, "n_systems": len(names), "failed_by": failed_by})
    frame = pd.DataFrame(rows)
    frame = frame.sort_values("query_id", key=query_order, kind="mergesort").sort_values(
        "n_systems", ascending=False, kind="mergesort"
    )
    if queries is not None:
        frame = frame.merge(queries[["query_id", "text"]], on="query_id", how="left")
    if n_systems == 1:
        frame = frame.drop(columns=["n_systems", "failed_by"])
    caption = f"{len(frame)} queries with {measure} = 0 for at least one system"
    return html_table(frame.reset_index(drop=True), caption, index=False)


def significance_overview(table) -> str:
    """A :class:`~rankviz.stats.table_exports.SignificanceTable` for many systems: ranked, with counts instead of letters.

    Letters stop being readable beyond a dozen systems (``a,d,j,k,n,q,...``). Here
    the rows are sorted by the first measure, best first, and each mean carries the
    number of systems it is significantly better than (``>12``) and its interval;
    the best mean per column is bold. The letters table itself stays available (the
    report puts it in a collapsed section).
    """
    first = table.measures[0]
    order = sorted(table.systems, key=lambda s: (-float(table.means.loc[s, first]), s))
    head = "".join(f'<th style="text-align:right">{html.escape(m)}</th>' for m in table.measures)
    rows = []
    for rank, system in enumerate(order, start=1):
        cells = []
        for m in table.measures:
            mean = f"{float(table.means.loc[system, m]):.4f}"
            text = f"<b>{mean}</b>" if system in table.best(m) else mean
            beats = len(table.better_than(system, m))
            text += f"<sup>&gt;{beats}</sup>" if beats else ""
            if table.ci_low is not None:
                text += f"<br><small>[{float(table.ci_low.loc[system, m]):.4f}, {float(table.ci_high.loc[system, m]):.4f}]</small>"
            cells.append(f'<td style="text-align:right">{text}</td>')
        rows.append(f"<tr><td>{rank}</td><td>{html.escape(system)}</td>{''.join(cells)}</tr>")
    test = {"tukey": "randomized Tukey HSD for paired data"}.get(
        table.test, f"{table.test} test, {table.correction} correction"
    )
    ci = f"; under each mean its {table.confidence_level:.0%} bootstrap interval" if table.ci_low is not None else ""
    lead = (
        f"{len(order)} systems ranked by {html.escape(first)}, mean over {table.n_queries} queries. A superscript &gt;n: "
        f"significantly better than n other systems on that measure ({html.escape(test)}, alpha = {table.alpha:g}); "
        f"the best mean per column is bold{ci}."
    )
    return (
        f'<div class="rankviz-report"><p>{lead}</p><table class="rankviz-table"><thead><tr><th></th><th>system</th>{head}'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def resampling_floor(n_resamples: int, n_tests: int, alpha: float = 0.05) -> str:
    """A sentence when no randomization p-value can pass ``alpha`` after Holm over ``n_tests`` (else '')."""
    floor = n_tests / (n_resamples + 1)
    if floor <= alpha:
        return ""
    return (
        f"With {n_resamples} resamples the smallest randomization p-value is 1/{n_resamples + 1}; over {n_tests} tests "
        f"Holm's correction cannot bring it below {alpha:g}, so nothing can be significant here. Run the report with "
        f"more resamples (--n-resamples {int(n_tests / alpha) + 1} or more)."
    )


def failure_slices_table(slices: pd.DataFrame, n: int = 8, alpha: float = 0.05) -> str:
    """The strongest ``n`` slices of :func:`rankviz.failure_slices` as an escaped table, or a sentence when none.

    Parameters
    ----------
    slices : DataFrame
        The output of :func:`rankviz.failure_slices`.
    """
    meta = slices.attrs.get("rankviz", {})
    tested = meta.get("n_candidates", 0)
    significant = int((slices["q_value"] < alpha).sum()) if len(slices) else 0
    lead = (
        f"{meta.get('n_failures', 0)} of {meta.get('n_queries', 0)} queries fail; {tested} slices tested, "
        f"{significant} over-represented among the failures at q &lt; {alpha:g} (Fisher's exact test, "
        "Benjamini-Hochberg across every slice)."
    )
    if not len(slices):
        return f'<div class="rankviz-report"><p>{lead}</p></div>'
    shown = slices.head(n)[["attribute", "value", "n", "failure_share", "failure_share_outside", "lift", "q_value"]]
    return f'<div class="rankviz-report"><p>{lead}</p></div>' + html_table(
        shown, f"The {len(shown)} strongest slices", index=False
    )
