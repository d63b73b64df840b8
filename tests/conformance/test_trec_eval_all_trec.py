"""``rankviz eval -q -m all_trec`` prints trec_eval 10's own regression outputs, line for line.

trec_eval's test suite (../shared/data/trec_eval, see its PROVENANCE.txt) holds the
output of ``trec_eval -q -m all_trec`` on its qrels and runs under four sets of flags;
every per-query line, every "all" line, the names, their order and the number
formats must be the same (the run id line aside, which names the run file's tag).
"""

from __future__ import annotations

import pytest

import rankviz.cli
from tests.conftest import shared_path

# expected output, trec_eval's flags, rankviz eval's arguments
CONFIGS = {
    "aq": ("out.test.aq", ["qrels.test", "results.test"], []),  # -q -m all_trec
    "aqc": ("out.test.aqc", ["qrels.test", "results.trunc"], []),  # -c: rankviz's default missing='zero'
    "aqcM": ("out.test.aqcM", ["qrels.test", "results.trunc"], ["-M", "100"]),  # -c -M100
    "aql": (
        "out.test.aql",
        ["qrels.rel_level", "results.test"],
        ["-m", "relstring.20", "-l", "2"],
    ),  # -mrelstring.20 -l2
}


def _rankviz_lines(config, capsys) -> list[str]:
    _, files, flags = CONFIGS[config]
    paths = [str(shared_path("trec_eval", f)) for f in files]
    assert rankviz.cli.main(["eval", "-q", "-m", "all_trec", *flags, *paths]) == 0
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("config", list(CONFIGS))
def test_all_trec_output_is_trec_evals_line_for_line(config, capsys):
    expected = shared_path("trec_eval", CONFIGS[config][0]).read_text().splitlines()
    got = _rankviz_lines(config, capsys)
    aside = [i for i, line in enumerate(expected) if line.startswith("runid ")]
    assert len(aside) == 1 and got[aside[0]].startswith("runid ")
    expected = [line for i, line in enumerate(expected) if i not in aside]
    got = [line for i, line in enumerate(got) if i not in aside]
    diff = [(i, e, g) for i, (e, g) in enumerate(zip(expected, got)) if e != g]
    assert not diff, f"{len(diff)} lines differ, first: {diff[:5]}"
    assert len(got) == len(expected) == 386


def test_all_trec_names_all_parse_back():
    """Every name of all_trec is a measure rankviz parses, and prints under the same name."""
    from rankviz.cli.trec_output import ALL_TREC
    from rankviz.measures import parse_measure

    for name in ALL_TREC:
        assert parse_measure(name).trec_name == name
        dotted = name.replace("_", ".", 1) if name.count("_") == 1 and name.split("_")[1][0].isdigit() else name
        assert parse_measure(dotted) == parse_measure(name)
