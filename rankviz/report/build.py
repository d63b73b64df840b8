"""Executing notebooks, rendering them to shareable HTML, and building the one-file report."""

from __future__ import annotations

import html
import os
import re
import sys
import time
from importlib import resources
from pathlib import Path

__all__ = ["render_notebooks", "build_report", "execute_notebook", "notebook_to_html", "NotebookError"]

_EXTERNAL_SCRIPT = re.compile(r"<script[^>]*\bsrc=[\"']https?://[^>]*>\s*</script>", re.IGNORECASE)
#: nbconvert's loader of mermaid.js from a CDN (only useful when a notebook has mermaid diagrams)
_MERMAID_LOADER = re.compile(
    r"<script type=\"module\">(?:(?!</script>).)*?cdnjs\.cloudflare\.com/ajax/libs/mermaid.*?</script>", re.S
)


def _progress(message: str, quiet: bool) -> None:
    if not quiet:
        print(message, file=sys.stderr, flush=True)


class NotebookError(RuntimeError):
    """A notebook failed while it ran; the message names the notebook, the cell and the error in one line."""


def execute_notebook(nb, *, cwd: str | os.PathLike, timeout: int = 600, quiet: bool = True, label: str = ""):
    """Execute a notebook node in ``cwd`` with the current Python's kernel; print per-cell progress unless quiet.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The notebook, executed in place (its outputs are replaced).
    cwd : str or path-like
        The folder the kernel runs in (relative paths in the cells start there).
    timeout : int, default 600
        Seconds a cell may run before the execution stops.
    quiet : bool, default True
        Print nothing; otherwise one progress line per code cell, on stderr.
    label : str, default ''
        The notebook's name in progress lines and error messages.

    Returns
    -------
    nbformat.NotebookNode
        ``nb``, executed.

    Raises
    ------
    NotebookError
        When a cell raises, runs longer than ``timeout`` seconds or kills the kernel
        (the original exception, with the cell's traceback, is its ``__cause__``).

    Examples
    --------
    >>> import nbformat, tempfile
    >>> from rankviz.report import execute_notebook
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")])
    >>> execute_notebook(nb, cwd=tempfile.mkdtemp()).cells[0].outputs[0]["data"]["text/plain"]
    '2'
    """
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(cwd)}},
        allow_errors=False,
        # the kernel's own log (e.g. "running over TCP without encryption", once per kernel) is not the notebook's
        extra_arguments=["--IPKernelApp.log_level=ERROR"],
    )
    code_cells = sum(1 for c in nb.cells if c.cell_type == "code")
    done = {"n": 0}

    def on_cell_execute(cell, cell_index):  # noqa: ARG001 - nbclient hook signature
        if cell.cell_type == "code":
            done["n"] += 1

    def on_cell_executed(cell, cell_index, execute_reply):  # noqa: ARG001 - nbclient hook signature
        if cell.cell_type == "code":
            _progress(f"  {label} cell {done['n']}/{code_cells}", quiet)

    client.on_cell_execute = on_cell_execute
    client.on_cell_executed = on_cell_executed
    where = f"{label or 'notebook'}: code cell {{}} of {code_cells}"
    try:
        with _kernel_env():
            client.execute()
    except CellExecutionError as exc:
        evalue = " ".join(str(exc.evalue).split())
        raise NotebookError(f"{where.format(done['n'])} failed: {exc.ename}: {evalue}") from exc
    except CellTimeoutError as exc:
        raise NotebookError(f"{where.format(done['n'])} ran longer than the timeout ({timeout} s per cell)") from exc
    except DeadKernelError as exc:
        raise NotebookError(f"{where.format(done['n'])}: the kernel died ({exc})") from exc
    return nb


class _kernel_env:
    """Run kernels headless and without user-level IPython startup files."""

    def __enter__(self):
        self._saved = {k: os.environ.get(k) for k in ("MPLBACKEND", "PYDEVD_DISABLE_FILE_VALIDATION")}
        os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
        os.environ["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
        return self

    def __exit__(self, *exc):
        for key, value in self._saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def notebook_to_html(nb, *, hide_code: bool = False, title: str | None = None) -> str:
    """Self-contained HTML of an executed notebook: images inline, no scripts fetched from the internet.

    The notebook node is first made fit to share (:func:`rankviz.report.shared_html.prepare_for_sharing`):
    warnings become styled notes without paths, widgets keep their static snapshot,
    execution timestamps go; the same executed notebook always gives the same bytes.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        An executed notebook; it is modified in place as described above.
    hide_code : bool, default False
        Leave out the code cells' input and the prompts (outputs only).
    title : str, optional
        The page's ``<title>``; by default nbconvert's (the notebook's metadata title).

    Returns
    -------
    str
        The HTML page.

    Examples
    --------
    >>> import nbformat
    >>> from rankviz.report import notebook_to_html
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Results")])
    >>> page = notebook_to_html(nb, title="Results")
    >>> "<title>Results</title>" in page, "<script src=" in page
    (True, False)
    """
    from nbconvert import HTMLExporter

    from .shared_html import prepare_for_sharing

    prepare_for_sharing(nb)
    exporter = HTMLExporter(template_name="lab")
    exporter.exclude_input = hide_code
    exporter.exclude_input_prompt = hide_code
    exporter.exclude_output_prompt = hide_code
    if title:
        nb.metadata["title"] = title
    body, _ = exporter.from_notebook_node(nb)
    if 'class="jp-Mermaid"' not in body:
        body = _MERMAID_LOADER.sub("", body)
    return _EXTERNAL_SCRIPT.sub("", body)


def _title(nb, fallback: str) -> str:
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return fallback


def _read_notebook(path: Path):
    """The notebook at ``path``, checked against nbformat's schema; a damaged one is an InputError naming the file."""
    import nbformat

    from .._errors import InputError

    try:
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
    except RecursionError:
        raise InputError(
            f"{path}: the notebook's JSON is nested too deeply to read (thousands of levels); re-save it from Jupyter."
        ) from None
    except (ValueError, TypeError, KeyError, AttributeError, nbformat.ValidationError) as exc:
        reason = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        raise InputError(
            f"{path}: not a valid Jupyter notebook (nbformat 4): {reason}. Open and re-save it in Jupyter, or "
            "move it out of the folder."
        ) from None
    return nb


def render_notebooks(
    source: str | os.PathLike, output: str | os.PathLike, *, timeout: int = 600, quiet: bool = False
) -> list[Path]:
    """Execute every ``*.ipynb`` in ``source`` (sorted) and write HTML files and an index to ``output``.

    Parameters
    ----------
    source : str or path-like
        The folder of notebooks.
    output : str or path-like
        The folder the HTML files are written to (created if needed).
    timeout : int, default 600
        Seconds a cell may run before that notebook fails.
    quiet : bool, default False
        Print no progress lines.

    Returns
    -------
    list of Path
        The HTML files written, ``index.html`` last.

    Examples
    --------
    >>> import nbformat, os, tempfile
    >>> from rankviz.report import render_notebooks
    >>> source, output = tempfile.mkdtemp(), tempfile.mkdtemp()
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# One"), nbformat.v4.new_code_cell("1 + 1")])
    >>> nbformat.write(nb, os.path.join(source, "one.ipynb"))
    >>> [path.name for path in render_notebooks(source, output, quiet=True)]
    ['one.html', 'index.html']
    """

    from .._core.checks import check_int
    from .._errors import InputError

    check_int(timeout, "timeout", "render_notebooks", low=1)
    source, output = Path(source), Path(output)
    if not source.is_dir():
        raise FileNotFoundError(f"{source}: no such folder")
    notebooks = sorted(source.glob("*.ipynb"))
    if not notebooks:
        raise FileNotFoundError(f"{source}: no notebooks (*.ipynb) found")
    if output.exists() and not output.is_dir():
        raise InputError(f"{output}: is a file; the output must be a folder")
    _check_writable(output / "index.html")
    output.mkdir(parents=True, exist_ok=True)
    written, entries = [], []
    for path in notebooks:
        start = time.perf_counter()
        _progress(f"executing {path.name}", quiet)
        nb = _read_notebook(path)
        execute_notebook(nb, cwd=path.parent, timeout=timeout, quiet=quiet, label=path.stem)
        title = _title(nb, path.stem)
        target = output / f"{path.stem}.html"
        target.write_text(notebook_to_html(nb, title=title), encoding="utf-8")
        written.append(target)
        entries.append((target.name, title, time.perf_counter() - start))
        _progress(f"wrote {target} ({entries[-1][2]:.1f} s)", quiet)
    index = output / "index.html"
    # no timings in the page: the same notebooks give the same bytes
    items = "\n".join(
        f'<li><a href="{html.escape(name, quote=True)}">{html.escape(title)}</a></li>' for name, title, _ in entries
    )
    index.write_text(
        "<!doctype html><html><head><meta charset='utf-8'><title>rankviz notebooks</title>"
        "<style>body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;line-height:1.5}</style>"
        "</head><body><h1>rankviz notebooks</h1><p>Executed on the built-in example "
        "(known-item search over the Python standard library's docstrings). The pages work offline: widgets show "
        "their executed state, the playground's toggles and the explorer's first queries work in the page, and "
        "the rest of their controls need a live Jupyter kernel.</p>"
        f"<ol>{items}</ol></body></html>\n",
        encoding="utf-8",
    )
    written.append(index)
    _progress(f"wrote {index}", quiet)
    return written


def _check_writable(path: Path) -> None:
    """Refuse an output path that is a folder, or whose parent cannot be created or written to."""
    from .._errors import InputError

    if path.is_dir():
        raise InputError(f"{path}: is a folder; give the file to write, e.g. {path / 'report.html'}")
    folder = path.parent
    while not folder.exists():
        folder = folder.parent
    if not folder.is_dir():
        raise InputError(f"{path}: cannot create its folder: {folder} is a file, not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"{path}: cannot write in {folder} (permission denied)")


def _check_output(output, inputs) -> Path:
    """The output path, refused when it is one of the input files (same resolved path or hard link) or unwritable."""
    from .._errors import InputError

    output = Path(output)
    target = output.resolve()
    for given in inputs:
        path = Path(given)
        same = path.resolve() == target
        if not same and target.exists() and path.exists():
            same = os.path.samefile(path, target)
        if same:
            raise InputError(
                f"refusing to write the report to {output}: it is an input file ({given}), which the report would "
                "overwrite; choose another output file (-o)"
            )
    _check_writable(output)
    return output


def _check_report_options(caller: str, *, k, depth, rel, n_resamples, rng, timeout, title) -> None:
    """Every option of :func:`build_report`, checked before any file is read or any notebook runs."""
    from .._core.checks import check_cutoff, check_int
    from .._errors import InputError
    from ..stats.options import StatsOptions

    check_cutoff(k, caller, allow_none=False)
    check_cutoff(depth, caller, name="depth")
    check_int(rel, "rel", caller)
    StatsOptions.resolve(caller, n_resamples=n_resamples, rng=rng)  # the statistics' own checks, for 95% intervals
    check_int(rng, "rng", caller, low=0)
    check_int(timeout, "timeout", caller, low=1)
    if title is not None and not isinstance(title, str):
        raise InputError(f"The 'title' parameter of {caller} must be a str or None. Got {title!r} instead.")


def _read_report_inputs(qrels, runs, topics, measures, depth, quiet) -> list[str]:
    """Read and check every input file (a bad file or an id mismatch is reported here); the run names."""
    from .._errors import InputError
    from ..evaluation import evaluate
    from ..io import read_qrels, read_run, read_topics

    _progress(f"reading qrels {qrels}", quiet)
    judged = read_qrels(qrels)
    names = []
    for path in runs:
        _progress(f"reading run {path}", quiet)
        frame = read_run(path, system=Path(path).name)
        evaluate(frame, measures[:1], judged, depth=depth)  # surfaces id mismatches with their message
        names.append(Path(path).name)
    if len(set(names)) != len(names):
        raise InputError(f"two runs have the same file name ({', '.join(names)}); rename one.")
    if topics is not None:
        read_topics(topics)
    return names


def build_report(
    qrels: str | os.PathLike,
    runs: list[str | os.PathLike],
    *,
    output: str | os.PathLike = "report.html",
    topics: str | os.PathLike | None = None,
    measures: list[str] | None = None,
    k: int = 10,
    depth: int | None = None,
    rel: int = 1,
    n_resamples: int = 10_000,
    rng: int = 0,
    title: str | None = None,
    quiet: bool = False,
    timeout: int = 1200,
) -> Path:
    """Evaluate TREC runs and write one shareable HTML report.

    Everything is checked before the report notebook runs: every option, the
    measure names, the output path (never one of the input files, never inside a
    file) and the files themselves (read, and evaluated once, so that a bad line or
    an id mismatch is reported first); the notebook then re-reads them.

    Parameters
    ----------
    qrels : str or path-like
        The TREC qrels file.
    runs : list of str or path-like
        The TREC run files; each run is named by its file name.
    output : str or path-like, default 'report.html'
        The HTML file to write.
    topics : str or path-like, optional
        A topic file (:func:`rankviz.read_topics`), to show query texts.
    measures : list of str, optional
        The measures to report; by default ``RR@k``, ``nDCG@k``, ``AP``, ``R@100`` (or
        ``R@k`` when ``k`` > 100) and ``P@k``.
    k : int, default 10
        The cutoff of the default measures and of the shown ranked lists.
    depth : int, optional
        Evaluate only the top ``depth`` of each ranked list (all of it by default).
    rel : int, default 1
        The lowest relevance grade counted as relevant.
    n_resamples : int, default 10000
        Bootstrap resamples of the confidence intervals (at least 40).
    rng : int, default 0
        The seed of the bootstrap; the same seed gives the same report.
    title : str, optional
        The report's title; by default ``'Evaluation report'`` (with the run's file
        name for one run).
    quiet : bool, default False
        Print no progress lines.
    timeout : int, default 1200
        Seconds a notebook cell may run.

    Returns
    -------
    Path
        The HTML file written.

    Raises
    ------
    InputError
        For a bad option (``k`` or ``depth`` < 1, ``n_resamples`` below the 40 that a
        95% interval needs, ``rng`` < 0, ...), an output path that is an input or
        cannot be written, two runs with the same file name, or bad file contents
        (:class:`~rankviz.TrecFormatError`).
    FileNotFoundError
        For a missing input file.
    NotebookError
        When the report notebook fails while it runs.

    Examples
    --------
    Every option is checked before a file is read:

    >>> from rankviz.report import build_report
    >>> build_report("qrels.txt", ["bm25.txt"], k=0)
    Traceback (most recent call last):
    ...
    rankviz._errors.InputError: The 'k' parameter of build_report must be an int in the range [1, inf). Got 0 instead.

    A report of two runs (it executes the report notebook, which takes about a minute):

    >>> build_report("qrels.txt", ["bm25.txt", "dense.txt"], output="report.html")  # doctest: +SKIP
    PosixPath('report.html')
    """
    import tempfile

    import nbformat

    from .._errors import InputError
    from ..evaluation.pipeline import with_rel
    from ..measures import parse_measures

    caller = "build_report"
    if not runs:
        raise InputError("report: give at least one run file")
    if isinstance(runs, (str, os.PathLike)):
        runs = [runs]
    _check_report_options(
        caller, k=k, depth=depth, rel=rel, n_resamples=n_resamples, rng=rng, timeout=timeout, title=title
    )
    defaults = [f"RR@{k}", f"nDCG@{k}", "AP", f"R@{max(k, 100)}", f"P@{k}"]
    measures = [m.name for m in with_rel(parse_measures(measures or defaults), rel)]
    output = _check_output(output, [qrels, *runs, *([] if topics is None else [topics])])
    names = _read_report_inputs(qrels, runs, topics, measures, depth, quiet)

    heading = title or ("Evaluation report" if len(names) > 1 else f"Evaluation report: {names[0]}")
    params = {
        "QRELS": str(Path(qrels).resolve()),
        "RUNS": [str(Path(p).resolve()) for p in runs],
        "TOPICS": None if topics is None else str(Path(topics).resolve()),
        "MEASURES": measures,
        "K": int(k),
        "DEPTH": depth,
        "REL": int(rel),
        "N_RESAMPLES": int(n_resamples),
        "RNG": int(rng),
        "TITLE": heading,
    }
    template = resources.files("rankviz.report").joinpath("templates/report.ipynb").read_text(encoding="utf-8")
    nb = nbformat.reads(template, as_version=4)
    for cell in nb.cells:
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            cell.source = "\n".join(f"{key} = {value!r}" for key, value in params.items())
            break
    else:  # pragma: no cover - the shipped template has a parameters cell
        raise RuntimeError("the report template has no cell tagged 'parameters'")
    _progress(f"executing the report notebook ({len(runs)} runs, {len(measures)} measures)", quiet)
    with tempfile.TemporaryDirectory() as tmp:
        execute_notebook(nb, cwd=tmp, timeout=timeout, quiet=quiet, label="report")
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(notebook_to_html(nb, hide_code=True, title=heading), encoding="utf-8")
    _progress(f"wrote {output}", quiet)
    return output
