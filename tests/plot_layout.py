"""Where a drawn figure's texts and data sit on the canvas, and which of them collide.

A test helper, not a test module: :func:`collisions` lays a figure out and returns every
pair (text, text) or (text, data artist) whose window extents overlap. Texts are
every visible non-empty Text of the figure (titles, axis labels, tick labels of ticks
in view, annotations, bar labels); a legend counts as one box (its frame), so a
legend over data is a collision too. Data artists are bars and other patches, lines
(their segments and markers, not their bounding boxes), scatter points and line
collections, clipped to their Axes.
"""

from __future__ import annotations

import numpy as np
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.legend import Legend
from matplotlib.patches import Patch
from matplotlib.text import Text

#: overlaps smaller than this many pixels (at the figure's dpi) in either direction are touching, not colliding
TOLERANCE = 1.0


def _boxes_overlap(a, b, tol=TOLERANCE) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > tol and min(a[3], b[3]) - max(a[1], b[1]) > tol


def _extent(bbox) -> tuple[float, float, float, float]:
    return (bbox.x0, bbox.y0, bbox.x1, bbox.y1)


def _tick_in_view(axis, tick) -> bool:
    low, high = sorted(axis.get_view_interval())
    span = (high - low) or 1.0
    return low - 1e-9 * span <= tick.get_loc() <= high + 1e-9 * span


def text_boxes(fig, renderer) -> list[tuple[str, tuple]]:
    """(description, window extent) of every text a reader sees; a legend is one box."""
    legends = [a for a in fig.findobj(Legend) if a.get_visible()]
    in_legend = {id(t) for legend in legends for t in legend.findobj(Text)}
    hidden = set()
    for ax in [a for top in fig.axes for a in (top, *top.child_axes)]:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not _tick_in_view(axis, tick):
                    hidden.update({id(tick.label1), id(tick.label2)})
    boxes = []
    for text in fig.findobj(Text):
        if id(text) in in_legend or id(text) in hidden or not text.get_visible() or not text.get_text().strip():
            continue
        if text.get_alpha() == 0:
            continue
        boxes.append((f"text {text.get_text()!r}", _extent(text.get_window_extent(renderer))))
    for legend in legends:
        boxes.append(("legend", _extent(legend.get_window_extent(renderer))))
    return boxes


def _clip(box, ax_box):
    x0, y0, x1, y1 = max(box[0], ax_box[0]), max(box[1], ax_box[1]), min(box[2], ax_box[2]), min(box[3], ax_box[3])
    return (x0, y0, x1, y1) if x0 < x1 and y0 < y1 else None


def _segment_hits_box(p, q, box) -> bool:
    """Liang-Barsky: does the segment p-q pass through box?"""
    (x0, y0), (x1, y1) = p, q
    dx, dy = x1 - x0, y1 - y0
    t0, t1 = 0.0, 1.0
    for edge_p, edge_q in ((-dx, x0 - box[0]), (dx, box[2] - x0), (-dy, y0 - box[1]), (dy, box[3] - y0)):
        if edge_p == 0:
            if edge_q < 0:
                return False
            continue
        r = edge_q / edge_p
        if edge_p < 0:
            t0 = max(t0, r)
        else:
            t1 = min(t1, r)
        if t0 > t1:
            return False
    return True


def _shrink(box, tol=TOLERANCE):
    return (box[0] + tol, box[1] + tol, box[2] - tol, box[3] - tol)


def _polyline_hits(points, box, half_width) -> bool:
    grown = (box[0] - half_width, box[1] - half_width, box[2] + half_width, box[3] + half_width)
    grown = _shrink(grown)
    points = points[np.isfinite(points).all(axis=1)]
    return any(_segment_hits_box(points[i], points[i + 1], grown) for i in range(len(points) - 1))


def _markers_hit(points, box, radius) -> bool:
    if radius <= 0 or len(points) == 0:
        return False
    grown = _shrink((box[0] - radius, box[1] - radius, box[2] + radius, box[3] + radius))
    x, y = points[:, 0], points[:, 1]
    return bool(np.any((x > grown[0]) & (x < grown[2]) & (y > grown[1]) & (y < grown[3])))


def data_hits(ax, box, renderer) -> list[str]:
    """The data artists of ``ax`` that the text box ``box`` (display pixels) lies on."""
    ax_box = _extent(ax.get_window_extent(renderer))
    inside = _clip(box, ax_box)
    if inside is None:
        return []
    px = ax.figure.dpi / 72.0
    hits = []
    for patch in ax.patches:
        if isinstance(patch, Patch) and patch.get_visible():
            extent = _clip(_extent(patch.get_window_extent(renderer)), ax_box)
            if extent is not None and _boxes_overlap(extent, inside):
                hits.append(f"patch {patch.get_label() or type(patch).__name__}")
    for line in ax.lines:
        if not line.get_visible():
            continue
        xy = line.get_transform().transform(
            np.column_stack([line.get_xdata(orig=False), line.get_ydata(orig=False)]).astype(float)
        )
        drawn = line.get_linestyle() not in ("None", "none", "", " ") and line.get_linewidth() > 0
        if drawn and _polyline_hits(xy, inside, line.get_linewidth() * px / 2):
            hits.append(f"line {line.get_label()}")
        elif line.get_marker() not in (None, "None", "none", "", " ") and _markers_hit(
            xy, inside, line.get_markersize() * px / 2
        ):
            hits.append(f"markers {line.get_label()}")
    for collection in ax.collections:
        if not collection.get_visible():
            continue
        if isinstance(collection, LineCollection):
            transform = collection.get_transform()
            width = float(np.max(collection.get_linewidths(), initial=1.0)) * px / 2
            if any(
                _polyline_hits(transform.transform(np.asarray(seg, float)), inside, width)
                for seg in collection.get_segments()
            ):
                hits.append("line collection")
        elif isinstance(collection, PathCollection):
            offsets = collection.get_offset_transform().transform(np.asarray(collection.get_offsets(), float))
            sizes = np.asarray(collection.get_sizes(), float)
            radius = np.sqrt(sizes if len(sizes) else np.array([36.0])) / 2 * px
            radius = (
                np.broadcast_to(radius, (len(offsets),))
                if len(radius) in (1, len(offsets))
                else np.full(len(offsets), radius.max())
            )
            if any(_markers_hit(offsets[i : i + 1], inside, r) for i, r in enumerate(radius)):
                hits.append("scatter points")
    return hits


def collisions(fig) -> list[str]:
    """Every overlap of a text with another text or with a data artist, described; [] when the figure is clean."""
    # The layout of fig.canvas.draw() (same renderer, same font metrics) without rasterising
    # pixels: five times faster on a tall figure, which keeps these tests in the quick suite.
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    boxes = text_boxes(fig, renderer)
    found = []
    for i, (name_a, a) in enumerate(boxes):
        for name_b, b in boxes[i + 1 :]:
            if _boxes_overlap(a, b):
                found.append(f"{name_a} overlaps {name_b}")
    for name, box in boxes:
        for ax in fig.axes:
            found.extend(f"{name} lies on {hit}" for hit in data_hits(ax, box, renderer))
    return found
