"""The public grid of private ranges: signed powers of two, each cut into equal cells.

A range released without any starting bound needs a finite set of candidate bounds fixed
before the data is read (docs/privacy/bounds.md#privacy-bounds-grid). The grid here covers the real line:
the octaves [2^k, 2^(k+1)) for k = ``K_MIN`` ... ``K_MAX`` on each side of 0, each cut into
``SUB_CELLS`` equal cells, and one cell (−2^K_MIN, 2^K_MIN) around 0. A value beyond
±2^(K_MAX+1) counts in the outermost cell of its side. The grid is a constant of the
library: its edges are public, and a record's cell is a function of that record alone.

Cells are numbered from the most negative to the most positive; :func:`cell_edges` gives
the ``n_cells + 1`` edges in increasing order, :func:`cell_counts` the number of values in
each cell (one pass over the values), :func:`octave_of_cell` the octave a cell lies in
(the coarse histogram).
"""

from __future__ import annotations

from functools import cache

import numpy as np

__all__ = [
    "K_MAX",
    "K_MIN",
    "N_CELLS",
    "N_OCTAVES",
    "SUB_CELLS",
    "cell_counts",
    "cell_edges",
    "cell_of",
    "octave_of_cell",
]

#: The smallest octave [2^K_MIN, 2^(K_MIN+1)); smaller magnitudes share the cell around 0.
K_MIN = -20
#: The largest octave [2^K_MAX, 2^(K_MAX+1)); larger magnitudes count in it.
K_MAX = 62
#: Equal cells per octave (a relative resolution of 1/SUB_CELLS).
SUB_CELLS = 16
_PER_SIDE = (K_MAX - K_MIN + 1) * SUB_CELLS
#: Cells of the grid: both sides and the cell around 0.
N_CELLS = 2 * _PER_SIDE + 1
#: Octaves of the coarse histogram: both sides and the cell around 0.
N_OCTAVES = 2 * (K_MAX - K_MIN + 1) + 1


def cell_of(values: np.ndarray) -> np.ndarray:
    """The grid cell of every value (a per-record map; NaN is not allowed).

    Examples
    --------
    >>> from dpconvex.data.log_grid import N_CELLS, cell_edges, cell_of
    >>> cells = cell_of(np.array([-3.0, 0.0, 1.0, 1.05, 1e300]))
    >>> edges = cell_edges()
    >>> [(float(edges[c]), float(edges[c + 1])) for c in cells[:4]]
    [(-3.125, -3.0), (-9.5367431640625e-07, 9.5367431640625e-07), (1.0, 1.0625), (1.0, 1.0625)]
    >>> int(cells[4]) == N_CELLS - 1
    True
    """
    v = np.asarray(values, dtype=np.float64)
    mag = np.abs(v)
    frac, exp = np.frexp(mag)  # mag = frac · 2^exp, frac in [1/2, 1): octave k = exp − 1
    k = exp.astype(np.int64) - 1
    sub = np.floor((2.0 * frac - 1.0) * SUB_CELLS).astype(np.int64)
    over = k > K_MAX
    sub = np.where(over, SUB_CELLS - 1, np.clip(sub, 0, SUB_CELLS - 1))
    k = np.minimum(k, K_MAX)
    offset = (k - K_MIN) * SUB_CELLS + sub  # 0 ... _PER_SIDE − 1 away from the middle cell
    small = mag < 2.0 ** K_MIN
    cell = np.where(v > 0, _PER_SIDE + 1 + offset, _PER_SIDE - 1 - offset)
    return np.where(small, _PER_SIDE, cell)


@cache
def _edges() -> np.ndarray:
    k = np.repeat(np.arange(K_MIN, K_MAX + 1), SUB_CELLS)
    j = np.tile(np.arange(SUB_CELLS), K_MAX - K_MIN + 1)
    lower = np.ldexp(1.0 + j / SUB_CELLS, k)  # exact: j/16 and powers of two
    upper = np.ldexp(1.0 + (j + 1) / SUB_CELLS, k)
    positive = np.concatenate([[lower[0]], upper])  # 2^K_MIN, then each cell's upper edge
    edges = np.concatenate([-positive[::-1], positive])
    edges.setflags(write=False)
    return edges


def cell_edges() -> np.ndarray:
    """The ``N_CELLS + 1`` edges of the grid, increasing (read-only; public constants).

    Cell c holds the values in [edges[c], edges[c+1]) on the positive side, in
    (edges[c], edges[c+1]] on the negative side, and (−2^K_MIN, 2^K_MIN) in the middle.

    Examples
    --------
    >>> from dpconvex.data.log_grid import N_CELLS, cell_edges
    >>> e = cell_edges()
    >>> e.size == N_CELLS + 1, bool((e[1:] > e[:-1]).all()), float(e[-1]) == 2.0 ** 63
    (True, True, True)
    """
    return _edges()


def octave_of_cell(cells: np.ndarray) -> np.ndarray:
    """The coarse bin of each cell: its octave (numbered like the cells), or the middle cell.

    Examples
    --------
    >>> from dpconvex.data.log_grid import N_OCTAVES, cell_of, octave_of_cell
    >>> octave_of_cell(cell_of(np.array([-1.5, 0.0, 1.0, 1.9, 2.0]))).tolist()
    [62, 83, 104, 104, 105]
    >>> N_OCTAVES
    167
    """
    c = np.asarray(cells, dtype=np.int64)
    pos = (c - _PER_SIDE - 1) // SUB_CELLS + (K_MAX - K_MIN + 1) + 1
    neg = (K_MAX - K_MIN) - (_PER_SIDE - 1 - c) // SUB_CELLS
    return np.where(c > _PER_SIDE, pos, np.where(c < _PER_SIDE, neg, K_MAX - K_MIN + 1))


def cell_counts(values: np.ndarray) -> np.ndarray:
    """How many of the values fall in each cell (one pass; a statistic of the data).

    Examples
    --------
    >>> from dpconvex.data.log_grid import cell_counts
    >>> counts = cell_counts(np.array([1.0, 1.01, 5.0, -7.0]))
    >>> int(counts.sum()), int(counts.max())
    (4, 2)
    """
    return np.bincount(cell_of(values), minlength=N_CELLS)
