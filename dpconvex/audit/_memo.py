"""Memoized plumbing of the audit adapters: nothing here changes what ``release`` computes.

* :class:`Audited` wraps a library mechanism and computes its public steps
  (conditions, calibration, certificate) once per (template, budget); with
  ``noise_scale`` != 1 it multiplies the noise (a deliberate mis-calibration
  for power checks).
* :class:`OnceUnperturbed` wraps a solver backend and solves each template's
  unperturbed problem once (a deterministic function of the data: the center
  of output perturbation, computed once per sweep by ``epsilon_sweep`` too,
  docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from ..privacy.budget import Budget
from ..privacy.mechanisms import Calibration, Mechanism
from ..privacy.release import release
from ..solvers.base import Backend, SolveResult

if TYPE_CHECKING:
    from ..privacy.certificate import Certificate, Condition
    from ..templates.base import ObjectiveTemplate, Template

T = TypeVar("T")

__all__ = ["Audited", "OnceUnperturbed", "Sampled", "backend_for", "data_key"]


def data_key(*arrays: np.ndarray) -> str:
    """A hash of the arrays' dtypes, shapes and bytes (the adapters' cache key)."""
    h = hashlib.sha1()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str((a.dtype.str, a.shape)).encode())
        h.update(a.tobytes())
    return h.hexdigest()


class Audited(Mechanism["Template"]):
    """A library mechanism with its public steps memoized (and, for power checks, mis-calibrated).

    ``check_budget``, ``run`` and ``solve_condition`` are the inner
    mechanism's. ``conditions``, ``calibrate`` and ``certificate`` are the
    inner mechanism's too, computed once per (template, budget): they draw no
    randomness and give the same result on every run. With ``noise_scale`` s != 1 the calibration's noise
    is multiplied by s (norm-Gamma rate β/s; Gaussian std s·σ) while ε stays
    the claimed one.
    """

    def __init__(self, inner: Mechanism, noise_scale: float = 1.0):
        self.inner = inner
        self.noise_scale = float(noise_scale)
        for attr in ("name", "needs", "private", "solves", "pure", "adds_output_noise"):
            setattr(self, attr, getattr(inner, attr))  # the registry's class attributes, per instance
        self._memo: dict[tuple[str, int, Budget], tuple[Template, Any]] = {}

    def _once(self, what: str, template: Template, budget: Budget, compute: Callable[[], T]) -> T:
        key = (what, id(template), budget)
        if key not in self._memo:  # the template is kept alive with its entry
            self._memo[key] = (template, compute())
        return self._memo[key][1]

    def check_budget(self, budget: Budget) -> Budget:
        return self.inner.check_budget(budget)

    def conditions(self, template: Template, budget: Budget) -> list[Condition]:
        return list(self._once("conditions", template, budget,
                               lambda: self.inner.conditions(template, budget)))

    def calibrate(self, template: Template, budget: Budget) -> Calibration | None:
        def compute() -> Calibration | None:
            cal = self.inner.calibrate(template, budget)
            if cal is None or self.noise_scale == 1.0:
                return cal
            s = self.noise_scale
            extra = dict(cal.extra)
            if "noise std" in extra:
                extra["noise std"] = extra["noise std"] * s
            return dataclasses.replace(cal, noise_rate=cal.noise_rate / s, extra=extra)

        return self._once("calibrate", template, budget, compute)

    def certificate(self, template: Template, budget: Budget, cal: Calibration | None,
                    conditions: list[Condition]) -> Certificate:
        cert = self._once("certificate", template, budget,
                          lambda: self.inner.certificate(template, budget, cal, conditions))
        # release() appends the solve's condition: hand it a fresh list every run
        return dataclasses.replace(cert, conditions=list(cert.conditions),
                                   assumptions=list(cert.assumptions))

    def run(self, template: Template, cal: Calibration | None, backend: Backend,
            rng: np.random.Generator, *, warm_start: np.ndarray | None = None,
            max_iter: int | None = None, tol: float | None = None
            ) -> tuple[np.ndarray, SolveResult | None, bool]:
        return self.inner.run(template, cal, backend, rng, warm_start=warm_start,
                              max_iter=max_iter, tol=tol)

    def solve_condition(self, template: ObjectiveTemplate, result: SolveResult | None,
                        cal: Calibration | None = None) -> list[Condition]:
        return self.inner.solve_condition(template, result, cal)


class Sampled:
    """An adapter whose runs are one ``release`` call each: ``sample`` stacks ``n_runs`` of
    them, flattened to shape (n_runs, p); ``adapter(data, rng)`` is one."""

    def _runs(self, data: Any) -> tuple[Any, Mechanism, Budget, Any, int]:
        """(template, mechanism, budget, backend, p) of the runs on ``data``."""
        raise NotImplementedError

    def sample(self, data: Any, n_runs: int, rng: np.random.Generator) -> np.ndarray:
        """``n_runs`` independent releases (one ``release`` call each), shape (n_runs, p)."""
        template, mechanism, budget, backend, p = self._runs(data)
        out = np.empty((n_runs, p))
        for r in range(n_runs):
            out[r] = np.ravel(release(template, mechanism, budget, backend, rng).theta)
        return out

    def __call__(self, data: Any, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, 1, rng)[0]


class OnceUnperturbed:
    """A solver backend that solves each template's unperturbed problem once.

    The unperturbed solve (no noise, no extra regularization, no warm start)
    is a deterministic function of the data; every other solve is delegated.
    """

    def __init__(self, backend: Backend):
        self.backend = backend
        self._memo: dict[tuple[int, float, int | None], tuple[ObjectiveTemplate, SolveResult]] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.backend, name)

    def solve(self, template: ObjectiveTemplate, b: np.ndarray | None, extra_reg: float = 0.0, *,
              warm_start: np.ndarray | None = None, max_iter: int | None = None) -> SolveResult:
        if b is not None or warm_start is not None:
            return self.backend.solve(template, b, extra_reg, warm_start=warm_start,
                                      max_iter=max_iter)
        key = (id(template), float(extra_reg), max_iter)
        if key not in self._memo:
            self._memo[key] = (template, self.backend.solve(template, None, extra_reg,
                                                            max_iter=max_iter))
        return self._memo[key][1]


def backend_for(solver: Any, template: Template) -> OnceUnperturbed:
    """The registry's backend for ``solver`` (a name or a backend), solving the unperturbed problem once."""
    from ..solvers.base import get_backend

    return OnceUnperturbed(solver if hasattr(solver, "solve") else get_backend(solver, template))
