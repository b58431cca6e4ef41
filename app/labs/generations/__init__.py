"""The block across generations (registry id "generations"), one module per part.

panel.py assembles the tabs; table (the seed's table of generations), preset (the generation
in the explorer, and flipping between them), compare (two generations side by side),
residual, placement, overflow, sink, gain (the "stuck at" demonstrations) and parameters (the
whole-model calculator) are the parts; common.py the shared sizes, texts and helpers. The slow
demonstrations run on app/widgets/worker.py's Worker, shown by app/widgets/work_bar.py.
"""
from app.labs.generations.panel import GenerationsPanel

__all__ = ["GenerationsPanel"]
