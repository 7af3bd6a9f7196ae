"""Kernels through random features: a data-independent feature map ([CMS]_ Alg. 3).

CMS Alg. 3 makes any private *linear* learner a private *kernel* learner: a public draw of
random Fourier features ([RR07]_), applied record by record, and the linear learner on the
mapped rows (docs/privacy/tuning_gd_ledger.md#privacy-random-features). ``gamma`` must be
chosen without the private data; tune it privately with :class:`dpconvex.PrivateGridSearch`.

References
----------
.. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
   Empirical Risk Minimization. JMLR 12 (2011), Section 6 and Alg. 3.
.. [RR07] A. Rahimi, B. Recht. Random Features for Large-Scale Kernel
   Machines. NIPS 2007.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin

from .._validation import (
    CheckedParamNames,
    check_array_entries,
    check_fitted,
    check_float,
    check_int,
    checks_feature_names,
    feature_names_of,
    noise_source,
    with_feature_names,
)
from ..data.ranged_rows import RangedRows
from ..data.validation import check_array
from ..errors import ParameterError

if TYPE_CHECKING:
    from .base import FitContext

__all__ = ["COMPONENTS_CONSTANT", "COMPONENTS_RANGE", "MAX_COMPONENTS", "RandomFourierFeatures",
           "auto_components"]

#: C of :func:`auto_components`, D = C (n ε)^{2/3}. Chosen on validation splits of the
#: TRAINING data only (Adult: adult.data 80/20; KDDCup99: 80/20 inside the 50,000 training
#: rows of the 70,000-row sample), never on a test set: benchmarks/rff_components_rule.py,
#: docs/privacy/tuning_gd_ledger.md#privacy-n-components-auto.
COMPONENTS_CONSTANT = 0.1
#: Smallest and largest D the rule returns.
COMPONENTS_RANGE = (10, 1000)
#: Largest D accepted (1000 times the rule's largest): the mapped data hold n·D floats.
MAX_COMPONENTS = 10**6
#: The spawn key of an int ``random_state``'s released features: no learner's seed or its children reach it.
FEATURE_STREAM = 0x52464620


def auto_components(n: int, epsilon: float, *, constant: float = COMPONENTS_CONSTANT) -> int:
    """Number D of random features from public quantities: round(C (n ε)^{2/3}), clipped.

    The private linear learner on the D mapped features pays an excess risk that grows linearly in D
    (objective perturbation: E‖b‖ = 2 p G/ε' with p = D + 1, excess ∝ R p G/(n ε) at the balancing Λ), while
    the random-feature approximation of a kernel predictor costs O(1/√D) (Rahimi & Recht 2008). Balancing a/√D
    against b D/(n ε) gives D ∝ (n ε)^{2/3}; the constant C is fitted on validation data
    (:data:`COMPONENTS_CONSTANT`). Reads n, the number of training records (public under replace-one
    adjacency), and ε, the budget of the learner that follows (inf: the largest D), never a data value
    (docs/privacy/tuning_gd_ledger.md#privacy-n-components-auto).

    Parameters
    ----------
    n : int
        The number of training records.
    epsilon : float
        ε of the learner that follows (inf: the largest D).
    constant : float, default=COMPONENTS_CONSTANT
        C.

    Returns
    -------
    int
        D, within ``COMPONENTS_RANGE``.

    Examples
    --------
    >>> from dpconvex.estimators.kernels import auto_components
    >>> auto_components(1000, 1.0) <= auto_components(100000, 1.0)
    True
    """
    fewest, most = COMPONENTS_RANGE
    if not math.isfinite(float(epsilon)):
        return most
    value = float(constant) * (float(n) * float(epsilon)) ** (2.0 / 3.0)
    return int(min(max(round(value), fewest), most))


class RandomFourierFeatures(
    ClassNamePrefixFeaturesOutMixin, TransformerMixin, CheckedParamNames, BaseEstimator
):
    """Random Fourier features of the Gaussian (RBF) kernel, rows of norm <= 1 ([CMS]_ Alg. 3).

    Approximates k(x, x') = exp(-gamma ||x - x'||^2): ``fit`` draws ω_j ~ N(0, 2·gamma·I_d)
    and b_j ~ U[0, 2π) from the number of input features d alone, and ``transform`` maps x
    to z(x) = (1/sqrt(D)) (cos(ω_jᵀx + b_j))_{j=1..D}, so ``||z(x)|| <= 1`` for every x
    (docs/privacy/tuning_gd_ledger.md#privacy-random-features). Use ``data_norm=1.0``
    (:attr:`data_norm`) in the private linear learner that follows.

    Parameters
    ----------
    n_components : int or "auto", default=100
        Number D of random features (a larger D costs accuracy at small ε). ``"auto"``:
        D = :func:`auto_components` (n, ``learner_epsilon``), n the number of rows passed to
        ``fit`` (docs/privacy/tuning_gd_ledger.md#privacy-n-components-auto). At most
        :data:`MAX_COMPONENTS`, and n_features x D at most 10**8.
    gamma : float, default=1.0
        Kernel width, > 0. Public: never set it from the data.
    learner_epsilon : float or None, default=None
        The ε of the private learner that follows, read only by ``n_components="auto"``
        (required there). The map itself spends no budget.
    random_state : None or int, default=None
        None seeds from the OS at each fit; an int fixes the draw (data-independent and
        released), from its own stream of that seed. An int here is public in effect whatever
        its size: the released ``random_weights_`` are a function of it (a small int is found
        by trying seeds), and the same int on the private learner would rebuild its noise.
        Never give a learner the int given here (leave the learner's ``random_state`` None).
        Inside a search the search's source is used instead. A generator is refused.

    Attributes
    ----------
    random_weights_ : ndarray of shape (n_features, n_components)
        The frequencies ω (columns). Part of the released model.
    random_offset_ : ndarray of shape (n_components,)
        The phases b. Part of the released model.
    n_features_in_ : int
    n_components_ : int
        D actually used (the rule's value for ``n_components="auto"``).
    data_norm : float
        Public bound on the norm of every transformed row: 1.0.

    References
    ----------
    [CMS]_ Algorithm 3 (private kernel learning with random features).

    Examples
    --------
    A circle-shaped problem (the map draws from the shape of X only):

    >>> import numpy as np
    >>> from sklearn.pipeline import make_pipeline
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.estimators.kernels import RandomFourierFeatures
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(1000, 2))
    >>> y = (np.linalg.norm(X, axis=1) > 1.2).astype(int)
    >>> rff = RandomFourierFeatures(n_components=20, gamma=0.5, random_state=0)  # public
    >>> clf = make_pipeline(rff, PrivateLogisticRegression(epsilon=1.0, classes=[0, 1],
    ...                     data_norm=rff.data_norm, random_state=None)).fit(X, y)
    >>> Z = rff.transform(X)
    >>> Z.shape, bool(np.linalg.norm(Z, axis=1).max() <= 1.0)
    ((1000, 20), True)
    """

    #: Public bound on ||transform(x)|| for every x.
    data_norm: float = 1.0

    def __init__(
        self,
        n_components: int | str = 100,
        gamma: float = 1.0,
        random_state: int | None = None,
        learner_epsilon: float | None = None,
    ):
        self.n_components = n_components
        self.gamma = gamma
        self.random_state = random_state
        self.learner_epsilon = learner_epsilon

    def fit(self, X: Any, y: Any = None, *,
            context: FitContext | None = None) -> RandomFourierFeatures:
        """Draw the random parameters. Only the shape of X is used: a scikit-learn fit, not a
        private one (the draws are released, and read no record).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Read for its shape only (and validated): d always, n only for ``n_components="auto"``.
        y : ignored
        context : FitContext or None
            As a meta-estimator's step: the context its fit issued (the generator to draw
            from, else ``random_state``); any other is refused
            (:func:`~dpconvex.estimators.base.check_context`).

        Returns
        -------
        RandomFourierFeatures
            ``self``, with ``random_weights_``, ``random_offset_`` and ``n_components_``.

        Raises
        ------
        ParameterError
            ``n_components`` neither an int in range nor "auto", an invalid ``gamma``, or
            ``n_components="auto"`` without ``learner_epsilon``.

        Examples
        --------
        >>> from dpconvex.estimators.kernels import RandomFourierFeatures
        >>> rff = RandomFourierFeatures(n_components=4, random_state=0).fit(X)
        >>> rff.random_weights_.shape, rff.random_offset_.shape
        ((3, 4), (4,))
        """
        from .base import NO_CONTEXT, check_context

        owner = type(self).__name__
        # a draw from the shape of X alone: no budget held, nothing private released
        context = check_context(NO_CONTEXT if context is None else context, f"{owner}.fit")
        names = feature_names_of(X, f"{owner}.fit")
        auto = isinstance(self.n_components, str) and self.n_components == "auto"
        if isinstance(self.n_components, str) and not auto:
            raise ParameterError(f"The 'n_components' parameter of {owner} must be an int >= 1 "
                                 f"or 'auto'. Got {self.n_components!r} instead.")
        D = 0 if auto else check_int(
            "n_components", self.n_components, owner, high=MAX_COMPONENTS,
            why="the private learner that follows adds noise in every one of the D dimensions "
                "and holds n x D mapped rows")
        gamma = check_float("gamma", self.gamma, owner)
        if auto and self.learner_epsilon is None:
            raise ParameterError(
                f"The 'learner_epsilon' parameter of {owner} must be set with "
                "n_components='auto': it is the budget of the private learner that follows "
                "(D grows with n·epsilon; "
                "docs/privacy/tuning_gd_ledger.md#privacy-n-components-auto). Pass "
                "learner_epsilon, or an int n_components."
            )
        learner_epsilon = None if self.learner_epsilon is None else check_float(
            "learner_epsilon", self.learner_epsilon, owner, allow_inf=True)
        # a meta-estimator's step: the generator its fit hands it; else from an int
        # random_state, a stream of its own, never a learner's
        feature_rng = noise_source(self, context.noise, stream=FEATURE_STREAM).rng
        n, d = check_array(X, f"{owner}.fit").shape
        if auto:
            D = auto_components(n, learner_epsilon)
        check_array_entries(d * D, f"random_weights_ (n_features x n_components = {d} x {D})",
                            f"{owner}.fit", "Lower n_components.")
        self.random_weights_ = feature_rng.normal(0.0, math.sqrt(2.0 * gamma), size=(d, D))
        self.random_offset_ = feature_rng.uniform(0.0, 2.0 * math.pi, size=D)
        self.n_features_in_ = d
        self.n_components_ = D
        self._n_features_out = D
        return with_feature_names(self, names)

    @checks_feature_names
    def transform(self, X: Any) -> np.ndarray:
        """Map X to (1/sqrt(D)) cos(X ω + b); every row has norm <= 1. A coordinate whose
        argument leaves the float range (a record near it) is 0, silently: a per-record map.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components)

        Examples
        --------
        >>> from dpconvex.estimators.kernels import RandomFourierFeatures
        >>> Z = RandomFourierFeatures(n_components=4, random_state=0).fit(X).transform(X)
        >>> Z.shape, bool(np.linalg.norm(Z, axis=1).max() <= 1.0)
        ((40, 4), True)
        """
        check_fitted(self, "random_weights_")
        rows = check_array(X, f"{type(self).__name__}.transform", n_features=self.n_features_in_)
        D = self.random_weights_.shape[1]
        with np.errstate(all="ignore"):  # a warning would tell a record's size
            argument = rows @ self.random_weights_ + self.random_offset_
            Z = np.where(np.isfinite(argument), np.cos(argument), 0.0) / math.sqrt(D)
        source = X.source if isinstance(X, RangedRows) else None  # rows of a schema not public
        return Z if source is None else RangedRows(Z, None, source)

    def approximate_kernel(self, X: Any, Y: Any = None) -> np.ndarray:
        """The kernel matrix implied by the features: 2 z(X) z(Y)ᵀ ≈ exp(-gamma ||x - y||^2).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.
        Y : array-like of shape (m_samples, n_features) or None, default=None
            Other rows (None: X).

        Returns
        -------
        ndarray of shape (n_samples, m_samples)

        Examples
        --------
        >>> from dpconvex.estimators.kernels import RandomFourierFeatures
        >>> rff = RandomFourierFeatures(n_components=2000, gamma=0.5, random_state=0).fit(X)
        >>> exact = np.exp(-0.5 * np.sum((X[0] - X[1]) ** 2))
        >>> bool(abs(rff.approximate_kernel(X[:1], X[1:2])[0, 0] - exact) < 0.1)
        True
        """
        ZX = self.transform(X)
        ZY = ZX if Y is None else self.transform(Y)
        return 2.0 * ZX @ ZY.T
