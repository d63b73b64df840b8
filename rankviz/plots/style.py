"""The look every plot shares: palette, colours, the Axes check, label shortening, keyword merging.

matplotlib and seaborn are imported inside the functions that need them, so that
the ``prepare_*`` steps of the plot modules run without loading either.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import weakref
from functools import cache

from .._errors import InputError

__all__ = [
    "PALETTE",
    "WIN",
    "LOSS",
    "TIE",
    "LABEL_WIDTH",
    "colors",
    "color",
    "axes",
    "shorten",
    "percent",
    "merge",
    "matplotlib_keywords",
    "split_matplotlib_kwargs",
    "literal_text",
    "COLORS",
    "MAX_COLORS",
    "colour_note",
    "grow_figure",
    "legend_outside",
    "LINE_INCHES",
    "text_inches",
]

#: the figures a plot made itself (ax=None with no current Axes): the only ones grow_figure may resize
_OWN_FIGURES: weakref.WeakSet = weakref.WeakSet()

#: seaborn's colour-blind safe palette, asked for explicitly (no global theme is set)
PALETTE = "colorblind"
#: positions in :data:`PALETTE`: blue and orange are the colour-blind safe pair for
#: better/worse; grey is neutral
WIN, LOSS, TIE = 0, 1, 7
#: longest query label, in characters
LABEL_WIDTH = 50
#: colours of the systems, in order: seaborn's ten colour-blind safe colours, then ten more
#: chosen greedily from seaborn's and matplotlib's palettes to be as far as possible (CIE Lab)
#: from every colour before them; no two of the twenty are closer than the closest pair of
#: the first ten (Delta E 20.7)
COLORS = (
    "#0173b2",
    "#de8f05",
    "#029e73",
    "#d55e00",
    "#cc78bc",
    "#ca9161",
    "#fbafe4",
    "#949494",
    "#ece133",
    "#56b4e9",
    "#023eff",
    "#1ac938",
    "#001c7f",
    "#602a00",
    "#5c3655",
    "#b2df8a",
    "#014734",
    "#e7298a",
    "#c44e52",
    "#637939",
)
#: systems beyond this many share colours: system i takes colour i % MAX_COLORS
MAX_COLORS = len(COLORS)
#: height of one line of legend or small text, in inches (8.3 pt font and its spacing)
LINE_INCHES = 0.19


def colors(n: int) -> list:
    """``n`` colours as RGB tuples: distinct up to :data:`MAX_COLORS` (20), then repeating (system i gets colour i % 20).

    The first ten are seaborn's colour-blind safe ``"colorblind"`` palette (:data:`PALETTE`).

    Examples
    --------
    >>> from rankviz.plots.style import colors
    >>> len(colors(3)), len(set(colors(20))), colors(21)[20] == colors(1)[0]
    (3, 20, True)
    """
    from matplotlib.colors import to_rgb

    return [to_rgb(COLORS[i % MAX_COLORS]) for i in range(max(n, 1))]


def colour_note(n: int) -> str:
    """What a legend title adds when colours repeat: '' up to :data:`MAX_COLORS` groups."""
    return "" if n <= MAX_COLORS else f" (colours repeat every {MAX_COLORS})"


def text_inches(texts, size: float = 10.0) -> float:
    """A generous estimate of the width, in inches, of the longest of ``texts`` at ``size`` points.

    Used to reserve room before drawing (the exact width needs a renderer); an average
    character of matplotlib's default sans-serif is about 0.6 of the font size.
    """
    longest = max((len(line) for t in texts for line in str(t).split("\n")), default=0)
    return longest * 0.6 * size / 72.0


def grow_figure(ax, width: float | None = None, height: float | None = None) -> None:
    """Grow the figure holding ``ax`` until the Axes is at least ``width`` x ``height`` inches.

    The plot sizes itself to its content this way: the Axes keeps its place in the
    figure (its fraction of the figure), so growing the figure grows the Axes, and the
    other Axes of the figure keep their proportions. A figure that is already big
    enough is left as it is; a figure is never shrunk. Only a figure the plot made
    itself (:func:`axes` with ``ax=None`` and no current Axes) is grown: a figure the
    caller passed in, or whose Axes is current, keeps the size the caller gave it
    (as seaborn does).
    """
    fig = ax.get_figure(root=True) if _takes_root(ax) else ax.figure
    if fig not in _OWN_FIGURES:  # the caller's figure (ax= given, or their current Axes): its size is theirs
        return
    position = ax.get_position()
    fig_w, fig_h = fig.get_size_inches()
    new_w = max(fig_w, width / position.width) if width and position.width > 0 else fig_w
    new_h = max(fig_h, height / position.height) if height and position.height > 0 else fig_h
    if (new_w, new_h) != (fig_w, fig_h):
        fig.set_size_inches(new_w, new_h)


def _takes_root(ax) -> bool:
    return "root" in inspect.signature(ax.get_figure).parameters


def legend_outside(ax, *, handles=None, title=None, gap: float = 0.02, n_entries: int | None = None, **kwargs):
    """A legend beside the Axes (its top left corner at the Axes' top right), never on the data.

    The figure grows (:func:`grow_figure`) until the legend's entries fit the Axes'
    height; ``gap`` is the space between the Axes and the legend, in Axes widths.
    """
    if n_entries is None:
        n_entries = len(handles) if handles is not None else len(ax.get_legend_handles_labels()[0])
    grow_figure(ax, height=LINE_INCHES * 1.15 * (n_entries + (1 if title else 0)) + 0.3)
    options = {
        "loc": "upper left",
        "bbox_to_anchor": (1 + gap, 1.0),
        "borderaxespad": 0.0,
        "fontsize": "small",
        "title": title,
        "title_fontsize": "small",
        "frameon": False,
    }
    if handles is not None:
        options["handles"] = handles
    return ax.legend(**merge(options, kwargs))


def color(index: int):
    """One colour of :data:`PALETTE` by position (:data:`WIN`, :data:`LOSS`, :data:`TIE`)."""
    import seaborn as sns

    return sns.color_palette(PALETTE)[index]


def axes(ax, caller: str):
    """``ax`` itself; with ``ax=None`` the current Axes, or else a new figure the plot may size to its content.

    Raises
    ------
    InputError
        When ``ax`` is neither None nor a matplotlib Axes.
    """
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    if ax is None:
        if plt.get_fignums() and plt.gcf().axes:
            return plt.gca()  # the caller's current Axes: drawn on, never resized
        ax = plt.gcf().add_subplot() if plt.get_fignums() else plt.figure().add_subplot()
        _OWN_FIGURES.add(ax.figure)
        return ax
    if not isinstance(ax, Axes):
        raise InputError(
            f"The 'ax' parameter of {caller} must be a matplotlib Axes or None. Got {type(ax).__name__} instead."
        )
    return ax


def shorten(text, width: int = LABEL_WIDTH) -> str:
    """One line of at most ``width`` characters, cut at a word boundary where one is near, with '…'.

    Examples
    --------
    >>> from rankviz.plots.style import shorten
    >>> shorten("how do I   sort a list\\nof dicts by a value of the dict", width=20)
    'how do I sort a…'
    >>> shorten("short")
    'short'
    """
    text = " ".join(str(text).split())
    if len(text) <= width:
        return text
    cut = text[: width - 1]
    space = cut.rfind(" ")
    if space >= 0.6 * width:
        cut = cut[:space]
    return cut.rstrip(" ,.;:-") + "…"


def percent(share: float) -> str:
    """A share as a bar label: '<1%' for a small non-zero share, else whole percent.

    Examples
    --------
    >>> from rankviz.plots.style import percent
    >>> percent(0.004), percent(0.0), percent(0.256)
    ('<1%', '0%', '26%')
    """
    return "<1%" if 0 < share < 0.005 else f"{share:.0%}"


def merge(defaults: dict, kwargs: dict) -> dict:
    """The keyword arguments of a plot's one matplotlib call: the caller's win over the plot's defaults."""
    return {**defaults, **kwargs}


@cache
def matplotlib_keywords(call: str, artist: str) -> frozenset:
    """The keyword names ``Axes.<call>`` takes: its own parameters and the properties (and aliases) of ``artist``.

    ``artist`` is a class path under ``matplotlib``, such as ``"patches.Rectangle"``.

    Examples
    --------
    >>> from rankviz.plots.style import matplotlib_keywords
    >>> {"alpha", "lw", "width"} <= matplotlib_keywords("bar", "patches.Rectangle")
    True
    >>> "depth" in matplotlib_keywords("bar", "patches.Rectangle")
    False
    """
    from matplotlib.artist import ArtistInspector
    from matplotlib.axes import Axes

    module, _, name = artist.rpartition(".")
    inspector = ArtistInspector(getattr(importlib.import_module(f"matplotlib.{module}"), name))
    names = set(inspector.get_setters())
    names.update(alias for aliases in inspector.aliasd.values() for alias in aliases)
    parameters = inspect.signature(getattr(Axes, call)).parameters.values()
    names.update(
        p.name for p in parameters if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and p.name not in ("self", "data")
    )
    return frozenset(names)


def split_matplotlib_kwargs(options: dict, call: str, artist: str) -> tuple[dict, dict]:
    """(keywords of ``Axes.<call>``, everything else) from one ``**options``.

    What matplotlib does not know is left, unchanged, for the caller to hand on to the
    function that validates it (``rankviz.evaluate``, ``rankviz.bootstrap``).
    """
    known = matplotlib_keywords(call, artist)
    drawing = {key: value for key, value in options.items() if key in known}
    rest = {key: value for key, value in options.items() if key not in known}
    return drawing, rest


def literal_text(draw):
    """Decorate a ``draw_*`` step: every text it puts on the Axes is shown as written.

    matplotlib reads text between two ``$`` as mathtext: a query text "costs $5 to
    $10" would lose its dollar signs, and invalid math ("prove $\\sum_{i}^{n$")
    would make the figure fail at draw time. Query texts, ids and system names are
    the user's, so parsing is switched off on the Axes' texts (its ticks, labels,
    title, legend, annotations and child axes), not on the rest of the figure.
    """

    @functools.wraps(draw)
    def wrapper(*args, **kwargs):
        from matplotlib.text import Text

        ax = draw(*args, **kwargs)
        for text in ax.findobj(Text):
            text.set_parse_math(False)
        return ax

    return wrapper
