"""Block Lab's engine: pure NumPy math and file formats. Never imports Qt or `app`."""
from .block import HOOK_NAMES, Trace, forward, mse
from .config import ACTIVATIONS, MASKS, NORMS, PLACEMENTS, BlockConfig, ConfigError, weight_shapes
from .explain import Explanation, Term, explain
from .fit import LinearFit, least_squares
from .lesson import (PANELS, Lesson, LessonError, LessonStep, Text, list_lessons, load_lesson, parse_placeholders,
                     render_caption)
from .params import ModelShape, count_parameters, ffn_parameters
from .scenario import Scenario, ScenarioError, load_scenario, parse_scenario, save_scenario, scenario_to_json

__all__ = [
    "HOOK_NAMES", "Trace", "forward", "mse",
    "ACTIVATIONS", "MASKS", "NORMS", "PLACEMENTS", "BlockConfig", "ConfigError", "weight_shapes",
    "Explanation", "Term", "explain", "LinearFit", "least_squares",
    "PANELS", "Lesson", "LessonError", "LessonStep", "Text", "list_lessons", "load_lesson", "parse_placeholders",
    "render_caption",
    "ModelShape", "count_parameters", "ffn_parameters",
    "Scenario", "ScenarioError", "load_scenario", "parse_scenario", "save_scenario", "scenario_to_json",
]
