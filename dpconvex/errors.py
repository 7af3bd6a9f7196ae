"""All exceptions and warnings raised by dpconvex, in one place.

Every error names the offending part and says what to change. Errors about
user input derive from :class:`ValueError` (so scikit-learn's conventions and
``except ValueError`` catch them); solver failures derive from
:class:`RuntimeError`.
"""

from __future__ import annotations

__all__ = [
    "BudgetError",
    "BudgetPickleError",
    "BudgetProcessError",
    "DPConvexError",
    "DataTypeError",
    "DataValidationError",
    "DatasetError",
    "NotFittedError",
    "ParameterError",
    "PrivacyError",
    "PrivacyLeakWarning",
    "PrivacyWarning",
    "SolverError",
]

from sklearn.exceptions import NotFittedError as _SkNotFittedError


class DPConvexError(Exception):
    """Base class of every exception raised by dpconvex."""


class ParameterError(DPConvexError, ValueError):
    """A constructor or function parameter has an invalid value or type.

    Raised in ``fit`` (scikit-learn convention), with a message of the form
    "The 'epsilon' parameter of X must be a float in (0, inf). Got -1 instead."
    """


class DataValidationError(DPConvexError, ValueError):
    """The data passed to ``fit``/``predict`` is unusable as given.

    NaN or infinite values, wrong shapes, too few rows, a single class, too
    many classes, labels unseen during ``fit``, or rows above the public norm
    bound when clipping is disabled.
    """


class DataTypeError(DataValidationError, TypeError):
    """The data has values that are not numbers (strings, dicts, ...) where numbers are needed."""


class PrivacyError(DPConvexError):
    """A condition of the privacy proof fails; nothing is released.

    The message names the condition (e.g. strong convexity, derivative bound)
    and the change that makes it hold.
    """


class SolverError(DPConvexError, RuntimeError):
    """The optimizer failed or was inaccurate; no model is released.

    Objective perturbation is private only for the exact minimizer of the
    perturbed objective, so an inaccurate solve must not be released.
    """


class BudgetError(DPConvexError):
    """A fit would spend more privacy budget than an accountant has left."""


class BudgetPickleError(BudgetError):
    """A budget ledger was used outside the process and the object that created it.

    A copy in a worker process would record the worker's spends and the
    caller's ledger nothing; dpconvex raises the subclass
    :class:`BudgetProcessError` when a copy is asked to spend. Deliberately not
    a :class:`TypeError` or :class:`pickle.PicklingError`, which some libraries
    catch to fall back to another path.
    """


class BudgetProcessError(BudgetPickleError):
    """A copy of a budget ledger was asked to authorize or record a spend.

    A copy is a ledger unpickled (e.g. in a joblib/loky or multiprocessing
    worker) or inherited by a forked process (``os.fork``, a fork
    ``multiprocessing.Pool`` or ``ProcessPoolExecutor``): its spends would
    never reach the ledger that created it. The message says what to do: fit in
    the process that created the ledger, or give the workers
    ``accountant=None`` and record their guarantees in the ledger with
    ``spend``.
    """


class DatasetError(DPConvexError, OSError):
    """A dataset file is missing or malformed and cannot be fetched."""


class NotFittedError(_SkNotFittedError, DPConvexError):
    """The estimator is used before ``fit``."""


class PrivacyWarning(UserWarning):
    """Something the user should know about the scope of a guarantee."""


class PrivacyLeakWarning(PrivacyWarning):
    """A fact treated as public was read from the private data.

    Issued, in the style of diffprivlib's warning of the same name, when a fit
    reads the label set from y because ``classes=`` was not given: the label set
    fixes the model's shape (the class count and the meaning of each output),
    so one record with a new label changes the released model deterministically.
    The warning's text is the same whatever the data are; pass ``classes=[...]``
    (or y carrying its public label set, as the bundled loaders return it) so
    that nothing about the labels is read from the records.
    """
