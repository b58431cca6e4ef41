"""The trained-model lab (issue 11): a real 4-layer model's FFN neurons over real text, your own
text through it, any layer opened in the explorer, and what removing the FFN costs.

panel.py assembles the parts: neurons.py (with heatmap.py), typed.py, explorer.py, ablation.py;
state.py is what they share; the long passes run on app/widgets/worker.py's Worker.
"""
from app.labs.model.panel import ModelLabPanel

__all__ = ["ModelLabPanel"]
