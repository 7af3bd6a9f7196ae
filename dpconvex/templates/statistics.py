"""The templates whose mechanism releases a noisy statistic, not a minimizer.

Each holds the public facts its mechanism calibrates from and reads the private data through
one statistic, computed on first use (``StatisticTemplate``: nothing is solved):
:class:`EmpiricalRiskTemplate` (noisy gradient descent), :class:`KMeansTemplate`,
:class:`RangeTemplate` and :class:`VocabularyTemplate` (counts on the public grid of
:mod:`dpconvex.data.log_grid`, [Smith11]_, [KKMN09]_) and :class:`SufficientStatisticsTemplate`
(ridge through Σ x̃x̃ᵀ and Σ u x̃, [Wan18]_). Each class's ``derivation`` names the
docs/privacy section deriving its sensitivity. The templates of one number or one index sit
with their mechanisms (:mod:`dpconvex.privacy.mechanisms.scalar`).

References
----------
.. [Smith11] A. Smith. Privacy-preserving statistical estimation with optimal convergence
   rates. STOC 2011 (the exponential mechanism for quantiles).
.. [KKMN09] A. Korolova, K. Kenthapadi, N. Mishra, A. Ntoulas. Releasing search queries and
   clicks privately. WWW 2009 (the stability-based histogram).
.. [Wan18] Y.-X. Wang. Revisiting differentially private linear regression: optimal and
   adaptive prediction & estimation in unbounded domain. UAI 2018 (SSP).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property
from typing import Any

import numpy as np

from .._validation import conversion_failure, describe_value, is_dpconvex_function
from ..data.log_grid import cell_counts
from ..data.operators import row_norms
from ..data.sufficient import Moments
from ..data.tables import is_missing
from ..errors import ParameterError
from ..objectives.losses import Loss
from ..privacy.certificate import Condition
from .base import EuclideanSpace, StatisticTemplate

__all__ = ["EmpiricalRiskTemplate", "KMeansTemplate", "RangeTemplate",
           "SufficientStatisticsTemplate", "VocabularyTemplate", "assign_nearest", "check_column",
           "check_levels", "zero_statistics"]


# ---------------------------------------------------------------------- empirical risk
class EmpiricalRiskTemplate(StatisticTemplate):
    """Clipped rows, ±1 labels and a margin loss (the problem of noisy gradient descent).

    Parameters
    ----------
    loss : Loss
    data_norm : float
        Public bound on the rows given (intercept column included).
    X : ndarray (n, p)
        Rows with norm <= data_norm (the caller clips).
    y : ndarray (n,)
        Labels in {-1, +1}.

    Examples
    --------
    >>> from dpconvex.templates.statistics import EmpiricalRiskTemplate
    >>> # np, X (40 rows of norm 1), y (labels ±1): the doctest namespace, conftest.py
    >>> template = EmpiricalRiskTemplate(Logistic(), 1.0, X, np.where(X[:, 0] > 0, 1, -1))
    >>> template.n, template.p, sorted(template.capabilities)
    (40, 3, ['per_example_gradients'])
    """

    name = "empirical risk (clipped gradients)"
    kind = "noisy_gd"
    derivation = "docs/privacy/tuning_gd_ledger.md#privacy-noisy-gd"
    capabilities = frozenset({"per_example_gradients"})

    def __init__(self, loss: Loss, data_norm: float, X: np.ndarray, y: np.ndarray):
        self.X = np.asarray(X, dtype=float)
        self.y = np.asarray(y, dtype=float)
        self._build(loss, data_norm, *self.X.shape)

    @classmethod
    def of_problem(cls, loss: Loss, data_norm: float, n: int, p: int) -> EmpiricalRiskTemplate:
        """The template of the public problem alone: n records of p entries, no rows read.

        Its constants are those of the template a fit on n rows builds; it holds no rows and
        runs nothing (a dry run: an estimator's ``certify(n=...)``, the noise checks of a plan).

        Parameters
        ----------
        loss : Loss
            The margin loss.
        data_norm : float
            The public bound q on every row's norm.
        n : int
            Number of records (public).
        p : int
            Number of entries of a row (public).

        Returns
        -------
        EmpiricalRiskTemplate
            The template, its ``X`` and ``y`` None.

        Examples
        --------
        >>> t = EmpiricalRiskTemplate.of_problem(Logistic(), 1.0, n=10**12, p=3)
        >>> t.n, t.p, t.X is None
        (1000000000000, 3, True)
        """
        template = cls.__new__(cls)
        template.X = template.y = None
        template._build(loss, data_norm, n, p)
        return template

    def _build(self, loss: Loss, data_norm: float, n: int, p: int) -> None:
        """Hold the public problem: the loss, the bound, the shape (n, p) and the space."""
        self.loss = loss
        self.data_norm = float(data_norm)
        self.n, self.p = int(n), int(p)
        self.space = EuclideanSpace((self.p,))


# ---------------------------------------------------------------------- kmeans
class _Centers(EuclideanSpace):
    """Centers in the ball of radius q (the release is projected onto it; no post-processing)."""

    def __init__(self, shape: tuple[int, int, int], radius: float):
        super().__init__(shape)
        self.radius = radius

    def project(self, theta: np.ndarray) -> np.ndarray:
        nrm = np.linalg.norm(theta, axis=-1, keepdims=True)
        return theta * np.minimum(1.0, self.radius / np.maximum(nrm, 1e-300))


class KMeansTemplate(StatisticTemplate):
    """Rows clipped to a public norm bound, class indices, and the public k-means settings.

    ``X`` (n, d) holds rows with ||x|| <= ``data_norm`` = q (the caller clips), ``y`` class indices in {0,
    ..., C − 1}, or -1 for a record left out (in no cell: it adds 0 to every count and sum, a per-record
    map: the sensitivities 2 and 2q hold); ``n_iter`` Lloyd iterations from public ``init_centers`` (C, K, d).

    Examples
    --------
    >>> from dpconvex.templates.statistics import KMeansTemplate
    >>> centers = rng.normal(size=(3, 2, 3)) / 4  # np, rng, X: the doctest namespace, conftest.py
    >>> template = KMeansTemplate(X, np.arange(40) % 3, 3, 2, data_norm=1.0, n_iter=2, init_centers=centers)
    >>> template.kind, sorted(template.capabilities), template.K
    ('kmeans', ['cell_sums'], 2)
    """

    name = "per-class k-means"
    kind = "kmeans"
    derivation = "docs/privacy/large_margin.md#privacy-lm-mixture-budget"
    capabilities = frozenset({"cell_sums"})

    def __init__(self, X: np.ndarray, y: np.ndarray, n_classes: int, n_components: int, *,
                 data_norm: float, n_iter: int, init_centers: np.ndarray):
        self.X = X
        self.y = y
        self._build(*X.shape, n_classes, n_components, data_norm, n_iter, init_centers)

    @classmethod
    def of_problem(cls, n: int, d: int, n_classes: int, n_components: int, *,
                   data_norm: float, n_iter: int, init_centers: np.ndarray) -> KMeansTemplate:
        """The template of the public problem alone: n records of d entries in the ball of
        radius ``data_norm``, C classes, K components; no rows or labels read.

        Its constants, conditions and assumptions are those of the template a fit on n rows
        clipped to ``data_norm`` builds (the row norm bound stated as that fit checks it); it
        holds no rows and runs nothing (a dry run: the k-means step of a large-margin
        ``certify``).

        Parameters
        ----------
        n : int
            Number of records (public).
        d : int
            Number of entries of a row.
        n_classes : int
            Number of classes C.
        n_components : int
            Number of components K per class.
        data_norm : float
            The public bound q on every row's norm.
        n_iter : int
            Number of Lloyd iterations.
        init_centers : ndarray of shape (C, K, d)
            The public initial centers.

        Returns
        -------
        KMeansTemplate
            The template, its ``X`` and ``y`` None.

        Examples
        --------
        >>> from dpconvex.templates.statistics import KMeansTemplate
        >>> centers = np.zeros((3, 2, 4))
        >>> t = KMeansTemplate.of_problem(10**12, 4, 3, 2, data_norm=1.0, n_iter=3,
        ...                               init_centers=centers)
        >>> t.n, t.noise_shape, t.X is None, [c.holds for c in t.conditions("dp_kmeans")]
        (1000000000000, (6, 4), True, [True])
        """
        template = cls.__new__(cls)
        template.X = template.y = None
        template._build(n, d, n_classes, n_components, data_norm, n_iter, init_centers)
        return template

    def _build(self, n: int, d: int, n_classes: int, n_components: int, data_norm: float,
               n_iter: int, init_centers: np.ndarray) -> None:
        """Hold the public problem: the shape (n, d), C, K, the bound, the iterations, the
        public starting centers and the space of the released centers."""
        self.n, self.d = int(n), int(d)
        self.C, self.K = int(n_classes), int(n_components)
        self.data_norm = float(data_norm)
        self.n_iter = int(n_iter)
        self.init_centers = init_centers
        self.space = _Centers((self.C, self.K, self.d), self.data_norm)

    @property
    def noise_shape(self) -> tuple[int, ...]:
        return (self.C * self.K, self.d)

    def conditions(self, needs: Iterable[str] | str) -> list[Condition]:
        """The rows within ``data_norm``: the caller clips, the sensitivities read it (checked;
        the public problem alone: as its fit, on rows clipped to the bound, checks them)."""
        within = self.X is None or bool(
            np.all(row_norms(np.asarray(self.X)) <= self.data_norm * (1 + 1e-12)))
        return [Condition("row norm bound", within, "checked on every row",
                          f"every row has ||x|| <= q = {self.data_norm:g}" if within else
                          f"a row is above q = {self.data_norm:g}: clip the rows to q first")]


def assign_nearest(X: np.ndarray, y: np.ndarray, centers: np.ndarray) -> np.ndarray:
    """m_i = argmin_m ||x_i − centers[y_i, m]|| (reads only record i and the centers).

    Examples
    --------
    >>> from dpconvex.templates.statistics import assign_nearest
    >>> centers = np.array([[[0.0, 0.0], [1.0, 1.0]]])   # class 0, two components
    >>> assign_nearest(np.array([[0.1, 0.0], [0.9, 1.2]]), np.array([0, 0]), centers)
    array([0, 1])
    """
    diff = X[:, None, :] - centers[y]  # (n, K, d); K and d are small
    return np.argmin(np.einsum("ikd,ikd->ik", diff, diff), axis=1).astype(np.int64)


# ---------------------------------------------------------------------- range and vocabulary
def check_column(values: Any, caller: str) -> None:
    """Refuse values that are not one per record: a text (whose characters would be taken for
    records), a single value such as a number (it would be taken for a column of one record)
    or an array of other than one dimension (a table's rows would be taken for categories, or
    its entries for records).

    Parameters
    ----------
    values : Any
        The values of a column, one per record.
    caller : str
        The call named in the refusal.

    Raises
    ------
    ParameterError
        ``values`` is a str or bytes, a single value (neither a sequence nor an iterable,
        e.g. a float), has an ``ndim`` other than 1, or is a list or tuple holding a list,
        tuple or array (a table's rows).

    Examples
    --------
    >>> from dpconvex.templates.statistics import check_column
    >>> check_column(["a", "b"], "demo")
    >>> check_column("ab", "demo")
    Traceback (most recent call last):
    ...
    dpconvex.errors.ParameterError: demo: the values are a str, not one value per record. ...
    >>> check_column(3.5, "demo")
    Traceback (most recent call last):
    ...
    dpconvex.errors.ParameterError: demo: the values are a single float, not one value per ...
    """
    if not hasattr(values, "ndim") and not hasattr(values, "__len__") and \
            not isinstance(values, Iterable):
        raise ParameterError(
            f"{caller}: the values are a single {type(values).__name__}, not one value per "
            "record. Pass a 1-D column, one value per record (a 1-D array or a list; [value] "
            "for one record).")
    if isinstance(values, (str, bytes)):
        got = f"a {type(values).__name__}"
    elif getattr(values, "ndim", 1) != 1:
        got = f"an array of {values.ndim} dimensions"
    elif isinstance(values, (list, tuple)) and any(
            isinstance(v, (list, tuple, np.ndarray)) for v in values):
        got = "a table (a sequence of rows)"
    else:
        return
    raise ParameterError(f"{caller}: the values are {got}, not one value per record. Give one "
                         "value per record: a column (a 1-D array or a list), not a text or a "
                         "table.")


def check_levels(levels: object, owner: str, name: str = "levels") -> tuple[float, float]:
    """Two quantile levels 0 <= q_lo < q_hi <= 1 (public), as floats.

    Examples
    --------
    >>> from dpconvex.templates.statistics import check_levels
    >>> check_levels((0.01, 0.99), "Demo")
    (0.01, 0.99)
    """
    try:
        lo, hi = (float(v) for v in levels)  # type: ignore[union-attr]
    except (TypeError, ValueError, ArithmeticError):  # 10**400, Decimal("sNaN"): overflow
        lo = hi = math.nan
    if not (0.0 <= lo < hi <= 1.0):
        raise ParameterError(f"The '{name}' parameter of {owner} must be two quantile levels "
                             f"(q_lo, q_hi) with 0 <= q_lo < q_hi <= 1, e.g. (0.01, 0.99). Got "
                             f"{describe_value(levels)} instead.")
    return lo, hi


class RangeTemplate(StatisticTemplate):
    """n values seen through their counts on the public grid: what a private range reads.

    Offers the capability ``"grid_counts"``: ``cell_counts`` (the count of values in each
    cell of :mod:`dpconvex.data.log_grid`, computed here from the values on first use: a
    statistic of the data), ``levels`` (the public quantile levels of the bounds) and
    ``refine`` (whether the bounds are refined inside the coarse range, decided by a public
    rule: :func:`dpconvex.privacy.rules.bounds.refine_range`). The template counts the values
    itself, so the counts' sensitivity rests on no caller's count.

    Parameters
    ----------
    values : array-like of float, or callable returning it
        One value per record (NaN and infinite ones count in no cell); a callable is called
        once, on first use.
    n : int
        Number of records (public); a record whose value is missing is counted in no cell.
    levels : (float, float)
        Quantile levels (q_lo, q_hi) of the bounds.
    refine : bool
        Refine the bounds inside the coarse range by the exponential mechanism.
    name : str
        What the values are (e.g. "column 'age'"), for the certificate.

    Raises
    ------
    ParameterError
        ``n`` below 1, ``levels`` not two quantile levels, or ``values`` a text or an array of
        other than one dimension (:func:`check_column`; values a callable computes: when
        ``cell_counts`` reads them).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import Budget, release
    >>> from dpconvex.templates.statistics import RangeTemplate
    >>> ages = np.random.default_rng(0).integers(18, 90, 5000).astype(float)
    >>> template = RangeTemplate(ages, 5000, (0.01, 0.99), refine=True)
    >>> lo, hi, _ = release(template, "quantile_range", Budget(1.0), rng=0).theta
    >>> bool(16 <= lo <= 24 and 80 <= hi <= 128)
    True
    """

    name = "range"
    kind = "range"
    derivation = "docs/privacy/bounds.md#privacy-bounds-range"
    capabilities = frozenset({"grid_counts"})
    space = EuclideanSpace((3,))

    def __init__(self, values: np.ndarray | Callable[[], np.ndarray] | None, n: int,
                 levels: Sequence[float], *, refine: bool, name: str = "values"):
        if values is not None and not callable(values):
            check_column(values, "RangeTemplate.__init__")
        self._values = values
        self.n = int(n)
        if self.n < 1:
            raise ParameterError(f"The 'n' parameter of RangeTemplate must be a positive number "
                                 f"of records. Got {describe_value(n)} instead.")
        self.levels = check_levels(levels, "RangeTemplate")
        self.refine = bool(refine)
        self.values_name = str(name)

    @classmethod
    def of_problem(cls, n: int, levels: Sequence[float], *, refine: bool,
                   name: str = "values") -> RangeTemplate:
        """The template of the public problem alone: n records, no values read (a dry run:
        the certificate of a range); reading ``cell_counts`` of it is refused.

        Parameters
        ----------
        n : int
            Number of records (public).
        levels : (float, float)
            Quantile levels (q_lo, q_hi) of the bounds.
        refine : bool
            Refine the bounds inside the coarse range by the exponential mechanism.
        name : str, default="values"
            What the values are, for the certificate.

        Returns
        -------
        RangeTemplate
            The template, holding no values.

        Raises
        ------
        ParameterError
            ``n`` below 1, or ``levels`` not two quantile levels 0 < q_lo < q_hi < 1.

        Examples
        --------
        >>> from dpconvex.templates.statistics import RangeTemplate
        >>> RangeTemplate.of_problem(10**6, (0.01, 0.99), refine=False).n
        1000000
        >>> RangeTemplate.of_problem(10**6, (0.01, 0.99), refine=False).cell_counts
        Traceback (most recent call last):
        ...
        dpconvex.errors.ParameterError: RangeTemplate.cell_counts: the template of the public ...
        """
        return cls(None, n, levels, refine=refine, name=name)

    @cached_property
    def cell_counts(self) -> np.ndarray:
        """The counts per grid cell (computed once, on first use: a statistic of the data)."""
        if self._values is None:
            raise ParameterError("RangeTemplate.cell_counts: the template of the public problem "
                                 "alone holds no values. Build the template over the values.")
        raw = self._values() if callable(self._values) else self._values
        check_column(raw, "RangeTemplate.cell_counts")
        try:
            v = np.asarray(raw, dtype=np.float64)
        except (TypeError, ValueError, OverflowError) as exc:
            failure: type[BaseException] | None = type(exc)
        else:
            failure = None
        if failure is not None:  # raised after the handler: no context holds NumPy's text
            raise ParameterError("RangeTemplate.cell_counts: the values must be numbers, one "
                                 "per record (NaN where missing); they could not be converted "
                                 f"to float: {conversion_failure(failure)}.")
        check_column(v, "RangeTemplate.cell_counts")  # (a list of lists read as a table)
        if v.size > self.n:  # the number given, not of values seen: no data statistic
            raise ParameterError(
                f"RangeTemplate.cell_counts: {v.size} values given for n = {self.n} records. "
                "Give one value per record (NaN where missing).")
        return cell_counts(v[np.isfinite(v)])


class VocabularyTemplate(StatisticTemplate):
    """The categories seen in a column and their counts: what a private vocabulary reads.

    Offers the capability ``"category_counts"``: ``category_counts`` (the count of each
    category seen, in the order of ``categories``, the sorted texts of the values; counted
    here from the values: a statistic of the data). The released vector holds the indices of
    the categories kept.

    Parameters
    ----------
    values : array-like
        One category per record (missing values are no category; bytes are decoded as UTF-8,
        every other value is its ``str``).
    n : int
        Number of records (public).
    name : str
        What the values are, for the certificate.

    Raises
    ------
    ParameterError
        ``values`` a text or an array of other than one dimension (:func:`check_column`), more
        values than records, or ``n`` below 1.

    Examples
    --------
    >>> from dpconvex import Budget, release
    >>> from dpconvex.templates.statistics import VocabularyTemplate
    >>> template = VocabularyTemplate(["a"] * 3000 + ["b"] * 1500 + ["c"] * 2, 4502)
    >>> template.categories, template.category_counts.tolist()
    (('a', 'b', 'c'), [3000, 1500, 2])
    >>> release(template, "stable_vocabulary", Budget(1.0, 1e-6), rng=0).theta.tolist()
    [0, 1]
    """

    name = "vocabulary"
    kind = "vocabulary"
    derivation = "docs/privacy/bounds.md#privacy-bounds-vocabulary"
    capabilities = frozenset({"category_counts"})

    def __init__(self, values: Iterable[object] | None, n: int, *, name: str = "values"):
        self.n = int(n)
        if self.n < 1:
            raise ParameterError(f"The 'n' parameter of VocabularyTemplate must be a positive "
                                 f"number of records. Got {describe_value(n)} instead.")
        if values is not None:
            check_column(values, "VocabularyTemplate.__init__")
        seen: dict[str, int] = {}
        items = [] if values is None else (
            values.tolist() if hasattr(values, "tolist") else list(values))
        if len(items) > self.n:  # the number given, not of values seen: no data statistic
            raise ParameterError(
                f"VocabularyTemplate.__init__: {len(items)} values given for n = {self.n} "
                "records. Give one value per record (None where missing).")
        for v in items:
            if is_missing(v):
                continue
            key = v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)
            seen[key] = seen.get(key, 0) + 1
        self.categories = tuple(sorted(seen))
        self.category_counts = np.array([seen[k] for k in self.categories], dtype=np.int64)
        self.values_name = str(name)
        self.space = EuclideanSpace((max(1, self.category_counts.size),))

    @classmethod
    def of_problem(cls, n: int, *, name: str = "values") -> VocabularyTemplate:
        """The template of the public problem alone: n records, no category seen (a dry run:
        the certificate of a vocabulary).

        Parameters
        ----------
        n : int
            Number of records (public).
        name : str, default="values"
            What the values are, for the certificate.

        Returns
        -------
        VocabularyTemplate
            The template, with no categories.

        Examples
        --------
        >>> from dpconvex.templates.statistics import VocabularyTemplate
        >>> VocabularyTemplate.of_problem(100).category_counts.size
        0
        """
        return cls(None, n, name=name)


# ---------------------------------------------------------------------- sufficient statistics
class SufficientStatisticsTemplate(StatisticTemplate):
    """Rows x̃ with ‖x̃‖ <= q̃ and labels |u| <= 1, seen through A = Σ x̃x̃ᵀ and b = Σ u x̃.

    Offers the capability ``"sufficient_statistics"``: ``gram`` (A), ``cross`` (b),
    ``data_norm`` (q̃), ``ridge`` and ``p``.

    Parameters
    ----------
    statistics : Moments or callable
        The statistics, or a function computing them on first use (the clipping and the label map are the
        caller's per-record maps: ‖x̃‖ <= ``data_norm`` and |u| <= 1 must hold by construction).
    n, p : int
        Rows and columns of the design (public).
    data_norm : float
        The public bound q̃ on every row's norm (the intercept column included).
    ridge : float or None, default=None
        λ given by the caller, in the units of the sums; None: the mechanism chooses it from
        the released statistics.
    free : int or None, default=None
        The coordinate the ridge leaves out (the intercept column, public): its coefficient
        is not shrunk towards 0, as in scikit-learn's ``Ridge``.
    free_value : float or None, default=None
        The public value s of the ``free`` column in every row (the intercept scaling): its
        diagonal entry of A is n·s², known without the data.
    notes : sequence of str, default=()
        Public facts for the certificate (how the rows and labels were mapped).

    Examples
    --------
    >>> from dpconvex.data.sufficient import sufficient_statistics
    >>> from dpconvex.templates.statistics import SufficientStatisticsTemplate
    >>> X = np.array([[0.6, 0.0], [0.0, 0.8], [0.3, 0.3]]); u = np.array([1.0, -1.0, 0.5])
    >>> t = SufficientStatisticsTemplate(lambda: sufficient_statistics(X, u, 1.0, None),
    ...                                  n=3, p=2, data_norm=1.0)
    >>> t.gram.round(2).tolist(), t.cross.round(2).tolist()
    ([[0.45, 0.09], [0.09, 0.73]], [0.75, -0.65])
    """

    name = "sufficient statistics"
    kind = "linear_ssp"
    derivation = "docs/privacy/sufficient_statistics.md#privacy-sufficient-statistics"
    capabilities = frozenset({"sufficient_statistics"})

    def __init__(self, statistics: Moments | Callable[[], Moments] | None, n: int, p: int,
                 data_norm: float, *, ridge: float | None = None, free: int | None = None,
                 free_value: float | None = None, notes: Sequence[str] = ()):
        self._statistics = statistics
        self.n, self.p = int(n), int(p)
        self.data_norm = float(data_norm)
        if not (math.isfinite(self.data_norm) and self.data_norm > 0):
            raise ParameterError("The 'data_norm' argument of SufficientStatisticsTemplate must "
                                 f"be a finite float > 0. Got {describe_value(data_norm)} instead.")
        self.ridge = None if ridge is None else float(ridge)
        self.free = None if free is None else int(free)
        self.free_value = None if free is None or free_value is None else float(free_value)
        self.notes = tuple(notes)
        self.space = EuclideanSpace((self.p,))

    @classmethod
    def of_problem(cls, n: int, p: int, data_norm: float, *, ridge: float | None = None,
                   free: int | None = None, free_value: float | None = None,
                   notes: Sequence[str] = ()) -> SufficientStatisticsTemplate:
        """The template of the public problem alone: n records of p columns, no statistics.

        Its constants, conditions and assumptions are those of the template an estimator's fit
        on n rows builds (the statistics computed by dpconvex from rows it clipped); it reads
        no rows and releases nothing (a dry run: ``certify(n=...)``, the noise checks of a
        plan). Reading ``gram`` or ``cross`` of it is refused.

        Parameters
        ----------
        n, p : int
            Rows and columns of the design (public).
        data_norm : float
            The public bound q̃ on every row's norm (the intercept column included).
        ridge : float or None, default=None
            λ given by the caller; None: the mechanism chooses it.
        free : int or None, default=None
            The coordinate the ridge leaves out (the intercept column).
        free_value : float or None, default=None
            The public value of the ``free`` column in every row.
        notes : sequence of str, default=()
            Public facts for the certificate.

        Returns
        -------
        SufficientStatisticsTemplate
            The template, holding no statistics.

        Raises
        ------
        ParameterError
            ``data_norm`` is not a finite float > 0.

        Examples
        --------
        >>> t = SufficientStatisticsTemplate.of_problem(10**12, 3, 1.0, free=2, free_value=1.0)
        >>> t.n, t.p, t.conditions("sensitivity")
        (1000000000000, 3, [])
        """
        return cls(None, n, p, data_norm, ridge=ridge, free=free, free_value=free_value,
                   notes=notes)

    def conditions(self, needs: Iterable[str] | str) -> list[Condition]:
        """The row and label bounds: by construction where a function of dpconvex's computes the
        statistics (an estimator's, from rows it clipped, or its fit of the public problem
        alone); else the caller's declaration."""
        if self._statistics is None or is_dpconvex_function(self._statistics):
            return []
        return [
            Condition(
                "row and label bounds",
                True,
                "declared, not verified",
                f"statistics computed by the caller: every row ||x~|| <= {self.data_norm:g} and "
                "every label |u| <= 1 by its construction",
                unverified="data_norm",
            )
        ]

    @cached_property
    def _moments(self) -> Moments:
        if self._statistics is None:
            raise ParameterError(
                "SufficientStatisticsTemplate.gram: the template of the public problem alone "
                "holds no statistics. Build the template over the statistics to release them.")
        stats = self._statistics() if callable(self._statistics) else self._statistics
        if stats.gram.shape != (self.p, self.p) or stats.cross.shape != (self.p,):
            raise ParameterError(
                "SufficientStatisticsTemplate.gram: the statistics have shapes "
                f"{stats.gram.shape} "
                f"and {stats.cross.shape}, not ({self.p}, {self.p}) and ({self.p},). Compute "
                "them on the p columns of the design."
            )
        return stats

    @property
    def gram(self) -> np.ndarray:
        """A = Σ x̃x̃ᵀ, shape (p, p)."""
        return self._moments.gram

    @property
    def cross(self) -> np.ndarray:
        """b = Σ u x̃, shape (p,)."""
        return self._moments.cross

    def assumptions(self, needs: Iterable[str]) -> list[str]:
        return list(self.notes)

    def __repr__(self) -> str:
        return f"SufficientStatisticsTemplate(n={self.n}, p={self.p}, q~={self.data_norm:g})"


def zero_statistics(p: int) -> Moments:
    """A = 0 and b = 0 of the shape (p, p), (p,): the template of a plan without data.

    Examples
    --------
    >>> from dpconvex.templates.statistics import zero_statistics
    >>> zero_statistics(2).gram.shape
    (2, 2)
    """
    return Moments(np.zeros((p, p)), np.zeros(p), 0)
