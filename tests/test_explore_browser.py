"""The strategy explorer in a real browser (issue 25): headless Chromium from the system
packages, driven by Playwright. The app runs on a small run; the test clicks down the
public tree, checks the grid's numbers against the policy computed here on the built
public tree, shows an illegal history's rule in the page, and keeps a screenshot in
tests/artifacts/ (``VITOU_AI_ARTIFACTS`` moves it)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.test_explore import SMALL, Reference, make_run
from vitou_ai.rules.params import VitouParams

CHROMIUM = next((p for p in ("/usr/bin/chromium", shutil.which("chromium") or "",
                             shutil.which("chromium-browser") or "") if p and Path(p).exists()),
                None)
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(os.environ.get("VITOU_AI_ARTIFACTS")
                 or Path(__file__).resolve().parent / "artifacts")

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="no Chromium from the system packages "
                       "(apt-get install chromium): the explorer's browser test needs it"),
]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    pytest.importorskip("uvicorn", reason="the 'explore' extra is not installed")
    from vitou_ai.explore import load_strategy
    from vitou_ai.explore.app import Server, bind

    run = make_run(tmp_path_factory.mktemp("browser") / "run", VitouParams(**SMALL), 40, "a")
    strategy = load_strategy(run)
    server = Server([strategy], bind(0)).start()
    strategy.values()  # the exact values, built in the background, are ready
    yield strategy, server.url
    server.stop()


@pytest.fixture(scope="module")
def page(served):
    sync = pytest.importorskip("playwright.sync_api",
                               reason="Playwright is not installed (the 'explore-test' extra)")
    with sync.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        pg = browser.new_page(viewport={"width": 1200, "height": 900})
        yield pg
        browser.close()


def _cells(page):
    return page.eval_on_selector_all(
        "#grid-0 .cell", "els => els.map(e => ({label: e.dataset.label, hand: +e.dataset.hand, "
        "reach: +e.dataset.reach, probs: JSON.parse(e.dataset.probs), value: e.dataset.value}))")


def test_click_down_the_tree_and_check_the_grid(served, page):
    strategy, url = served
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']", timeout=30_000)
    for label in ("dealer 1", "p0 pass", "p1 pass"):
        page.click(f"#children a.child:text-is('{label}')")
        page.wait_for_function(f"document.querySelector('#breadcrumb').textContent"
                               f".endsWith({json.dumps(label)})", timeout=10_000)
    assert page.inner_text("#breadcrumb").split("›") == ["root", "dealer 1", "p0 pass",
                                                         "p1 pass"]
    cells = _cells(page)
    ref = Reference(strategy)
    path = strategy.parse_history("dealer 1, p0 pass, p1 pass")
    tid, reach = ref.walk(path)
    pol = ref.policy_at(tid)
    acts = [c.action for c in strategy.children(strategy.node(path))]
    P = strategy.pair_p
    w = {h: r * sum(P[h, g] * ro for g, ro in reach[1].items()) for h, r in reach[0].items()}
    z = sum(w.values())
    assert len(cells) == strategy.H
    for c in cells:
        assert c["reach"] == pytest.approx(w[c["hand"]] / z, abs=1e-12)
        for a, x in zip(acts, c["probs"], strict=True):
            assert (x is None) == (a not in pol[c["hand"]])
            if x is not None:
                assert x == pytest.approx(pol[c["hand"]][a], abs=1e-12)
        assert c["value"] != ""  # exact values on this small tree
    # sorting by raise frequency reorders the cells, highest first
    page.select_option("#sort", "raise")
    raised = [sum(x or 0 for x, a in zip(c["probs"], acts, strict=True) if a == 8)
              for c in _cells(page)]
    assert raised == sorted(raised, reverse=True)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "explore_browser.png"), full_page=True)
    assert (ARTIFACTS / "explore_browser.png").stat().st_size > 10_000


def test_illegal_history_shows_the_rule_and_the_app_keeps_running(served, page):
    strategy, url = served
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']", timeout=30_000)
    page.fill("#history", "dealer 1, p1 raise")
    page.click("#go")
    page.wait_for_function("document.querySelector('#error').textContent.length > 0")
    assert page.inner_text("#error").startswith("R9.2: item 1 'p1 raise'")
    page.fill("#history", "dealer 0, p1 pass")
    page.press("#history", "Enter")
    page.wait_for_function("document.querySelector('#breadcrumb').textContent.endsWith('p1 pass')")
    assert page.inner_text("#error") == ""
    page.click("#back")
    page.wait_for_function("document.querySelector('#breadcrumb').textContent"
                           ".endsWith('dealer 0')")
