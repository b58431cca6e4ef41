"""How fast the trained-model lab reaches the screen, with 128 characters of text (the context).

Measures, as median and 95th percentile in milliseconds:
  (a) switching the shown neuron until the neuron view has repainted (target p95 ≤ 16 ms);
  (b) typing one character until the predictions and the neuron view have repainted (≤ 50 ms);
  (c) a single-weight edit in layer i of the layer open in the explorer, until the model is
      recomputed from layer i on and the lab has repainted (≤ 50 ms), for every layer — and checks
      that the layers below i were reused, not recomputed.
The lab panel runs on a Session without the main window: the explorer's own views at d = 256
are measured by tools/bench.py. The last lines are `<name>_p95_ms=<number>`.

    QT_QPA_PLATFORM=offscreen python tools/bench_model.py [--samples 100] [--rank-chars N]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from bench_common import Clock, percentile_ms, until_painted, watch  # first: sets the environment
from PySide6.QtWidgets import QApplication, QWidget


def surfaces(part: QWidget) -> list[QWidget]:
    """What a part paints with: its custom views, table viewports, labels (visible ones)."""
    from PySide6.QtWidgets import QLabel
    found = []
    for widget in part.findChildren(QWidget):
        if not widget.isVisible():
            continue
        if widget.objectName() in ("modelNeuronText", "modelTypeText", "modelSnippets") \
                or widget.objectName() == "qt_scrollarea_viewport":
            found.append(widget)
        elif isinstance(widget, QLabel) and widget.objectName() in ("modelNeuronTextLegend", "modelTypeInfo",
                                                                     "modelPredictionsTitle"):
            found.append(widget)
    return found


def report(name: str, samples: list[tuple[float, float]], target: float) -> None:
    wall, cpu = [w for w, _ in samples], [c for _, c in samples]
    print(f"{name} (target p95 ≤ {target:g} ms, n = {len(samples)}):")
    for label, values in (("wall clock", wall), ("GUI-thread CPU", cpu)):
        p95 = percentile_ms(values, 95)
        print(f"    {label:15s} median {percentile_ms(values, 50):7.1f} ms   p95 {p95:7.1f} ms   "
              f"{'ok' if p95 <= target else 'OVER'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--rank-chars", type=int, default=None,
                        help="rank layer 2 over the first N characters only (default: the whole validation text)")
    args = parser.parse_args()

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from app.labs.model import ModelLabPanel
    from app.labs.model.state import ModelLabState
    from app.session import Session
    from core.formats.scenario import load_scenario
    from core.resources import default_scenario

    ModelLabState.RANK_CHARS = args.rank_chars
    session = Session(load_scenario(default_scenario()))
    start = time.perf_counter()
    panel = ModelLabPanel(session)
    print(f"lab panel built (model loaded, first page run) in {(time.perf_counter() - start) * 1000:.0f} ms")
    panel.resize(1100, 760)
    panel.set_focus("neurons")
    panel.show()
    state = panel.state
    start = time.perf_counter()
    while state.rank_job is not None:
        app.processEvents()
        time.sleep(0.01)
    app.processEvents()
    chars = len(state.stats[state.layer].activations)
    print(f"ranked layer {state.layer} over {chars:,} characters in the background in "
          f"{time.perf_counter() - start:.1f} s (the window stayed live)")
    print(f"text on screen: {len(state.view.chars)} characters (validation page {state.page + 1})")

    # (a) switching the shown neuron
    part = panel.part("neurons")
    probes = watch(surfaces(part) + [part.findChild(QWidget, "modelHeatmap").viewport()])
    neurons = list(state.groups().rows()) + list(range(0, state.config.d_ff, 37))
    switch = []
    for k in range(args.samples):
        neuron = neurons[k % len(neurons)]
        if neuron == state.neuron:
            neuron = (neuron + 1) % state.config.d_ff
        start = Clock()
        state.set_neuron(neuron)
        switch.append(until_painted(app, probes, start))

    # (b) typing one character, 128 characters of text
    panel.set_focus("type")
    app.processEvents()
    box = panel.part("type").box
    base = state.val_text[5376:5376 + 127]
    box.setPlainText(base)
    box.moveCursor(box.textCursor().MoveOperation.End)
    for _ in range(5):
        app.processEvents()
    part = panel.part("type")
    probes = watch(surfaces(part))
    typing, lengths = [], set()
    pool = state.val_text[8000:8000 + args.samples]
    for k in range(args.samples):
        start = Clock()
        box.insertPlainText(pool[k])
        typing.append(until_painted(app, probes, start))
        lengths.add(len(state.view.chars))
        if len(box.toPlainText()) > 140:                 # keep the text near the context length
            box.setPlainText(state.typed[-127:])
            box.moveCursor(box.textCursor().MoveOperation.End)
            app.processEvents()
    print(f"typing: the model read {min(lengths)}–{max(lengths)} characters per keystroke")

    # (c) a single-weight edit in layer i of the layer open in the explorer
    panel.set_focus("explorer")
    app.processEvents()
    part = panel.part("explorer")
    edits: dict[int, list[float]] = {}
    reused_ok = True
    for layer in range(state.config.n_layers):
        state.set_layer(layer)
        state.open_in_explorer(layer)
        app.processEvents()
        probes = watch(surfaces(part))
        samples = []
        for k in range(max(20, args.samples // 4)):
            value = 0.05 * ((k % 8) - 4) + 0.01
            start = Clock()
            session.set_value("W_in", (k % 256, (7 * k) % 688), value)
            samples.append(until_painted(app, probes, start))
            view = state.view
            reused_ok &= all(view.trace.blocks[j] is state.base.trace.blocks[j] for j in range(layer))
            reused_ok &= view.trace.blocks[layer] is not state.base.trace.blocks[layer]
        edits[layer] = samples

    print()
    report("switch neuron → repainted", switch, 16)
    report("type a character → predictions and neuron view repainted", typing, 50)
    for layer, samples in edits.items():
        report(f"edit one weight of layer {layer} → model recomputed from layer {layer}, lab repainted", samples, 50)
    print(f"layers below the edited one reused, not recomputed: {'yes' if reused_ok else 'NO'}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average during the run: {load:.1f} on {os.cpu_count()} cores")
    forward = []
    for _ in range(10):
        start = time.perf_counter()
        state.model.forward(state.base.trace.ids)
        forward.append(time.perf_counter() - start)
    print(f"a full forward over 128 characters now: median {percentile_ms(forward, 50):.1f} ms "
          "(docs/model.md, quiet: 40 ms)")
    for name, samples in (("switch_neuron", switch), ("type_char", typing),
                          *((f"edit_layer{layer}", s) for layer, s in edits.items())):
        wall, cpu = [w for w, _ in samples], [c for _, c in samples]
        print(f"{name}_p95_ms={percentile_ms(wall, 95):.2f} cpu_p95_ms={percentile_ms(cpu, 95):.2f}")
    panel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
