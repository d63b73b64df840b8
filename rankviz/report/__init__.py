"""Rendered notebooks and one-file HTML reports.

* :func:`render_notebooks` executes every notebook of a folder (nbclient) and writes
  each as self-contained HTML (plots embedded as PNG data URIs, no external
  scripts) plus an ``index.html`` linking them: the main job of the README.
* :func:`build_report` executes the parameterised report notebook shipped in
  ``rankviz/report/templates/report.ipynb`` on the user's TREC files and writes one
  shareable HTML file (code hidden) that reads the same for 1 run as for 50: a
  short title, a table of contents, the summary first (the significance table, the
  zero problem), overview plots, the comparison against the first run, and one
  collapsed section per system (its distributions and worst queries with text);
  see :mod:`rankviz.report.sections`.

User-supplied strings (run names, query text) only reach the HTML through
pandas' ``to_html`` (which escapes), matplotlib images, or :func:`html.escape`.
"""

from .build import NotebookError, build_report, execute_notebook, notebook_to_html, render_notebooks

__all__ = ["render_notebooks", "build_report", "execute_notebook", "notebook_to_html", "NotebookError"]
