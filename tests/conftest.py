"""The order the suite's modules run in, for pytest-xdist's two workers to finish together.

Under `-n`, pytest-xdist hands out whole modules (`--dist loadscope` in pyproject.toml: a module's
fixtures, such as its one local Ray, are set up once) in the order collected. A module that takes
tens of seconds and comes last leaves the other worker idle until it ends, so modules marked
`long_running` are collected first: they start while the many short modules fill the other worker.
Without xdist the order changes nothing but what runs first.
"""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "long_running: the module takes several seconds to tens of seconds; "
                                       "it is collected before the others (see tests/conftest.py)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Modules holding a long-running test first, each module's tests together and in their own order."""
    long_modules = {getattr(item, "module", None) for item in items if item.get_closest_marker("long_running")}
    items.sort(key=lambda item: getattr(item, "module", None) not in long_modules)


@pytest.fixture(autouse=True, scope="session")
def _own_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The suite's own cache folder (`toolworlds.defect_cache`), never the user's; the commands tests
    start inherit it."""
    import os

    os.environ["TOOLWORLDS_CACHE"] = str(tmp_path_factory.mktemp("cache"))
