"""Block Lab's labs: one core module per lab, and the registry that names them.

To add a lab, write its core module here, its app package in app/labs/, and add one line
below (docs/lessons.md, "Adding a lab").
"""
from core.labs import generations
from core.labs.registry import Lab, UnknownLab, check_part, get_lab, labs, register, unregister

register(Lab("xor", core="core.labs.xor", title="The two-neuron lab",
             parts=("naive", "failure", "ffn", "bias", "compute", "neurons"), panel="app.labs.xor.XorLabPanel"))
register(Lab("ffn-page", core="core.labs.ffn_page", title="The FFN page",
             parts=("formula", "width", "shapes", "shuffle", "misconceptions", "summary"),
             panel="app.labs.ffn_page.FfnPagePanel"))
register(Lab("generations", core="core.labs.generations", title="The block across generations",
             parts=generations.PARTS, panel="app.labs.generations.GenerationsPanel"))

__all__ = ["Lab", "UnknownLab", "check_part", "get_lab", "labs", "register", "unregister"]
