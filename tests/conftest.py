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

from app.launch import serial_painting  # noqa: E402 (imports no Qt; after the path is set)

serial_painting()          # as the application does: Qt paints without its raster thread pool
SCENARIOS = ROOT / "resources" / "scenarios"

# The tiers of the suite (docs/testing.md): run one with `python -m pytest -m <tier>`.
TIERS = {
    "core": "plain pytest on core/, no Qt",
    "session": "the Session alone: a QApplication, no widget (tests/app/test_session.py)",
    "widget": "one widget (or a panel of a few) on a Session, without the main window",
    "window": "the whole main window: only what the window itself wires together",
}
WINDOW_FIXTURES = {"blocklab_window", "blocklab_open"}

# Running in two processes (pytest-xdist: `-n 2 --dist loadgroup` in pyproject.toml). Each test
# file runs whole in one worker, in its own order (its module fixtures made once), and the files
# that read the one presentation walk (tests/app/present_walk.py) run in the same worker, so the
# walk is made once; test_fit_150_generations.py joins them, so that its model-lesson steps get
# the model lab's ranking the walk computed (present_walk._computed, one per process) instead of
# ranking the layer again (about 12 s of CPU). The files below go first, longest first (their
# time in the suite), so that no long file starts last and keeps one worker busy after the other
# has finished (seconds of CPU on a 2-core machine); the rest follow in collection order.
SAME_WORKER = {"app/test_lab_fit.py": "present-walk", "app/test_readability.py": "present-walk",
               "app/test_fit_150_generations.py": "present-walk"}
LONGEST_FIRST = ("app/test_lab_fit.py", "app/test_readability.py", "app/test_fit_150_generations.py",
                 "tools/test_soak.py", "app/test_presentation.py", "app/test_soak_findings.py",
                 "app/test_plots_readable.py", "app/test_live_language.py", "app/test_plots.py",
                 "app/test_plots_exit.py", "app/test_xor_lab.py", "app/test_no_english_in_chinese.py",
                 "app/test_fit_150_on_1024x768.py", "app/test_generations_lab.py", "core/test_incremental.py",
                 "core/test_properties.py", "app/test_run_through_defects.py", "app/test_fit_150_block.py",
                 "test_packaging.py")


def pytest_configure(config):
    for tier, meaning in TIERS.items():
        config.addinivalue_line("markers", f"{tier}: {meaning}")
    config.addinivalue_line("markers", "xdist_group(name): run in the same pytest-xdist worker as the rest of the group")


@pytest.hookimpl(tryfirst=True)      # before `-m` deselects by these marks
def pytest_collection_modifyitems(config, items):
    """Mark every test with its tier: tests/core is `core`; in tests/app, a test that builds the
    main window (the plugin's fixtures, or marked `window` by hand) is `window`,
    test_session.py is `session` and any other is `widget`. A test elsewhere in tests/ (the
    package as a whole) carries no tier mark."""
    tests = Path(__file__).resolve().parent
    _distribute(items, tests, sort=hasattr(config, "workerinput"))       # in an xdist worker
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


def _distribute(items, tests: Path, sort: bool) -> None:
    """Group each test by its file (or shared group) for pytest-xdist's loadgroup; `sort`: put the
    longest files first (a stable sort: every other test keeps its place)."""
    def file_of(item) -> str:
        path = Path(item.path).resolve()
        return path.relative_to(tests).as_posix() if path.is_relative_to(tests) else str(path)

    for item in items:
        name = file_of(item)
        item.add_marker(pytest.mark.xdist_group(SAME_WORKER.get(name, name)))
    if sort:
        rank = {name: position for position, name in enumerate(LONGEST_FIRST)}
        items.sort(key=lambda item: rank.get(file_of(item), len(rank)))
