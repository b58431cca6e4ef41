"""Block Lab's GUI: PySide6 widgets over `core`. Computes no math of its own."""
