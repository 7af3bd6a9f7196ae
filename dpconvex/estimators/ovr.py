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

from ..data.labels import check_labels, encode_labels
from ..data.validation import computed
from ..privacy.budget import Budget, split_even
from ..privacy.certificate import compose_sequential
from .base import FitContext, FitPlan, Prepared

__all__ = ["OneVsRestMixin"]

#: The certificate note of one-vs-rest (the plan's, and the composed certificate's).
OVR_NOTE = ("one-vs-rest: each binary model reads every record, so the C releases compose "
            "sequentially (epsilon split evenly)")


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
        theirs as an argument, :class:`~dpconvex.estimators.base.FitContext`).
        """
        binary_model = clone(self).set_params(
            epsilon=split_even(float(self.epsilon), n_classes), classes=[0, 1], accountant=None,
            random_state=random_state)
        delta = getattr(self, "delta", None)
        if delta is not None:
            binary_model.set_params(delta=split_even(float(delta), n_classes))
        return binary_model

    def _plan_ovr(self, n: int, n_classes: int, n_features: int) -> FitPlan:
        """The plan of C binary models, each with ε/C (and δ/C), composed sequentially."""
        binary_model = self._binary_clone(n_classes)
        binary_model._validate_params()
        binary_plan = binary_model._plan(n, 2, n_features)
        delta = getattr(self, "delta", None)
        if not binary_plan.budget.private:
            total = binary_plan.budget
        elif delta is None:  # δ of each model set by a public rule of n: C of them add up
            total = Budget(float(self.epsilon), sum([binary_plan.budget.delta] * n_classes))
        else:
            total = Budget(float(self.epsilon), float(delta))
        return FitPlan(
            estimator=type(self).__name__, n=n, n_classes=n_classes, n_features=n_features,
            template=f"one-vs-rest over {n_classes} x {binary_plan.template}",
            learner=binary_plan.learner, mechanism=binary_plan.mechanism, budget=total,
            backend=binary_plan.backend, parts={"each binary model": binary_plan.budget},
            lam=binary_plan.lam, lam_rule=binary_plan.lam_rule,
            options=dict(binary_plan.options), notes=(OVR_NOTE,),
            sub_plans=(binary_plan,) * n_classes)

    def _fit_sub_plans(self, X: Any, y: Any, plan: FitPlan, context: FitContext) -> Any:
        """Fit one binary model per class on ``(X, y == c)`` with its plan (ε/C, δ/C each).

        The C binary fits draw from this fit's generator (``context.noise``), in order,
        inside its budget hold.
        """
        owner = type(self).__name__
        C = plan.n_classes
        epsilon_per_class = split_even(float(self.epsilon), C)
        y = computed(y)
        y_checked = check_labels(y, len(y), f"{owner}.fit")
        # the set of the plan (warns if read from y); refuses unknown labels before the hold
        labels = encode_labels(y_checked, self.classes, f"{owner}.fit",
                               unknown_labels=self.unknown_labels, excluded=context.excluded,
                               warning=context.label_warning)
        classes = labels.classes
        binary_context = context.inner(context.noise, held=True)  # one generator, in order
        models, certificates = [], []
        with self._reserve(plan, context) as hold:
            for class_index in range(C):
                binary_model = self._binary_clone(C, self.random_state)
                y_binary = np.where(labels.outside, -1, (labels.index == class_index).astype(int))
                sub_plan = plan.sub_plans[class_index]
                prepared = binary_model.prepare(X, y_binary, sub_plan, context=binary_context)
                models.append(binary_model.fit_prepared(prepared, sub_plan,
                                                        context=binary_context))
                certificates.append(binary_model.certificate_)
            certificate = self._composed(certificates, epsilon_per_class,
                                         [f"class {label!r}" for label in classes.tolist()],
                                         labels.assumption)
            hold.commit_certificate(certificate)
        self.classes_ = classes
        self.n_features_in_ = models[0].n_features_in_
        self.coef_ = np.vstack([model.coef_ for model in models])
        self.intercept_ = np.concatenate([model.intercept_ for model in models])
        self.certificate_ = certificate
        return self

    def _certify_sub_plans(self, plan: FitPlan, parts: list[Prepared] | None = None) -> Any:
        """The composed certificate of the C binary models' dry runs (nothing drawn or charged)."""
        binary_model = self._binary_clone(plan.n_classes)
        certificates = [
            binary_model._certify(binary_model.prepare_shape(sub_plan) if parts is None
                                  else parts[class_index], sub_plan)
            for class_index, sub_plan in enumerate(plan.sub_plans)]
        return self._composed(certificates, plan.sub_plans[0].budget.epsilon,
                              [f"class {class_index}" for class_index in range(plan.n_classes)])

    def _composed(self, certificates: list[Any], epsilon_per_class: float, labels: list[str],
                  *assumptions: Any) -> Any:
        """The sequential composition of the C binary certificates, for the whole model."""
        C = len(certificates)
        return compose_sequential(
            certificates, mechanism=f"one-vs-rest over {C} classes: {certificates[0].mechanism}",
            epsilon_requested=float(self.epsilon),
            quantities={"classes C": C, "epsilon per class": epsilon_per_class},
            assumptions=[OVR_NOTE, *assumptions], labels=labels)
