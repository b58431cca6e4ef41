"""The two-neuron lab of lesson C4 (registry id "xor"): why a line cannot say "exactly one of
p, n", and how a two-neuron FFN does.

panel.py assembles the parts under the data table (overview.py, table.py); one module per
part: naive, failure, ffn (with diagram.py), bias, compute, neurons; state.py holds the
naive line's a, b, c and what the table implies.
"""
from app.labs.xor.panel import XorLabPanel

__all__ = ["XorLabPanel"]
