"""Judges over real HTTP (a scripted OpenAI-compatible server on 127.0.0.1), callable judges, judge_pairs (issue 32)."""

from __future__ import annotations

import copy
import email.utils
import json
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import pandas as pd
import pytest

from rankviz import InputError, RankvizWarning, labels
from rankviz.labels import LabelStore, callable_judge, judge_pairs, llm_judge, parse_grade
from tests.conftest import ROOT
from tests.labels.chat_server import serve

KEY = "sk-test-SECRET-7f3a9c"
SCALE = (0, 1, 2, 3)


@pytest.fixture
def log(tmp_path):
    return tmp_path / "server.log"


@pytest.fixture
def store(tmp_path):
    with LabelStore(tmp_path / "labels.sqlite") as opened:
        yield opened


def _records(log, event=None):
    if not os.path.exists(log):
        return []
    with open(log, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    return [r for r in rows if event is None or r["event"] == event]


def _texts(keys):
    queries = {"q1": "what do red foxes eat"}
    documents = {f"d{i}": f"passage {key} about foxes" for i, key in enumerate(keys)}
    pairs = [("q1", f"d{i}") for i in range(len(keys))]
    return pairs, queries, documents


@pytest.fixture
def server(log):
    servers = []

    def start(script):
        running = serve(script, str(log))
        servers.append(running)
        return f"http://127.0.0.1:{running.server_address[1]}/v1"

    yield start
    for running in servers:
        running.shutdown()
        running.server_close()


def _judge(url, **kwargs):
    options = {"api_key": KEY, "timeout": 5, "max_retries": 2, "backoff": 0.05, "concurrency": 2}
    return llm_judge(url, "judge-model", **{**options, **kwargs})


def _grades(store):
    qrels = store.to_qrels()
    return dict(zip(qrels["doc_id"], qrels["relevance"]))


# ----------------------------------------------------------------------------- answers


def test_correct_grades_are_committed_with_provenance_and_usage(server, store, log):
    answers = ["0", "1", "2", "3", '{"grade": 2}', " 3\n"]
    keys = [f"k{i}" for i in range(len(answers))]
    usage = {"prompt_tokens": 100, "completion_tokens": 1, "total_tokens": 101}
    url = server({k: [{"answer": a, "usage": usage}] for k, a in zip(keys, answers)})
    pairs, queries, documents = _texts(keys)
    judge = _judge(url)
    report = judge_pairs(judge, pairs, store, queries=queries, documents=documents, progress=False)
    assert _grades(store) == {"d0": 0, "d1": 1, "d2": 2, "d3": 3, "d4": 2, "d5": 3}
    assert (report.grades, report.n_failures, report.requests, report.skipped) == (6, 0, 6, 0)
    assert report.tokens == {"prompt_tokens": 600, "completion_tokens": 6, "total_tokens": 606}
    history = store.history()
    assert set(history["kind"]) == {"model"} and set(history["judge"]) == {"judge-model"}
    assert set(history["fingerprint"]) == {judge.fingerprint} and set(history["annotator"]) == {"judge-model"}
    assert sorted(history["raw"]) == sorted(answers)
    asked = _records(log, "asked")
    assert {r["path"] for r in asked} == {"/v1/chat/completions"} and {r["model"] for r in asked} == {"judge-model"}
    assert {r["auth"] for r in asked} == {f"Bearer {KEY}"}
    prompt = asked[0]["prompt"]
    assert "what do red foxes eat" in prompt and "about foxes" in prompt and "3 = highly relevant" in prompt


@pytest.mark.parametrize(
    ("step", "kind"),
    [
        ({"answer": "Grade: 2"}, "unparsable answer"),
        ({"answer": "2 or 3"}, "unparsable answer"),
        ({"answer": ""}, "unparsable answer"),
        ({"answer": "2.0"}, "unparsable answer"),
        ({"answer": '{"grade": "2"}'}, "unparsable answer"),
        ({"answer": '{"grade": 2, "why": "on topic"}'}, "unparsable answer"),
        ({"answer": "7"}, "off-scale grade"),
        ({"answer": "-1"}, "off-scale grade"),
        ({"body": "this is not JSON"}, "bad response"),
        ({"body": '{"choices": []}'}, "bad response"),
    ],
)
def test_unparsable_answers_are_recorded_failures_never_grades(server, store, step, kind):
    url = server({"k0": [step], "k1": [{"answer": "2"}]})
    pairs, queries, documents = _texts(["k0", "k1"])
    report = judge_pairs(_judge(url), pairs, store, queries=queries, documents=documents, progress=False)
    assert _grades(store) == {"d1": 2}  # the unparsable one has no grade at all
    assert report.failures == {kind: 1} and report.grades == 1
    failures = store.failures()
    assert failures[["query_id", "doc_id"]].values.tolist() == [["q1", "d0"]]
    assert failures["reason"].iloc[0].startswith(kind)
    if "answer" in step:
        assert failures["raw"].iloc[0] == step["answer"]  # the raw answer is kept with the failure
    again = judge_pairs(_judge(url), pairs, store, queries=queries, documents=documents, progress=False)
    assert (again.skipped, again.asked) == (1, 1)  # a failure is not a grade: asked again


@pytest.mark.parametrize(
    ("text", "expected"),
    [("3", 3), (" 0 ", 0), ('{"grade": 1}', 1), (' {"grade":3} ', 3), ("+2", 2), ("03", 3), ("three", None),
     ("2\n3", None), ("[2]", None), ('{"grade": true}', None), ('{"grade": 2.5}', None), ("{", None), (None, None)],
)  # fmt: skip
def test_parse_grade_is_strict(text, expected):
    grade, reason = parse_grade(text, SCALE)
    assert grade == expected
    assert (reason is None) == (expected is not None)


# ----------------------------------------------------------------------------- retries


def test_timeouts_are_retried_then_recorded(server, store, log):
    url = server({"slow": [{"sleep": 1.5, "answer": "2"}], "late": [{"sleep": 1.5, "answer": "2"}, {"answer": "3"}]})
    pairs, queries, documents = _texts(["slow", "late"])
    report = judge_pairs(
        _judge(url, timeout=0.4, max_retries=1), pairs, store, queries=queries, documents=documents, progress=False
    )
    assert _grades(store) == {"d1": 3}  # answered on its retry
    assert report.failures == {"timeout": 1}
    assert "after 2 attempts" in store.failures()["reason"].iloc[0]
    asked = [r["key"] for r in _records(log, "asked")]
    assert asked.count("slow") == 2 and asked.count("late") == 2
    assert report.requests == 4


def test_429_with_retry_after_is_honoured(server, store, log):
    url = server({"busy": [{"status": 429, "retry_after": "1"}, {"answer": "2"}]})
    pairs, queries, documents = _texts(["busy"])
    report = judge_pairs(_judge(url), pairs, store, queries=queries, documents=documents, progress=False)
    assert _grades(store) == {"d0": 2} and report.requests == 2
    assert len(_records(log, "asked")) == 2


def test_429_waits_as_long_as_retry_after_says_within_max_wait(server, tmp_path):
    url = server({"busy": [{"status": 429, "retry_after": "1"}, {"answer": "1"}],
                  "capped": [{"status": 429, "retry_after": "3600"}, {"answer": "0"}]})  # fmt: skip
    for key, shortest, longest in (("busy", 0.95, 4.0), ("capped", 0.0, 2.0)):  # max_wait 3 s, then 0.3 s
        pairs, queries, documents = _texts([key])
        with LabelStore(tmp_path / f"{key}.sqlite") as store:
            started = time.monotonic()
            judge_pairs(
                _judge(url, max_wait=3 if key == "busy" else 0.3),
                pairs,
                store,
                queries=queries,
                documents=documents,
                progress=False,
            )
            elapsed = time.monotonic() - started
            assert len(_grades(store)) == 1
        assert shortest <= elapsed < longest, (key, elapsed)


def test_429_with_an_http_date_in_retry_after(server, store):
    when = email.utils.formatdate(time.time() + 1, usegmt=True)
    url = server({"dated": [{"status": 429, "retry_after": when}, {"answer": "3"}]})
    pairs, queries, documents = _texts(["dated"])
    started = time.monotonic()
    judge_pairs(_judge(url, max_wait=5), pairs, store, queries=queries, documents=documents, progress=False)
    assert _grades(store) == {"d0": 3} and time.monotonic() - started < 4


def test_429_that_never_ends_is_recorded_after_the_retries(server, store, log):
    url = server({"busy": [{"status": 429, "retry_after": "0"}]})
    pairs, queries, documents = _texts(["busy"])
    report = judge_pairs(_judge(url, max_retries=2), pairs, store, queries=queries, documents=documents, progress=False)
    assert report.failures == {"rate limited": 1} and _grades(store) == {}
    assert len(_records(log, "asked")) == 3


def test_server_errors_are_retried_and_client_errors_are_not(server, store, log):
    url = server({"flaky": [{"status": 500}, {"status": 503}, {"answer": "3"}], "bad": [{"status": 400}]})
    pairs, queries, documents = _texts(["flaky", "bad"])
    report = judge_pairs(_judge(url, max_retries=3), pairs, store, queries=queries, documents=documents, progress=False)
    assert _grades(store) == {"d0": 3}
    assert report.failures == {"HTTP 400": 1}
    asked = [r["key"] for r in _records(log, "asked")]
    assert asked.count("flaky") == 3 and asked.count("bad") == 1


def test_a_refused_key_stops_with_a_clear_error(server, store):
    url = server({"k0": [{"status": 401}]})
    pairs, queries, documents = _texts(["k0", "k1"])
    with pytest.raises(InputError, match="HTTP 401") as error:
        judge_pairs(_judge(url), pairs, store, queries=queries, documents=documents, progress=False)
    assert KEY not in str(error.value) and "api_key" in str(error.value)


def test_requests_run_concurrently(server, store, log):
    keys = [f"k{i}" for i in range(8)]
    url = server({k: [{"sleep": 0.4, "answer": "1"}] for k in keys})
    pairs, queries, documents = _texts(keys)
    started = time.monotonic()
    report = judge_pairs(_judge(url, concurrency=4), pairs, store, queries=queries, documents=documents, progress=False)
    elapsed = time.monotonic() - started
    assert report.grades == 8
    assert elapsed < 8 * 0.4 * 0.75  # one at a time would take 3.2 s; four at a time about 0.8 s


# ----------------------------------------------------------------------------- crash and resume


def _start_server(script_path, log, port=0, hang_from=None):
    command = [sys.executable, str(ROOT / "tests" / "labels" / "chat_server.py"), str(script_path), str(log)]
    command += ["--port", str(port)] + (["--hang-from", str(hang_from)] if hang_from else [])
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    port = int(process.stdout.readline())
    return process, port


@pytest.mark.parametrize("concurrency", [1, 3])
def test_server_killed_mid_run_and_restarted_loses_nothing_and_asks_nothing_twice(tmp_path, store, concurrency):
    keys = [f"k{i:02d}" for i in range(12)]
    script = {k: [{"answer": str(i % 4)}] for i, k in enumerate(keys)}
    script_path = tmp_path / "script.json"
    script_path.write_text(json.dumps(script))
    first_log, second_log = tmp_path / "first.log", tmp_path / "second.log"
    process, port = _start_server(script_path, first_log, hang_from=6)

    def kill_when_hanging():  # requests from the 6th on hang: the server is killed while it is being asked
        deadline = time.monotonic() + 60
        while len(_records(first_log, "asked")) < 6 and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.1)
        process.send_signal(signal.SIGKILL)

    killer = threading.Thread(target=kill_when_hanging)
    killer.start()
    pairs, queries, documents = _texts(keys)
    judge = _judge(f"http://127.0.0.1:{port}/v1", concurrency=concurrency, timeout=20, max_retries=2)
    try:
        with pytest.warns(RankvizWarning, match="not asked"):
            first = judge_pairs(judge, pairs, store, queries=queries, documents=documents, progress=False)
    finally:
        killer.join()
        process.wait(timeout=30)
    answered = {r["key"] for r in _records(first_log, "answered")}
    graded = {documents[d].split()[1] for d in _grades(store)}
    assert graded == answered and 5 <= len(answered) < 12  # every answer that arrived is committed
    assert first.grades == len(answered) and first.not_asked > 0
    assert set(first.failures) == {"connection error"}

    process, _ = _start_server(script_path, second_log, port=port)  # restarted at the same address
    try:
        second = judge_pairs(judge, pairs, store, queries=queries, documents=documents, progress=False)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    asked_again = [r["key"] for r in _records(second_log, "asked")]
    assert not set(asked_again) & answered  # no graded pair is asked twice
    assert sorted(asked_again) == sorted(set(keys) - answered)  # and each of the others once
    assert second.skipped == len(answered) and second.grades == 12 - len(answered)
    assert _grades(store) == {f"d{i}": i % 4 for i in range(12)}


_CLIENT = """
import sys
from rankviz.labels import LabelStore, llm_judge, judge_pairs
url, path = sys.argv[1], sys.argv[2]
keys = [f"k{i:02d}" for i in range(40)]
judge = llm_judge(url, "judge-model", concurrency=2, timeout=20, max_retries=0)
documents = {f"d{i}": f"passage {k} about foxes" for i, k in enumerate(keys)}
judge_pairs(judge, [("q1", d) for d in documents], LabelStore(path), queries={"q1": "foxes"}, documents=documents,
            progress=False)
"""


def test_the_judging_process_killed_mid_run_resumes_without_asking_a_graded_pair_again(tmp_path, log, server):
    keys = [f"k{i:02d}" for i in range(40)]
    url = server({k: [{"sleep": 0.05, "answer": str(i % 4)}] for i, k in enumerate(keys)})
    path = tmp_path / "labels.sqlite"
    LabelStore(path).close()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    child = subprocess.Popen([sys.executable, "-c", _CLIENT, url, str(path)], env=env, cwd=ROOT)
    deadline = time.monotonic() + 60
    while len(_records(log, "answered")) < 10 and time.monotonic() < deadline:
        time.sleep(0.01)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    with LabelStore(path) as store:
        committed = {store.history()["doc_id"].iloc[i] for i in range(len(store))}
        asked_before = len(_records(log, "asked"))
        assert 1 <= len(committed) < 40
        pairs, queries, documents = _texts(keys)
        report = judge_pairs(_judge(url), pairs, store, queries={"q1": "foxes"}, documents=documents, progress=False)
        asked_now = [r["key"] for r in _records(log, "asked")[asked_before:]]
        assert not {f"k{int(d[1:]):02d}" for d in committed} & set(asked_now)
        assert report.skipped == len(committed) and len(_grades(store)) == 40


# ----------------------------------------------------------------------------- the key


def test_the_api_key_never_reaches_the_store_reprs_reports_or_errors(server, tmp_path, log):
    # a server that echoes the key in its error and in its answer
    url = server({"k-echo": [{"status": 400, "body": json.dumps({"error": f"bad key {KEY}"})}],
                  "k-say": [{"answer": f"my key is {KEY}"}], "k-ok": [{"answer": "2"}]})  # fmt: skip
    path = tmp_path / "labels.sqlite"
    pairs, queries, documents = _texts(["k-echo", "k-say", "k-ok"])
    judge = _judge(url)
    with LabelStore(path) as store:
        report = judge_pairs(judge, pairs, store, queries=queries, documents=documents, progress=False)
        assert report.grades == 1 and report.n_failures == 2
        shown = [repr(judge), str(judge), repr(report), report._repr_html_(), repr(store),
                 store.failures().to_string(), store.history().to_string()]  # fmt: skip
    assert {r["auth"] for r in _records(log, "asked")} == {f"Bearer {KEY}"}  # it was sent
    for text in shown:
        assert KEY not in text
    assert "api_key='***'" in repr(judge)
    for name in os.listdir(tmp_path):  # the store, its WAL and anything beside it
        if name.startswith("labels.sqlite"):
            assert KEY.encode() not in (tmp_path / name).read_bytes()
    errors = []
    for bad in [{"status": 401}, {"status": 404}]:
        bad_url = server({"x": [bad]})
        with LabelStore(tmp_path / "other.sqlite") as store, pytest.raises(InputError) as error:
            judge_pairs(_judge(bad_url), *_texts(["x"])[:1], store, queries=queries,
                        documents={"d0": "x"}, progress=False)  # fmt: skip
        errors.append(str(error.value))
    with pytest.raises(InputError) as error:
        llm_judge("not a url", "m", api_key=KEY)
    errors.append(str(error.value))
    assert errors and all(KEY not in e for e in errors)


def test_the_key_is_hidden_in_the_judges_attributes_and_never_pickled():
    judge = llm_judge("http://127.0.0.1:9/v1", "m", api_key=KEY)
    assert KEY not in repr(vars(judge)) and KEY not in str(vars(judge))
    with pytest.raises(TypeError, match="not pickled"):
        pickle.dumps(judge)
    assert KEY not in repr(copy.deepcopy(judge))
    with pytest.raises(InputError, match="api_key") as error:
        llm_judge("http://127.0.0.1:9/v1", "m", api_key=KEY + "é")
    assert KEY not in str(error.value)


def test_the_key_in_an_echoed_error_body_is_redacted(server, store):
    url = server({"k0": [{"status": 422, "body": json.dumps({"error": f"invalid key {KEY}"})}]})
    pairs, queries, documents = _texts(["k0"])
    judge_pairs(_judge(url), pairs, store, queries=queries, documents=documents, progress=False)
    reason = store.failures()["reason"].iloc[0]
    assert reason.startswith("HTTP 422") and "***" in reason and KEY not in reason


# ----------------------------------------------------------------------------- the prompt and the fingerprint


def test_the_prompt_can_be_replaced_and_texts_are_inserted_once(server, store, log):
    url = server({})
    template = 'Query: {query}\nDoc: {passage}\nJSON like {"grade": n} with n in {grades}.'
    judge = _judge(url, prompt=template, scale=(0, 1))
    judge_pairs(judge, [("q1", "d1")], store, queries={"q1": "what is {passage}?"}, documents={"d1": "text"},
                progress=False)  # fmt: skip
    assert _records(log, "asked")[0]["prompt"] == (
        'Query: what is {passage}?\nDoc: text\nJSON like {"grade": n} with n in 0 or 1.'
    )
    assert _grades(store) == {"d1": 1}


def test_prompt_and_scale_are_checked(server):
    url = server({})
    with pytest.raises(InputError, match=r"\{query\} and \{passage\}"):
        llm_judge(url, "m", prompt="Grade this: {query}")
    with pytest.raises(InputError, match="definition"):
        llm_judge(url, "m", scale=(0, 1))
    judge = llm_judge(url, "m", scale={0: "off topic", 1: "on topic"})
    assert "1 = on topic" in judge.messages("q", "p")[0]["content"]
    with pytest.raises(InputError, match="scale"):
        llm_judge(url, "m", scale=(1, 1))
    with pytest.raises(InputError, match="concurrency"):
        llm_judge(url, "m", concurrency=0)


def test_the_fingerprint_follows_what_decides_the_grades_only():
    base = llm_judge("http://127.0.0.1:9/v1", "m")
    same = [llm_judge("http://10.0.0.1:8000/v1", "m", api_key=KEY, timeout=3, concurrency=9, max_retries=0)]
    other = [llm_judge("http://127.0.0.1:9/v1", "m2"),
             llm_judge("http://127.0.0.1:9/v1", "m", prompt="{query} {passage} 0-3?"),
             llm_judge("http://127.0.0.1:9/v1", "m", temperature=0.7),
             llm_judge("http://127.0.0.1:9/v1", "m", extra_body={"seed": 1})]  # fmt: skip
    assert all(j.fingerprint == base.fingerprint for j in same)
    assert len({base.fingerprint, *(j.fingerprint for j in other)}) == 1 + len(other)
    assert KEY not in repr(same[0]) and KEY not in base.fingerprint


def test_a_changed_judge_asks_again_and_an_unchanged_one_does_not(server, store, log):
    url = server({})
    pairs, queries, documents = _texts(["a", "b"])
    judge_pairs(_judge(url), pairs, store, queries=queries, documents=documents, progress=False)
    judge_pairs(_judge(url), pairs, store, queries=queries, documents=documents, progress=False)
    assert len(_records(log, "asked")) == 2
    changed = judge_pairs(_judge(url, temperature=0.5), pairs, store, queries=queries, documents=documents,
                          progress=False)  # fmt: skip
    assert changed.asked == 2 and len(_records(log, "asked")) == 4


# ----------------------------------------------------------------------------- judge_pairs input


def test_a_missing_text_is_named_before_anything_is_asked(server, store, log):
    url = server({})
    pairs = [("q1", "d1"), ("q2", "d1"), ("q1", "d9")]
    with pytest.raises(InputError, match="'q2'"):
        judge_pairs(_judge(url), pairs, store, queries={"q1": "x"}, documents={"d1": "y", "d9": "z"}, progress=False)
    with pytest.raises(InputError, match="'d9'"):
        judge_pairs(_judge(url), pairs, store, queries={"q1": "x", "q2": "y"}, documents={"d1": "y", "d9": " "},
                    progress=False)  # fmt: skip
    assert _records(log) == [] and len(store) == 0


def test_pairs_from_holes_and_texts_from_frames(store):
    run = pd.DataFrame({"system": ["a"] * 3 + ["b"] * 3, "query_id": ["q1"] * 6,
                        "doc_id": ["d1", "d2", "d3", "d3", "d4", "d1"], "score": [3.0, 2, 1] * 2})  # fmt: skip
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "relevance": [1]})
    holes = labels.holes(run, qrels, k=3)
    topics = pd.DataFrame({"query_id": ["q1"], "text": ["fox"]})
    corpus = pd.DataFrame({"doc_id": ["d1", "d2", "d3", "d4"], "title": ["", "Fox", "", ""],
                           "text": ["a fox", "red", "sky", "fox den"]})  # fmt: skip
    seen = []

    def by_word(pairs):
        seen.extend(pairs)
        return [int("fox" in d.lower()) for _, d in pairs]

    report = judge_pairs(by_word, holes, store, queries=topics, documents=corpus, progress=False)
    assert report.judge == "by_word" and report.grades == 3 and report.requests == 0
    assert _grades(store) == {"d2": 1, "d3": 0, "d4": 1}
    assert ("fox", "Fox\nred") in seen  # the title goes before the text


def test_progress_is_shown_on_stderr(store, capsys):
    judge = callable_judge(lambda pairs: [1] * len(pairs), name="ones", scale=(0, 1))
    judge_pairs(judge, [("q", "d1"), ("q", "d2")], store, queries={"q": "x"}, documents={"d1": "a", "d2": "b"})
    err = capsys.readouterr().err
    assert "judging with ones" in err and "2/2" in err


def test_a_schema_1_store_is_refused_before_asking(store):
    calls = []
    store.version = 1  # as a store written by the first release reads
    with pytest.raises(InputError, match="upgrade"):
        judge_pairs(callable_judge(lambda p: calls.append(p) or [1] * len(p), name="x", scale=(0, 1)), [("q", "d")],
                    store, queries={"q": "x"}, documents={"d": "y"}, progress=False)  # fmt: skip
    assert calls == []


def test_report_repr_and_html():
    report = labels.JudgeReport("m", "abc", "m", pairs=5, skipped=1, asked=4, grades=3,
                                failures={"timeout": 1}, requests=6, tokens={"total_tokens": 50})  # fmt: skip
    assert repr(report) == (
        "JudgeReport('m', 5 pairs: 3 graded, 1 failed (timeout: 1); 1 skipped (graded before); 6 requests; 50 tokens)"
    )
    assert "<td>6</td>" in report._repr_html_() and report.to_dict()["failures"] == {"timeout": 1}
    assert "&lt;b&gt;" in labels.JudgeReport("<b>", "f", "a")._repr_html_()


# ----------------------------------------------------------------------------- callable judges


def test_callable_judge_grades_and_records_none_as_a_failure(store):
    def thresholds(pairs):  # a cross-encoder's scores mapped to grades
        scores = np.array([len(d) / 10 for _, d in pairs])
        return [None if s > 2 else g for s, g in zip(scores, np.digitize(scores, [0.2, 0.5, 0.8]))]

    judge = callable_judge(thresholds, scale=SCALE, config={"cuts": [0.2, 0.5, 0.8]})
    documents = {"d1": "a", "d2": "abcdef", "d3": "abcdefghij", "d4": "x" * 30}
    report = judge_pairs(judge, [("q", d) for d in documents], store, queries={"q": "x"}, documents=documents,
                         progress=False)  # fmt: skip
    assert _grades(store) == {"d1": 0, "d2": 2, "d3": 3}
    assert report.failures == {"no grade": 1}


@pytest.mark.parametrize(
    ("answer", "message"),
    [([4], "off the scale"), ([-1], "off the scale"), ([1.5], "not a grade"), (["2"], "integer grade"),
     ([1, 1], "returned 2 grades for 1 pairs"), (7, "one grade per pair")],
)  # fmt: skip
def test_callable_judge_refuses_grades_off_the_scale(store, answer, message):
    judge = callable_judge(lambda pairs: answer, name="bad", scale=SCALE)
    with pytest.raises(InputError, match=message):
        judge_pairs(judge, [("q", "d")], store, queries={"q": "x"}, documents={"d": "y"}, progress=False)
    assert len(store) == 0 and len(store.failures()) == 0


def test_callable_judge_fingerprint_and_checks():
    def f(pairs):
        return [0] * len(pairs)

    assert callable_judge(f).fingerprint == callable_judge(f).fingerprint
    assert callable_judge(f, config={"cut": 0.5}).fingerprint != callable_judge(f, config={"cut": 0.6}).fingerprint
    assert callable_judge(f, scale=(0, 1)).fingerprint != callable_judge(f).fingerprint
    assert callable_judge(f, name="x").name == "x" and callable_judge(f, scale=[2, 0, 1]).scale == (0, 1, 2)
    assert callable_judge(f, name="x").stream([]) is not None and callable_judge(f)([]) == []
    for bad in [{"name": ""}, {"scale": (0,)}, {"scale": "0123"}, {"scale": (0, 1.5)}, {"batch_size": 0}]:
        with pytest.raises(InputError):
            callable_judge(f, **bad)
    with pytest.raises(InputError, match="function"):
        callable_judge("not a function")


def test_a_batch_size_splits_the_calls(store):
    sizes = []
    judge = callable_judge(lambda pairs: sizes.append(len(pairs)) or [0] * len(pairs), name="b", batch_size=2)
    documents = {f"d{i}": "t" for i in range(5)}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        judge_pairs(judge, [("q", d) for d in documents], store, queries={"q": "x"}, documents=documents,
                    progress=False)  # fmt: skip
    assert sizes == [2, 2, 1] and len(_grades(store)) == 5


def test_a_judge_of_ones_own_class(store):
    class Lengthy(labels.Judge):
        def __call__(self, pairs):
            return [labels.Judgement(int(len(d) > 3), raw=d) if d else labels.Judgement(None, "empty: no text")
                    for _, d in pairs]  # fmt: skip

    judge = Lengthy("lengthy", labels.judges.config_fingerprint({"cut": 3}), scale=(0, 1))
    documents = {"d1": "ab", "d2": "abcdef"}
    report = judge_pairs(judge, [("q", "d1"), ("q", "d2")], store, queries={"q": "x"}, documents=documents,
                         progress=False)  # fmt: skip
    assert _grades(store) == {"d1": 0, "d2": 1} and report.judge == "lengthy"
    assert set(store.history()["raw"]) == {"ab", "abcdef"}
    with pytest.raises(InputError, match="name"):
        Lengthy("", "f")


def test_a_judge_object_giving_a_grade_off_its_scale_is_refused(store):
    class Wild(labels.Judge):
        def __call__(self, pairs):
            return [labels.Judgement(1), labels.Judgement(7)][: len(pairs)]

    with pytest.raises(InputError, match=r"off its scale \(0, 1\)"):
        judge_pairs(Wild("wild", "f", (0, 1)), [("q", "d1"), ("q", "d2")], store, queries={"q": "x"},
                    documents={"d1": "a", "d2": "b"}, progress=False)  # fmt: skip
    assert _grades(store) == {"d1": 1}  # the grade before it stays committed


def test_a_store_given_as_a_path(tmp_path):
    judge = callable_judge(lambda pairs: [2] * len(pairs), name="twos")
    path = tmp_path / "new.sqlite"
    report = judge_pairs(judge, pd.DataFrame({"qid": ["q"], "docno": ["d"]}), str(path), queries={"q": "x"},
                         documents=pd.Series({"d": "text"}), progress=False)  # fmt: skip
    assert report.grades == 1
    with LabelStore(path) as store:
        assert _grades(store) == {"d": 2}
    with pytest.raises(InputError, match="store must be"):
        judge_pairs(judge, [("q", "d")], 42, queries={"q": "x"}, documents={"d": "y"}, progress=False)
    with pytest.raises(InputError, match="pairs must be"):
        judge_pairs(judge, "q d", str(path), queries={"q": "x"}, documents={"d": "y"}, progress=False)


def test_llm_judge_without_httpx_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "httpx", None)
    with pytest.raises(ImportError, match=r"pip install rankviz\[judge\]"):
        llm_judge("http://127.0.0.1:9/v1", "m")
