"""One-vs-rest for the binary private learners, with the budget split inside the estimator.

Each of the C binary problems ("class c" vs "the rest") reads every record, so
parallel composition does not apply: the C releases compose sequentially, and
each gets ε/C (and δ/C) through :func:`dpconvex.privacy.budget.split_even`
(Dwork & Roth 2014, Thm. 3.16). The certificate is the composition of the C
binary certificates, for the whole model. The label set is public (``classes=``,
declared with y, or read from y with a warning and flagged "assumed public",
:mod:`dpconvex.labels`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import clone

from ._random import assign_noise, noise_source
from ._validation import check_labels, computed
from .errors import DPConvexError
from .labels import encode_labels, label_set_of
from .privacy.accounting import reserve_budget
from .privacy.budget import split_even
from .privacy.certificate import compose_sequential

__all__ = ["OneVsRestMixin"]


class OneVsRestMixin:
    """``fit`` on more than two classes: C private binary models, ε split evenly.

    The host class is a binary dpconvex estimator with ``epsilon``, ``classes``,
    ``random_state`` and ``accountant`` parameters (and optionally ``delta``).
    """

    def _label_set(self, X: Any, y: Any) -> np.ndarray | None:
        """The public label set when it has more than two labels, else None (binary fit)."""
        if self.classes is not None:
            try:
                c = np.asarray(list(self.classes))
            except (TypeError, ValueError):
                return None  # the binary fit raises the named error on 'classes'
            return c if c.ndim == 1 and c.size > 2 else None
        owner = type(self).__name__
        y = computed(y)  # n labels: small, and n is public
        if y is None:
            return None  # the binary fit raises the named error
        try:
            n = np.asarray(y).shape[0]  # array-likes too (lists, objects with __array__)
            yv = check_labels(y, n, owner)
        except (DPConvexError, IndexError, TypeError, ValueError):
            return None  # the binary fit raises it with the full context (X, lengths)
        c = label_set_of(yv, None, owner)  # declared with y, or read from it (no warning here)
        return c if c is not None and c.size > 2 else None  # None: the binary path raises

    def _binary_clone(self, n_classes: int, random_state: Any = None) -> Any:
        """The unfitted binary model of one class: ε/C (and δ/C), labels {0, 1}, no ledger.

        ``random_state`` is None or an int (never a generator: the binary fits get
        theirs through :func:`dpconvex._random.assign_noise`).
        """
        est = clone(self).set_params(epsilon=split_even(float(self.epsilon), n_classes),
                                     classes=[0, 1], accountant=None, random_state=random_state)
        delta = getattr(self, "delta", None)
        if delta is not None:
            est.set_params(delta=split_even(float(delta), n_classes))
        return est

    def _fit_ovr(self, X: Any, y: Any, classes: np.ndarray) -> Any:
        """Fit one binary model per class on ``(X, y == c)``, each with ε/C (and δ/C)."""
        owner = type(self).__name__
        C = int(classes.size)
        eps = float(self.epsilon)
        delta = getattr(self, "delta", None)
        eps_c = split_even(eps, C)
        y = computed(y)
        yv = check_labels(y, len(y), owner)
        labels = encode_labels(yv, self.classes, owner)  # the set of _label_set; warns if read
        noise = noise_source(self)  # one generator for the C binary fits, in order
        models, certs = [], []
        with reserve_budget(self.accountant, eps, float(delta or 0.0), owner) as hold:
            for c in range(C):
                est = self._binary_clone(C, self.random_state)
                y_c = np.where(labels.outside, -1, (labels.index == c).astype(int))
                with assign_noise({est: noise.rng}, seeded=noise.seeded):
                    models.append(est.fit(X, y_c))
                certs.append(est.certificate_)
            cert = compose_sequential(
                certs, mechanism=f"one-vs-rest over {C} classes: {certs[0].mechanism}",
                epsilon_requested=eps,
                quantities={"classes C": C, "epsilon per class": eps_c},
                assumptions=["one-vs-rest: each binary model reads every record, so the C "
                             "releases compose sequentially (epsilon split evenly)",
                             labels.assumption],
                labels=[f"class {v!r}" for v in classes.tolist()])
            hold.commit_certificate(cert)
        self.classes_ = classes
        self.n_features_in_ = models[0].n_features_in_
        self.coef_ = np.vstack([m.coef_ for m in models])
        self.intercept_ = np.concatenate([m.intercept_ for m in models])
        self.certificate_ = cert
        return self
