"""One-vs-rest for the binary private learners, with the budget split inside the estimator.

Each of the C binary problems ("class c" vs "the rest") reads every record, so
parallel composition does not apply: the C releases compose sequentially, and
each gets ε/C (and δ/C) through :func:`dpconvex.privacy.budget.split_even`
(Dwork & Roth 2014, Thm. 3.16). The certificate is the composition of the C
binary certificates, for the whole model. The label set is public (``classes=``,
declared with y, or read from y with a warning and flagged "assumed public",
:mod:`dpconvex.data.labels`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import clone

from .._random import assign_noise, noise_source
from ..data.labels import check_labels, encode_labels
from ..data.validation import computed
from ..errors import ParameterError
from ..privacy.budget import Budget, split_even
from ..privacy.certificate import compose_sequential
from .base import FitPlan, Prepared

__all__ = ["OneVsRestMixin", "check_binary_plan", "check_plan_shape"]

#: The certificate note of one-vs-rest (the plan's, and the composed certificate's).
OVR_NOTE = ("one-vs-rest: each binary model reads every record, so the C releases compose "
            "sequentially (epsilon split evenly)")


def check_binary_plan(plan: FitPlan, owner: str) -> None:
    """``prepare`` takes a binary plan; a one-vs-rest plan is prepared per class."""
    if plan.sub_plans:
        raise ParameterError(
            f"{owner}.prepare: the plan is one-vs-rest over {plan.n_classes} classes; prepare "
            "each binary model with its plan (plan.sub_plans[c]) or call fit.")


def check_plan_shape(plan: FitPlan, shape: tuple[int, ...], owner: str) -> None:
    """The data are those the plan was made for (n rows, ``n_features`` columns)."""
    if (int(shape[0]), int(shape[1])) != (plan.n, plan.n_features):
        raise ParameterError(
            f"{owner}.prepare: the plan is for n = {plan.n} rows and {plan.n_features} "
            f"features; X has shape {tuple(int(v) for v in shape)}. Make the plan with "
            "plan(n, n_classes, n_features) of these data (or plan_for(X, y)).")


class OneVsRestMixin:
    """``fit`` on more than two classes: C private binary models, ε split evenly.

    The host class is a binary dpconvex estimator with ``epsilon``, ``classes``,
    ``unknown_labels``, ``random_state`` and ``accountant`` parameters (and optionally
    ``delta``). The binary clones keep ``unknown_labels``: with "raise" a label outside
    the set is refused here, before any budget is held; with "ignore" its record is
    labelled -1 in every binary problem, outside their set {0, 1}, so its row is zeroed.
    """

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

    def _plan_ovr(self, n: int, n_classes: int, n_features: int) -> FitPlan:
        """The plan of C binary models, each with ε/C (and δ/C), composed sequentially."""
        sub = self._binary_clone(n_classes)
        sub._validate_params()
        one = sub._plan(n, 2, n_features)
        delta = getattr(self, "delta", None)
        if not one.budget.private:
            total = one.budget
        elif delta is None:  # δ of each model set by a public rule of n: C of them add up
            total = Budget(float(self.epsilon), sum([one.budget.delta] * n_classes))
        else:
            total = Budget(float(self.epsilon), float(delta))
        return FitPlan(
            estimator=type(self).__name__, n=n, n_classes=n_classes, n_features=n_features,
            template=f"one-vs-rest over {n_classes} x {one.template}", learner=one.learner,
            mechanism=one.mechanism, budget=total, backend=one.backend,
            parts={"each binary model": one.budget}, lam=one.lam, lam_rule=one.lam_rule,
            options=dict(one.options), notes=(OVR_NOTE,), sub_plans=(one,) * n_classes)

    def _fit_sub_plans(self, X: Any, y: Any, plan: FitPlan) -> Any:
        """Fit one binary model per class on ``(X, y == c)`` with its plan (ε/C, δ/C each)."""
        owner = type(self).__name__
        C = plan.n_classes
        eps = float(self.epsilon)
        eps_c = split_even(eps, C)
        y = computed(y)
        yv = check_labels(y, len(y), owner)
        # the set of the plan (warns if read from y); refuses unknown labels before the hold
        labels = encode_labels(yv, self.classes, owner, unknown_labels=self.unknown_labels)
        classes = labels.classes
        noise = noise_source(self)  # one generator for the C binary fits, in order
        models, certs = [], []
        with self._reserve(plan) as hold:
            for c in range(C):
                est = self._binary_clone(C, self.random_state)
                y_c = np.where(labels.outside, -1, (labels.index == c).astype(int))
                sub = plan.sub_plans[c]
                with assign_noise({est: noise.rng}, seeded=noise.seeded):
                    models.append(est.fit_prepared(est.prepare(X, y_c, sub), sub))
                certs.append(est.certificate_)
            cert = compose_sequential(
                certs, mechanism=f"one-vs-rest over {C} classes: {certs[0].mechanism}",
                epsilon_requested=eps,
                quantities={"classes C": C, "epsilon per class": eps_c},
                assumptions=[OVR_NOTE, labels.assumption],
                labels=[f"class {v!r}" for v in classes.tolist()])
            hold.commit_certificate(cert)
        self.classes_ = classes
        self.n_features_in_ = models[0].n_features_in_
        self.coef_ = np.vstack([m.coef_ for m in models])
        self.intercept_ = np.concatenate([m.intercept_ for m in models])
        self.certificate_ = cert
        return self

    def _certify_sub_plans(self, plan: FitPlan, parts: list[Prepared] | None = None) -> Any:
        """The composed certificate of the C binary models' dry runs (nothing drawn or charged)."""
        sub_est = self._binary_clone(plan.n_classes)
        certs = [sub_est._certify(sub_est.prepare_shape(sub) if parts is None else parts[c], sub)
                 for c, sub in enumerate(plan.sub_plans)]
        return compose_sequential(
            certs, mechanism=f"one-vs-rest over {plan.n_classes} classes: {certs[0].mechanism}",
            epsilon_requested=float(self.epsilon),
            quantities={"classes C": plan.n_classes,
                        "epsilon per class": plan.sub_plans[0].budget.epsilon},
            assumptions=[OVR_NOTE], labels=[f"class {c}" for c in range(plan.n_classes)])
