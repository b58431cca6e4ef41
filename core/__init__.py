"""Block Lab's engine: pure NumPy math and file formats. Never imports Qt or `app`."""
from core.block import HOOK_NAMES, Trace, forward, mse
from core.config import ACTIVATIONS, MASKS, NORMS, PLACEMENTS, BlockConfig, ConfigError, weight_shapes
from core.explain import Explanation, Term, explain
from core.fit import LinearFit, least_squares
from core.formats.lesson import (EXPLORER_PANELS, Lesson, LessonError, LessonStep, Text, list_lessons, load_lesson, parse_placeholders,
                     panel_names, render_caption)
from core.params import ModelShape, count_parameters, ffn_parameters
from core.formats.scenario import Scenario, ScenarioError, load_scenario, parse_scenario, save_scenario, scenario_to_json

__all__ = [
    "HOOK_NAMES", "Trace", "forward", "mse",
    "ACTIVATIONS", "MASKS", "NORMS", "PLACEMENTS", "BlockConfig", "ConfigError", "weight_shapes",
    "Explanation", "Term", "explain", "LinearFit", "least_squares",
    "EXPLORER_PANELS", "Lesson", "LessonError", "LessonStep", "Text", "list_lessons", "load_lesson", "parse_placeholders",
    "panel_names", "render_caption",
    "ModelShape", "count_parameters", "ffn_parameters",
    "Scenario", "ScenarioError", "load_scenario", "parse_scenario", "save_scenario", "scenario_to_json",
]
