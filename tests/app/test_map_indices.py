"""Issue 13: MapImage finds each value's colour with a few NumPy calls (colour_indices) instead of
pyqtgraph's buffered rescale (about 40 µs a map of six cells, a third of its render); the indices
are pyqtgraph's own, checked over random maps, levels and tables (infinities and empty spans too).
A changed pyqtgraph fails here first."""
import numpy as np
from pyqtgraph.functions_qimage import _rescale_and_lookup_float

from app.explorer.plots.heatmap import colour_indices


def test_colour_indices_are_pyqtgraphs():
    rng = np.random.default_rng(13)
    for trial in range(3000):
        shape = (int(rng.integers(1, 8)), int(rng.integers(1, 12)))
        values = rng.standard_normal(shape) * 10.0 ** rng.uniform(-6, 6)
        if trial % 5 == 1:
            values[rng.random(shape) < 0.2] = np.inf * rng.choice([-1, 1])
        if trial % 5 == 2:
            values = np.round(values, 2)
        values = values.astype(np.float64 if trial % 7 == 0 else np.float32)
        finite = values[np.isfinite(values)]
        limit = (float(np.abs(finite).max()) if finite.size else 1.0) * rng.uniform(0.5, 1.5) or 1.0
        levels = [(-limit, limit), (0.0, 0.0), (rng.uniform(-1, 0) * limit, rng.uniform(0.1, 1) * limit)][trial % 3]
        colours = int(rng.choice([256, 255, 64, 2, 1]))
        expected, _ = _rescale_and_lookup_float(np, values, np.asarray(levels), np.zeros((colours, 3), np.uint8),
                                                forceApplyLut=False)
        found = colour_indices(values, levels, colours)
        assert found.dtype == expected.dtype == np.uint8
        assert np.array_equal(found, expected), (values, levels, colours)


def test_downsample_factors_are_pyqtgraphs(qapp):
    import pyqtgraph as pg

    from app.explorer.plots import look
    from app.explorer.plots.heatmap import Heatmap
    widget = pg.GraphicsLayoutWidget()
    heatmap = Heatmap(look.SEQUENTIAL, downsample=True)
    widget.addItem(heatmap.plot)
    downsampled = 0
    try:
        for size in ((300, 200), (900, 40), (50, 800)):
            widget.resize(*size)
            widget.show()
            qapp.processEvents()
            for shape in ((1, 6), (5, 3072), (700, 40), (2000, 2000)):
                heatmap.set_data(np.zeros(shape, np.float32), (0.0, 1.0))
                qapp.processEvents()
                expected = heatmap.image._computeDownsampleFactors()
                assert heatmap.image._downsample_factors() == expected, (size, shape)
                downsampled += expected != (1, 1)
        assert downsampled >= 3                    # (the cases include maps wider than their pixels)
    finally:
        widget.close()
