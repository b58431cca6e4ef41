"""One walk of presentation mode per configuration, shared by every per-step check.

A window per configuration (1024×768 at 100 % and 1920×1080 at 150 %; Chinese and English)
enters presentation mode and goes through every step of every shipped lesson with the lesson
controller. At each step it runs every check of STEP_CHECKS and keeps what each found, under the
check's name; the tests read them (tests/app/test_readability.py: "readable";
tests/app/test_lab_fit.py: "figure", "scrolling"). Opening each step once per configuration for
all the checks is what keeps the suite fast: the steps' lab pages, plots and diagram are built
and laid out once, not once per test file.

A check is `check(window, at) -> list` (`at`: the Step being shown). Two moments of a step:

- "shown": after two event-loop turns, as a teacher's click shows the step (the readability
  measure always ran here);
- "settled": after the step's background work (a lab's ranking, its plots) has finished and
  been shown, and three more turns.

To add a check, add one line to STEP_CHECKS; a check whose problems belong to an existing
test's report uses that test's name (several checks may feed one name).
"""
from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable

from core.formats.lesson import Lesson, LessonStep, list_lessons, load_lesson
from core.resources import lessons_dir
from tests.app.fit_helpers import cut_tables, scrolling_pages, sideways_tables
from tests.app.lab_figures import figure_whole
from tests.app.readability import CONFIGS, Config, Finding, close, open_presenting, settle, walk_window


@dataclass
class Step:
    """Where the walk is: a configuration's window at one step of one lesson."""
    config: Config
    lesson: Lesson
    position: int                       # 0-based
    seen: Counter                       # texts measured per area, for the whole configuration

    @property
    def step(self) -> LessonStep:
        return self.lesson.steps[self.position]

    @property
    def where(self) -> str:
        """For a Finding: "1024×768 100 % zh, c4-ffn step 3"."""
        return f"{self.config.name}, {self.lesson.id} step {self.position + 1}"

    @property
    def label(self) -> str:
        """Before a problem's text: "  [1024×768 100 % zh, c4-ffn step 3 failure] "."""
        return f"  [{self.where} {self.step.id}] "


def readable(window, at: Step) -> list[Finding]:
    """tests/app/readability.py's measure of every visible text, and the window's size."""
    findings = []
    config = at.config
    if (window.width(), window.height()) != (config.width, config.height):
        findings.append(Finding("window", at.where, "mainWindow", f"the window cannot be {config.width}×"
                                f"{config.height}: it is {window.width()}×{window.height()}"))
    return findings + walk_window(window, at.where, at.seen)


def labelled(check: Callable[..., list[str]]) -> Callable[[object, Step], list[str]]:
    """A check of the window alone whose problems are plain text: at every step, each problem
    prefixed with the configuration and the lesson step."""
    def at_step(window, at: Step) -> list[str]:
        return [at.label + problem for problem in check(window)]
    at_step.__name__ = check.__name__
    return at_step


def figure(window, at: Step) -> list[str]:
    return [at.label + problem for problem in figure_whole(window, at)]


# (name the tests read, moment, check): one line per check, run at every step of every lesson in
# every configuration.
STEP_CHECKS: list[tuple[str, str, Callable]] = [
    ("readable", "shown", readable),                    # test_readability: ≥ 16 px, whole, no overlap
    ("figure", "settled", figure),                      # test_lab_fit: the lab step's figure on screen
    ("scrolling", "settled", labelled(scrolling_pages)),    # test_lab_fit: no page scrolls
    ("scrolling", "settled", labelled(sideways_tables)),    # test_lab_fit: no number table scrolls sideways
    ("scrolling", "settled", labelled(cut_tables)),         # test_lab_fit: no number table scrolls down
]


def window_size(window, at: Step) -> list[str]:
    """The window is still the configuration's size: a step whose panels need more makes it grow
    (off the projector's screen)."""
    config = at.config
    if (window.width(), window.height()) == (config.width, config.height):
        return []
    return [at.label + f"the window grew to {window.width()}×{window.height()}"]


# Checks only the fitted steps' tests ask for by name (rules=(..., "window")).
FIT_CHECKS: list[tuple[str, str, Callable]] = [("window", "settled", window_size)]


@dataclass
class Walk:
    """What one configuration's walk found."""
    config: Config
    steps: int = 0                      # steps walked
    expected_steps: int = 0             # steps the shipped lessons have
    problems: dict[str, list] = field(default_factory=lambda: defaultdict(list))
    seen: Counter = field(default_factory=Counter)
    checked: Counter = field(default_factory=Counter)   # steps each check ran at, by its function's name
    visited: set[tuple[str, str]] = field(default_factory=set)   # (lesson id, step id) of every step shown


_walks: dict[Config, Walk] = {}


def walk(app, config: Config) -> Walk:
    """The walk of one configuration (made once per test run, then remembered)."""
    if config not in _walks:
        _walks[config] = _walk(app, config)
    return _walks[config]


def walk_all(app, configs=CONFIGS) -> list[Walk]:
    return [walk(app, config) for config in configs]


def _walk(app, config: Config, checks=None) -> Walk:
    checks = STEP_CHECKS if checks is None else checks
    result = Walk(config)
    lessons = [load_lesson(path) for _id, _title, path in list_lessons(lessons_dir())]
    result.expected_steps = sum(len(lesson.steps) for lesson in lessons)
    with _model_passes_computed_once():
        window = open_presenting(app, config, lessons[0].path)
        try:
            for lesson in lessons:
                _walk_lesson(app, window, lesson, checks, result)
        finally:
            close(window)
    return result


def _walk_lesson(app, window, lesson: Lesson, checks, result: Walk) -> None:
    from app.widgets.worker import settle as finish_background_work
    if window.lessons.lesson is None or window.lessons.lesson.path != lesson.path:
        window.open_lesson(lesson.path)
    for position in range(len(lesson.steps)):
        window.lessons.go(position)
        at = Step(result.config, lesson, position, result.seen)
        settle(app)
        _run(checks, "shown", window, at, result)
        finish_background_work(app)
        settle(app, 3)
        _run(checks, "settled", window, at, result)
        result.steps += 1
        result.visited.add((lesson.id, at.step.id))


def fitted_steps(app, config: Config, lesson_path, step_ids, rules=("scrolling", "figure")) -> list[str]:
    """What the walk's settled checks of `rules` find at `step_ids` (in that order) of one lesson, in
    a presenting window of `config`: for a configuration the walk does not visit, the tests of the
    steps made to fit there (tests/app/test_fit_150_*.py)."""
    lesson = load_lesson(lesson_path)
    checks = [check for check in STEP_CHECKS + FIT_CHECKS if check[0] in rules and check[1] == "settled"]
    result = Walk(config)
    with _model_passes_computed_once():
        window = open_presenting(app, config, lesson.path)
        try:
            _fit_steps(app, window, config, lesson, step_ids, checks, result)
        finally:
            close(window)
    return [problem for name in rules for problem in result.problems[name]]


def _fit_steps(app, window, config: Config, lesson: Lesson, step_ids, checks, result: Walk) -> None:
    from app.widgets.worker import settle as finish_background_work
    ids = [step.id for step in lesson.steps]
    for step_id in step_ids:
        position = ids.index(step_id)
        window.lessons.go(position)
        settle(app)
        finish_background_work(app)                 # as the walk does: a run, the layer's ranking
        settle(app, 3)
        _run(checks, "settled", window, Step(config, lesson, position, result.seen), result)


def _run(checks, moment: str, window, at: Step, result: Walk) -> None:
    for name, when, check in checks:
        if when == moment:
            result.problems[name] += check(window, at)
            result.checked[check.__name__] += 1


# --- the model lab's long passes, once per test run ------------------------------------------------
# The model lesson's steps rank a layer's 1,024 neurons over the whole validation text and measure
# each FFN's knock-out loss, in the background (about 15 s of CPU per layer). The walk shows each
# step in four configurations; the numbers are the same in each (the same model, text and layer),
# so the first configuration computes them through the lab's own jobs and the others get the same
# results back from those jobs at once. What is shown, and when, is unchanged.
_computed: dict[tuple, object] = {}


def _remembered(name: str, function: Callable) -> Callable:
    def remembered(model, ids=None, *args, progress=None, cancel=None, **kwargs):
        digest = None if ids is None else hashlib.sha1(ids.tobytes()).hexdigest()
        key = (name, id(model), digest, args, tuple(sorted(kwargs.items())))
        if key not in _computed:
            result = function(model, ids, *args, progress=progress, cancel=cancel, **kwargs)
            if result is None:
                return result                 # cancelled: nothing to remember
            _computed[key] = result
        result = _computed[key]
        return dict(result) if isinstance(result, dict) else result     # NeuronStats' arrays are read-only
    return remembered


@contextmanager
def _model_passes_computed_once():
    from app.labs.model import state
    originals = {name: getattr(state, name) for name in ("neuron_stats", "ffn_ablation_losses")}
    for name, function in originals.items():
        setattr(state, name, _remembered(name, function))
    try:
        yield
    finally:
        for name, function in originals.items():
            setattr(state, name, function)
