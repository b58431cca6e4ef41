"""Block Lab's entry point: parse the command line and hand over (GUI in `app`, math in `core`)."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

# One BLAS thread, set before NumPy loads: Block Lab's matrices are small enough that threads
# only add overhead, and on a busy 2-core machine threaded BLAS ran the GPT-2-small-sized
# forward 10–30× slower (38 ms → 1 s) than one thread (tools/bench_core.py).
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

DESCRIPTION = """\
Block Lab: explore one Transformer block (attention, FFN, residual sums, normalization)
by editing its weights and watching every intermediate change.

commands:
  (none)                 open the GUI on resources/scenarios/block-default.json
  open FILE              open the GUI on a scenario or lesson file
  trace FILE [--out F]   headless: run the block and print every hook as JSON
  screenshot OUT.png [FILE] [--size WxH] [--lang zh|en] [--lesson ID --step K]
                         [--present] [--zoom PERCENT]
                         render the window offscreen to a PNG
For open and screenshot, FILE may be a scenario (resources/scenarios/*.json) or a lesson
(resources/lessons/*.json); trace takes a scenario.
--present starts in presentation mode (full screen; F5 or Esc leaves it; a screenshot shows
it at --size, as a projector of that size would); --zoom PERCENT sets the interface zoom
from 100 to 250 for this run (the GUI otherwise remembers the last one, Ctrl+= / Ctrl+- / Ctrl+0).
"""

TRACE_HELP = """\
Run the block described by a scenario file and print its trace as JSON:
  {"format": "blocklab-trace", "version": 1, "hooks": {name: nested list}, "mse": number or null}
Hooks use TransformerLens-style names (hook_resid_pre, ln1.hook_out, attn.hook_pattern,
mlp.hook_post, hook_resid_post, ...); parts that are switched off have no hooks.
A masked attention score (-inf) is written as null, since JSON has no infinity.
mse is the mean squared error of hook_resid_post against the scenario's targets, or null.
With --out OUT.npz every hook is an array (masked scores stay -inf) and mse is NaN if absent.
Exit status: 0 on success, 2 with one line on stderr if the file is refused.
"""


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 1280x800, got {text!r}") from None
    if not (200 <= width <= 8192 and 200 <= height <= 8192):
        raise argparse.ArgumentTypeError(f"expected each side from 200 to 8192 pixels, got {text}")
    return width, height


def _zoom(text: str) -> int:
    try:
        percent = int(text.strip().rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a percentage from 100 to 250 such as 150, got {text!r}") from None
    if not 100 <= percent <= 250:
        raise argparse.ArgumentTypeError(f"expected a percentage from 100 to 250, got {text}")
    return percent


def _display_options(parser: argparse.ArgumentParser, top: bool = False, screenshot: bool = False) -> None:
    """--present and --zoom, for the GUI and for screenshots. Below the top parser their default
    is SUPPRESS, so that a command's option never overwrites the same option given before it."""
    present_help = ("render presentation mode (large text, the editing panels hidden)" if screenshot
                    else "start in presentation mode: full screen, large text, the editing panels hidden (Esc leaves)")
    zoom_help = ("interface zoom in percent, 100 to 250 (default 100)" if screenshot
                 else "interface zoom in percent, 100 to 250 (default: the last one chosen in the GUI)")
    parser.add_argument("--present", action="store_true", help=present_help,
                        default=False if top else argparse.SUPPRESS)
    parser.add_argument("--zoom", type=_zoom, metavar="PERCENT", help=zoom_help,
                        default=None if top else argparse.SUPPRESS)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="blocklab", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lang", choices=("zh", "en"), default=None,
                        help="language of the interface (default: Chinese if the system's language is Chinese, else English)")
    _display_options(parser, top=True)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    open_cmd = commands.add_parser("open", help="open the GUI on a scenario or lesson file")
    open_cmd.add_argument("file", type=Path, help="a scenario or a lesson (.json)")
    open_cmd.add_argument("--lang", choices=("zh", "en"), default=argparse.SUPPRESS)
    _display_options(open_cmd)

    trace_cmd = commands.add_parser("trace", help="print every intermediate as JSON (headless)",
                                    description=TRACE_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    trace_cmd.add_argument("file", type=Path, help="a scenario file (.json)")
    trace_cmd.add_argument("--out", type=Path, help="write to OUT.json or OUT.npz instead of printing")

    shot = commands.add_parser("screenshot", help="render the window offscreen to a PNG")
    shot.add_argument("out", type=Path, help="the PNG to write")
    shot.add_argument("file", type=Path, nargs="?", default=None,
                      help="scenario or lesson to show (default: the built-in block)")
    shot.add_argument("--size", type=_size, default=(1280, 800), help="window size WxH (default 1280x800)")
    shot.add_argument("--lang", choices=("zh", "en"), default=argparse.SUPPRESS)
    shot.add_argument("--lesson", metavar="ID", help="a shipped lesson's id, e.g. r45-ffn-residual-norm")
    shot.add_argument("--step", metavar="K", help="the lesson step: 1-based number or step id (default 1)")
    _display_options(shot, screenshot=True)
    return parser


def run_trace(file: Path, out: Path | None) -> int:
    from core.block import mse
    from core.formats.scenario import ScenarioError, load_scenario
    from core.formats.trace_io import trace_json, write_trace

    try:
        scenario = load_scenario(file)
    except ScenarioError as error:
        print(f"blocklab trace: {error}", file=sys.stderr)
        return 2
    trace = scenario.run()
    error_value = None if scenario.targets is None else mse(trace.output, scenario.targets)
    if out is None:
        print(trace_json(trace, error_value))
        return 0
    try:
        write_trace(trace, error_value, out)
    except (OSError, ValueError) as error:
        print(f"blocklab trace: cannot write {out}: {error}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "trace":
        return run_trace(args.file, args.out)
    from app.launch import run_gui, run_screenshot   # Qt is imported only for the GUI commands
    from core.resources import default_scenario

    if args.command == "screenshot":
        return run_screenshot(args.out, args.file or default_scenario(), args.size, args.lang, args.lesson, args.step,
                              present=args.present, zoom=args.zoom)
    file = args.file if args.command == "open" else default_scenario()
    return run_gui(file, args.lang, present=args.present, zoom=args.zoom)


if __name__ == "__main__":
    sys.exit(main())
