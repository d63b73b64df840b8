"""The judging widget in a real browser: Voilà on 127.0.0.1, headless Chromium, offline (issue 25).

Five judgements, by click and by keyboard (with an undo between them), then the kernel
is restarted (a new page is a new Voilà kernel, which reopens the store): the five are
there, in the page and in the file. Screenshots go to /tmp/labels_shots/ (look at them).
Skips like tests/widgets/test_browser.py without Chromium, Voilà or Playwright (fails under CI).
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from rankviz.labels import LabelStore
from tests.widgets.test_browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    PAGE_TIMEOUT_MS,
    UPDATE_TIMEOUT_MS,
    serve_cell,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

N_TODO = 30

_CELL = """\
from rankviz import labels, widgets
from rankviz.datasets import load_example, load_example_documents

run, qrels, queries = load_example()
todo = labels.holes(run, qrels, k=10).head({n})
ui = widgets.judge(todo, {store!r}, annotator="tester", queries=queries, documents=load_example_documents())
ui
"""


@pytest.fixture
def served(tmp_path):
    """A notebook with the judging widget over a store in tmp_path, served by Voilà; yields (url, store path)."""
    store = tmp_path / "labels.sqlite"
    with serve_cell(tmp_path, "judge", _CELL.format(n=N_TODO, store=str(store))) as url:
        yield url, store


def _open(browser, url):
    context = browser.new_context(viewport={"width": 1280, "height": 1100})
    errors: list[str] = []

    def only_loopback(route):
        request = route.request
        if request.url.startswith(("data:", "blob:")) or urlsplit(request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            route.abort()

    context.route("**/*", only_loopback)
    page = context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_default_timeout(UPDATE_TIMEOUT_MS)
    page.goto(url, wait_until="domcontentloaded", timeout=PAGE_TIMEOUT_MS)
    page.wait_for_selector(".rankviz-judge .rankviz-grade-1", state="visible", timeout=PAGE_TIMEOUT_MS)
    return context, page, errors


def test_judge_by_click_and_keyboard_then_restart(served, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    url, store_path = served
    shots = tmp_path / "screenshots"  # this test's own folder, not a fixed one shared with other runs
    shots.mkdir()
    expect.set_options(timeout=UPDATE_TIMEOUT_MS)
    expected: dict[tuple[str, str], int] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        context, page, errors = _open(browser, url)
        judge = page.locator(".rankviz-judge")
        progress = judge.locator(".rankviz-progress")
        expect(progress).to_contain_text(f"0 of {N_TODO} judged")
        expect(judge.locator("mark.rankviz-term").first).to_be_visible()  # the query's words are marked
        page.screenshot(path=str(shots / "judge_start.png"), full_page=True)

        def pair():
            return judge.locator(".rankviz-query-id").inner_text(), judge.locator(".rankviz-doc-id").inner_text()

        def act(do, grade, judged):
            current = pair()
            do()
            expect(progress).to_contain_text(f"{judged} of {N_TODO} judged")
            if grade is not None:
                expected[current] = grade
                expect(judge.locator(".rankviz-doc-id")).not_to_have_text(current[1])

        for n, grade in enumerate((1, 2, 0), start=1):  # three by click
            act(lambda g=grade: judge.locator(f"button.rankviz-grade-{g}").click(), grade, n)
        page.screenshot(path=str(shots / "judge_after_clicks.png"), full_page=True)
        keys = judge.locator(".rankviz-keys input")
        keys.click()
        act(lambda: keys.press("2"), 2, 4)
        undone = pair()
        keys.press("1")  # judged, then taken back with u: the store keeps both rows, the pair is unjudged again
        expect(progress).to_contain_text(f"5 of {N_TODO} judged")
        keys.press("u")
        expect(progress).to_contain_text(f"4 of {N_TODO} judged")
        expect(judge.locator(".rankviz-doc-id")).to_have_text(undone[1])
        act(lambda: keys.press("0"), 0, 5)
        page.screenshot(path=str(shots / "judge_after_keys.png"), full_page=True)
        assert errors == []
        context.close()  # the kernel goes with the page

        # -- a new kernel: the notebook reopens the store and resumes ------------------------
        context, page, errors = _open(browser, url)
        expect(page.locator(".rankviz-judge .rankviz-progress")).to_contain_text(f"5 of {N_TODO} judged")
        assert page.locator(".rankviz-judge .rankviz-doc-id").inner_text() not in {d for _, d in expected}
        page.screenshot(path=str(shots / "judge_after_restart.png"), full_page=True)
        assert errors == []
        context.close()
        browser.close()

    qrels = LabelStore(store_path).to_qrels(annotator="tester")
    assert dict(zip(zip(qrels["query_id"], qrels["doc_id"]), qrels["relevance"])) == expected
    history = LabelStore(store_path).history()
    assert len(history) == 7 and set(history["source"]) == {"widget"}  # 6 grades and 1 withdrawal (the undo)
