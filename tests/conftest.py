import pytest

from tests.helpers import EXTRA_MODULES, missing_extra, needs_extra


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run slow tests")


@pytest.hookimpl(tryfirst=True)  # before -m selects by the marks
def pytest_collection_modifyitems(config, items):
    # a test of an optional extra skips, saying which extra, when it is not installed
    # (tests/helpers.py, needs_extra); `make test` installs the `test` extra only
    for item in items:
        module = getattr(item, "module", None)
        extra = EXTRA_MODULES.get(getattr(module, "__name__", None))
        if extra is not None:  # the module imports the extra (import_extra)
            item.add_marker(needs_extra(extra))
        for mark in item.iter_markers("extra"):
            reason = missing_extra(*mark.args)
            if reason is not None:
                item.add_marker(pytest.mark.skip(reason=reason))
                break
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: needs --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
