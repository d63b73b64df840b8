"""The look every plot shares: palette, colours, the Axes check, label shortening, keyword merging.

matplotlib and seaborn are imported inside the functions that need them, so that
the ``prepare_*`` steps of the plot modules run without loading either.
"""

from __future__ import annotations

import functools
import importlib
import inspect
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
]

#: seaborn's colour-blind safe palette, asked for explicitly (no global theme is set)
PALETTE = "colorblind"
#: positions in :data:`PALETTE`: blue and orange are the colour-blind safe pair for
#: better/worse; grey is neutral
WIN, LOSS, TIE = 0, 1, 7
#: longest query label, in characters
LABEL_WIDTH = 50


def colors(n: int) -> list:
    """``n`` colours of :data:`PALETTE` (at least one)."""
    import seaborn as sns

    return sns.color_palette(PALETTE, max(n, 1))


def color(index: int):
    """One colour of :data:`PALETTE` by position (:data:`WIN`, :data:`LOSS`, :data:`TIE`)."""
    import seaborn as sns

    return sns.color_palette(PALETTE)[index]


def axes(ax, caller: str):
    """``ax`` itself, or the current Axes when ``ax`` is None.

    Raises
    ------
    InputError
        When ``ax`` is neither None nor a matplotlib Axes.
    """
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    if ax is None:
        return plt.gca()
    if not isinstance(ax, Axes):
        raise InputError(f"The 'ax' parameter of {caller} must be a matplotlib Axes or None. Got {type(ax).__name__} instead.")
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
    names.update(p.name for p in parameters if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and p.name not in ("self", "data"))
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
