"""Executed notebooks made fit to share, without a kernel: warnings as notes, widget snapshots, no timestamps."""

from __future__ import annotations

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

from rankviz.report.shared_html import (
    WIDGET_VIEW,
    figure_html,
    note,
    notes_from_stderr,
    prepare_for_sharing,
    scrub_paths,
)

STDERR = (
    "/tmp/ipykernel_4242/1234567.py:1: TiesWarning: summary: score ties can move RR@10 of 'bm25' by up to 0.0012. "
    "See df.rank.ties(...) or pass ties='expected'.\n"
    "  summary = run.rank.summary(k=10, qrels=qrels, rng=0)\n"
)


def test_a_warning_on_stderr_becomes_one_note_without_path_or_source_line():
    notes = notes_from_stderr(STDERR)
    assert len(notes) == 1
    page = notes[0]
    assert 'class="rankviz-note"' in page and "TiesWarning" in page and "ties=&#x27;expected&#x27;" in page
    assert "/tmp" not in page and "ipykernel" not in page and "summary = run.rank" not in page


def test_note_says_what_to_do_and_escapes():
    page = note("bad <id>", category="ClosedWorldWarning")
    assert "&lt;id&gt;" in page and "what to do" in page and "qrels=" in page
    assert "what to do" not in note("something else")
    assert "what to do" not in note("ties move it. See df.rank.ties(...)", category="TiesWarning")


def test_a_long_list_of_findings_is_one_line_and_a_details():
    message = "; ".join(
        f"RR@10 of 'run{i}' is non-zero on only 5 of 30 queries: with so few, no interval holds" for i in range(12)
    )
    page = note(message, category="DegenerateDataWarning")
    # "all 12" lists all 12 (it listed the 11 others), and a part's own "; " inside brackets does not cut it
    assert "(and 11 more like it)" in page and "<summary>all 12</summary>" in page and page.count("<li>") == 12
    cut = note(message.replace("no interval holds", "no interval holds (0.67-0.91 measured; see docs)"))
    assert cut.count("<li>") == 12 and "see docs)</li>" in cut


def test_scrub_paths_keeps_file_names():
    assert scrub_paths("reading /work/shared/data/x/run.txt.gz failed") == "reading run.txt.gz failed"
    assert scrub_paths("no path here: 0.5/1") == "no path here: 0.5/1"


def test_prepare_for_sharing_rewrites_outputs():
    cell = new_code_cell("x", outputs=[
        new_output("stream", name="stderr", text=STDERR),
        new_output("stream", name="stdout", text="kept\n"),
        new_output("display_data", data={WIDGET_VIEW: {"model_id": "abc"}, "text/html": "<b>snap</b>", "text/plain": "W()"}),
        new_output("display_data", data={WIDGET_VIEW: {"model_id": "def"}, "text/plain": "Other()"}),
    ])  # fmt: skip
    cell.metadata["execution"] = {"iopub.execute_input": "2024-01-01T00:00:00Z"}
    nb = new_notebook(cells=[cell], metadata={"widgets": {"state": {}}})
    prepare_for_sharing(nb)
    outputs = nb.cells[0].outputs
    assert "widgets" not in nb.metadata and "execution" not in nb.cells[0].metadata
    assert outputs[0]["output_type"] == "display_data" and "rankviz-note" in outputs[0]["data"]["text/html"]
    assert outputs[1]["text"] == "kept\n"
    assert WIDGET_VIEW not in outputs[2]["data"] and outputs[2]["data"]["text/html"] == "<b>snap</b>"
    assert WIDGET_VIEW in outputs[3]["data"]  # no snapshot: left as it was
    nbformat.validate(nb)


def test_figure_html_is_the_same_bytes_twice():
    plt = pytest.importorskip("matplotlib.pyplot")
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot([0, 1], [1, 0])
    first, second = figure_html(fig, alt="<x>"), figure_html(fig, alt="<x>")
    plt.close(fig)
    assert first == second and first.startswith('<img alt="&lt;x&gt;" src="data:image/png;base64,')
