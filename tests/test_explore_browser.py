"""The strategy explorer in a real browser: headless Chromium from the system
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

from tests.helpers import needs_extra
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
    needs_extra("explore-test"),
    pytest.mark.skipif(CHROMIUM is None, reason="no Chromium from the system packages "
                       "(apt-get install chromium): the explorer's browser test needs it"),
]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
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
    from playwright import sync_api as sync

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


def _ready(pg, url):
    pg.goto(url)
    pg.wait_for_selector("body[data-ready='1']", timeout=30_000)


def _crumbs_end(pg, label):
    pg.wait_for_function(f"document.querySelector('#breadcrumb').textContent"
                         f".endsWith({json.dumps(label)})", timeout=10_000)


def test_hash_edits_links_and_a_bad_first_hash(served, page):
    """Fresh-user pass 2, items 2, 4 and 13: an edited hash (or a pasted link) opens its
    node, back returns; a bad hash on first load shows the root with the error; no 404
    (a favicon in the page)."""
    strategy, url = served
    _ready(page, url)
    path = ",".join(map(str, strategy.parse_history("dealer 1, p0 pass")))
    page.evaluate(f"location.hash = '#{path}'")
    _crumbs_end(page, "p0 pass")
    assert page.inner_text("#breadcrumb").split("›") == ["root", "dealer 1", "p0 pass"]
    page.evaluate("location.hash = '#" + path.split(",")[0] + "'")
    _crumbs_end(page, "dealer 1")
    page.go_back()
    _crumbs_end(page, "p0 pass")
    # an edited hash that is no node: the error, the node kept, the URL back to it
    page.evaluate("location.hash = '#99,1'")
    page.wait_for_function("document.querySelector('#error').textContent.length > 0")
    assert "action id 99" in page.inner_text("#error")
    assert page.inner_text("#breadcrumb").endswith("p0 pass")
    assert page.evaluate("location.hash") == "#" + path
    # a new tab on a bad link: the root, its children, and the error
    fresh = page.context.browser.new_page()
    missing = []
    fresh.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    _ready(fresh, url + "#99,1")
    try:
        assert fresh.inner_text("#breadcrumb") == "root"
        assert "action id 99 is not a child of the root" in fresh.inner_text("#error")
        assert fresh.locator("#children a.child").count() == 2
        assert fresh.evaluate("location.hash") in ("", "#")
        fresh.wait_for_timeout(500)
        # no 404 but the bad path's own (no favicon.ico: the page has an inline icon)
        assert [u for u in missing if "/api/view" not in u] == [], missing
    finally:
        fresh.close()


@pytest.fixture(scope="module")
def served4(tmp_path_factory):
    from tests.test_explore import _four_player_strategy
    from vitou_ai.explore.app import Server, bind

    s = _four_player_strategy()
    server = Server([s], bind(0)).start()
    yield s, server.url
    server.stop()


def test_four_players_disable_bluffs_and_value_sort(served4, page):
    """Fresh-user pass 2, item 3: no showdown proxy, no values: the controls are disabled
    and the page says why."""
    s, url = served4
    _ready(page, url)
    node = s.root
    while node.kind != 1 or not node.path:  # a decision node below the root
        node = s.child(node, 0)
    page.evaluate(f"location.hash = '#{','.join(map(str, node.path))}'")
    page.wait_for_function("document.querySelector('#grid-0') !== null", timeout=10_000)
    assert page.eval_on_selector("#filter option[value='bluffs']", "o => o.disabled")
    assert page.eval_on_selector("#sort option[value='value']", "o => o.disabled")
    assert not page.eval_on_selector("#sort option[value='raise']", "o => o.disabled")
    notes = page.inner_text("#notes")
    assert "bluffs: not flagged for four players" in notes and "values: not exact" in notes


def test_lock_a_node_re_solve_and_see_the_new_mix(served, page):
    """Lock 'dealer 1, p0 pass, p1 pass' to its first action for every hand, re-solve from
    the page, and see the new mix (100% where the old one was not) and a value change;
    the screenshot is docs/guide/img/explore-lock.png's source."""
    strategy, url = served
    page.goto(url + "#" + ",".join(str(a) for a in strategy.parse_history(
        "dealer 1, p0 pass, p1 pass")))
    page.wait_for_selector("body[data-ready='1']", timeout=30_000)
    page.wait_for_selector("#lockgo:not([disabled])", timeout=10_000)
    # a mix not summing to 1 is refused on the page, in one line
    page.fill(".lockp >> nth=0", "0.5")
    page.click("#lockgo")
    page.wait_for_function("document.querySelector('#lockerror').textContent.includes('not 1')",
                           timeout=10_000)
    page.fill(".lockp >> nth=0", "1")
    page.click("#lockgo")
    page.wait_for_selector("#lockresult table.lockcmp", timeout=120_000)
    assert page.inner_text("#lockerror") == ""
    assert page.inner_text("#lockprogress").startswith("done: ")
    rows = page.eval_on_selector_all("#lockresult table.lockcmp tr:not(.lockfreq)", "els => els.slice(1)"
                                     ".map(e => [...e.children].map(c => c.textContent))")
    k = len(strategy.children(strategy.node(strategy.parse_history(
        "dealer 1, p0 pass, p1 pass"))))
    legal = [r for r in rows if r[1] != "-"]  # hands that may take the first action
    assert legal and all(r[2] == "100.0%" for r in legal)  # its new column: the lock
    assert any(r[1] != "100.0%" for r in legal)  # the blueprint did not play it always
    changes = [float(r[2 * k + 3]) for r in rows if r[2 * k + 3] != "-"]
    assert changes and any(abs(x) > 1e-4 for x in changes)
    assert "maximal exploit" in page.inner_text("#lockresult")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "explore_lock.png"), full_page=True)
