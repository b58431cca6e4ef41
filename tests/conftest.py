import os
import sys
from pathlib import Path

import pytest

# Set before anything imports Qt: the tests never need a screen.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# As main.py does: one BLAS thread (threaded BLAS is much slower on a busy small machine).
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SCENARIOS = ROOT / "resources" / "scenarios"

# The tiers of the suite (docs/testing.md): run one with `python -m pytest -m <tier>`.
TIERS = {
    "core": "plain pytest on core/, no Qt",
    "session": "the Session alone: a QApplication, no widget (tests/app/test_session.py)",
    "widget": "one widget (or a panel of a few) on a Session, without the main window",
    "window": "the whole main window: only what the window itself wires together",
}
WINDOW_FIXTURES = {"blocklab_window", "blocklab_open"}


def pytest_configure(config):
    for tier, meaning in TIERS.items():
        config.addinivalue_line("markers", f"{tier}: {meaning}")


@pytest.hookimpl(tryfirst=True)      # before `-m` deselects by these marks
def pytest_collection_modifyitems(config, items):
    """Mark every test with its tier: tests/core is `core`; in tests/app, a test that builds the
    main window (the plugin's fixtures, or marked `window` by hand) is `window`,
    test_session.py is `session` and any other is `widget`. A test elsewhere in tests/ (the
    package as a whole) carries no tier mark."""
    tests = Path(__file__).resolve().parent
    for item in items:
        if any(item.get_closest_marker(tier) for tier in TIERS):
            continue
        path = Path(item.path).resolve()
        if path.is_relative_to(tests / "core"):
            item.add_marker("core")
        elif not path.is_relative_to(tests / "app"):
            continue
        elif WINDOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker("window")
        elif path.name == "test_session.py":
            item.add_marker("session")
        else:
            item.add_marker("widget")
