"""Thread limits for small solves, with one cached :class:`threadpoolctl.ThreadpoolController`.

``threadpoolctl.threadpool_limits`` scans every loaded shared library on each
call (measured 2.9 ms per call with scikit-learn, SciPy and CVXPY loaded); the
controller scans once and its ``limit`` costs about 0.02 ms.
"""

from __future__ import annotations

from contextlib import AbstractContextManager

from threadpoolctl import ThreadpoolController

_controller: ThreadpoolController | None = None


def single_threaded(user_api: str | None = None) -> AbstractContextManager:
    """Context manager limiting the BLAS / OpenMP pools (or only ``user_api``) to one thread."""
    global _controller
    if _controller is None:  # lazily: the BLAS libraries are loaded by then
        _controller = ThreadpoolController()
    return _controller.limit(limits=1, user_api=user_api)
