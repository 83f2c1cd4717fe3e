"""The order of the whole suite, and where its servers write their logs."""

from __future__ import annotations

import pytest
import serverkit


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the tests that drive the browser after all the others, and in each of the two groups
    the tests marked ``slow`` first.

    The browser tests' Playwright driver lasts the rest of the session (``tests/web/conftest.py``),
    and its sync API marks its own event loop as running in this thread between its calls. A test
    that runs a loop of its own (``asyncio.run``, pytest-asyncio, another Playwright) after the
    driver has started in the same process is refused ("cannot be called from a running event
    loop"), so without this order an outcome would depend on which tests ran first (in a
    pytest-xdist worker, or as named on the command line). The slow tests first: a test of minutes
    started last would keep one pytest-xdist worker busy alone at the end. The sort is stable:
    each group keeps its order, the same in every worker."""
    items.sort(key=lambda item: ("playwright" in getattr(item, "fixturenames", ()),
                                 item.get_closest_marker("slow") is None))


@pytest.fixture(scope="session", autouse=True)
def scratch_in_pytest_temp(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The servers' logs and nginx's folders in this session's pytest temporary folder
    (:data:`serverkit.SCRATCH`)."""
    serverkit.SCRATCH = tmp_path_factory.getbasetemp()
