"""scripts/check_docstrings.py, the numpydoc check `make lint` runs: what it walks, and how its allowlist gates."""

from __future__ import annotations

import importlib.util

import pytest

from tests.conftest import ROOT

pytest.importorskip("numpydoc")


@pytest.fixture(scope="module")
def checker():
    spec = importlib.util.spec_from_file_location("check_docstrings", ROOT / "scripts" / "check_docstrings.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_walks_public_functions_classes_and_their_methods_once(checker):
    names = dict(checker.targets())
    assert names["rankviz.run_to_dict"] == checker.FUNCTION_CHECKS
    assert names["rankviz.labels.Agreement"] == checker.CLASS_CHECKS
    assert names["rankviz.labels.Agreement.to_frame"] == checker.FUNCTION_CHECKS
    assert names["rankviz.InputError"] == checker.EXCEPTION_CHECKS  # raised, not built: no Examples asked
    assert names["rankviz.labels.Judgement.ok"] == checker.PROPERTY_CHECKS
    # re-exports are checked once, under the first package that lists them
    assert "rankviz.stats.holm" in names and not any(n.endswith(".holm") and n != "rankviz.stats.holm" for n in names)
    # df.rank.mrr is rankviz.mrr bound to the frame: checked as the function, not again
    assert not any(n.startswith("rankviz.accessor.RankAccessor.mrr") for n in names)


def test_a_failure_outside_the_allowlist_fails_and_a_stale_line_fails_too(checker, tmp_path, monkeypatch, capsys):
    allowlist = tmp_path / "allow.txt"
    monkeypatch.setattr(checker, "ALLOWLIST", allowlist)
    monkeypatch.setattr(checker, "failures", lambda: [("rankviz.f", "PR01", "Parameters {'x'} not documented")])

    allowlist.write_text("")
    assert checker.main([]) == 1
    assert "rankviz.f: PR01 Parameters {'x'} not documented" in capsys.readouterr().out

    allowlist.write_text("rankviz.f PR01  # being rewritten elsewhere\n")
    assert checker.main([]) == 0

    allowlist.write_text("rankviz.f *  # being rewritten elsewhere\nrankviz.g EX01  # fixed since\n")
    assert checker.main([]) == 1
    assert "rankviz.g EX01 no longer fails" in capsys.readouterr().out
    assert checker.main(["--prune"]) == 0
    assert allowlist.read_text() == "rankviz.f *  # being rewritten elsewhere\n"


def test_an_allowlist_line_needs_a_reason(checker, tmp_path):
    path = tmp_path / "allow.txt"
    path.write_text("rankviz.f PR01\n")
    with pytest.raises(SystemExit, match="reason"):
        checker.read_allowlist(path)


def test_numpydoc_sees_an_undocumented_parameter_and_a_missing_example(checker, monkeypatch):
    import rankviz.io.dicts as dicts

    def run_to_dict(run, *, columns=None):
        """Convert a run.

        Returns
        -------
        dict
            The run.
        """
        return {}

    run_to_dict.__module__ = dicts.__name__
    monkeypatch.setattr(dicts, "run_to_dict", run_to_dict)
    monkeypatch.setattr(checker, "targets", lambda: [("rankviz.io.dicts.run_to_dict", checker.FUNCTION_CHECKS)])
    codes = {code for _, code, _ in checker.failures()}
    assert codes == {"PR01", "EX01"}
