"""Block Lab's data: scenarios, lessons, translations and models, shipped as package data.

Nothing here is code; the package exists so that `importlib.resources` finds the files both
in a checkout and in an installed copy. Use `core.resources` to locate them.
"""
