"""Block Lab's pytest plugin: the `blocklab_window` and `blocklab_open` fixtures (app/testing.py).

Installing Block Lab registers this module for every pytest run in that environment (entry point
`pytest11`), so it keeps out of the way of test runs that do not use it: loading it imports
nothing but pytest (not Qt, and not Block Lab, whose top-level packages `app` and `core` have
names another project may use for its own), sets no environment variable and adds no option or
hook. Block Lab and Qt are imported only when a test asks for one of these fixtures.
"""
import pytest


@pytest.fixture
def blocklab_window(qtbot):
    """A Block Lab window on the default block, shown offscreen; closed after the test."""
    from app.testing import default_window

    yield from default_window(qtbot)


@pytest.fixture
def blocklab_open(qtbot):
    """A factory: blocklab_open(path, language="en") → a driver on that scenario or lesson."""
    from app.testing import window_factory

    yield from window_factory(qtbot)
