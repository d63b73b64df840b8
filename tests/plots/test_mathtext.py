"""rankviz.plots: mathtext."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.image
import matplotlib.pyplot as plt
import matplotlib.text
import pandas as pd

import rankviz.plots as rp

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


# ----------------------------------------------------------------------------- user text is never read as math


def test_dollar_signs_and_invalid_math_in_user_text_are_shown_as_written(tmp_path):
    table = pd.DataFrame(
        {
            "system": ["costs $5 to $10"] * 3 + ["b"] * 3,
            "query_id": ["q1", "q2", "q3"] * 2,
            "RR@10": [0.0, 0.5, 1.0, 0.25, 0.5, 0.0],
            "R@100": [0.2, 0.5, 1.0, 0.5, 0.5, 0.1],
        }
    )
    texts = {"q1": "prove that $\\sum_{i}^{n$ diverges", "q2": "costs $5 to $10", "q3": "plain"}
    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    rp.failures(table, system="costs $5 to $10", queries=texts, n=3, zeros="show", ax=axes[0, 0])
    rp.rr_distribution(table, hue="system", ax=axes[0, 1])
    rp.paired_differences(table, system="costs $5 to $10", baseline="b", measure="RR@10", ax=axes[1, 0])
    rp.recall_vs_mrr(table, k=10, recall_k=100, ax=axes[1, 1])
    fig.savefig(tmp_path / "dollars.png")  # invalid math would raise here
    labels = [t.get_text() for t in axes[0, 0].get_yticklabels()]
    assert any("$\\sum_{i}^{n$" in label for label in labels)
    assert any("costs $5 to $10" in label for label in labels)
    shown = [t.get_text() for ax in axes.flat for t in ax.findobj(matplotlib.text.Text) if "$" in t.get_text()]
    assert shown and all(not t.get_parse_math() for ax in axes.flat for t in ax.findobj(matplotlib.text.Text))
