"""All exceptions and warnings raised by dpconvex, in one place.

Every error names the offending part and says what to change. Errors about
user input derive from :class:`ValueError` (so scikit-learn's conventions and
``except ValueError`` keep working); solver failures derive from
:class:`RuntimeError`.
"""

from __future__ import annotations

__all__ = [
    "BudgetError",
    "BudgetPickleError",
    "DPConvexError",
    "DataTypeError",
    "DataValidationError",
    "DatasetError",
    "NotFittedError",
    "ParameterError",
    "PrivacyError",
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
    """A budget ledger was pickled, e.g. to be sent to a worker process.

    The copy would record the worker's spends and the caller's ledger nothing.
    The message says what to do: fit in one process, or record the workers'
    guarantees in the caller's ledger with ``spend``. Deliberately not a
    :class:`TypeError` or :class:`pickle.PicklingError`, which some libraries
    catch to fall back to another path.
    """


class DatasetError(DPConvexError, OSError):
    """A dataset file is missing or malformed and cannot be fetched."""


class NotFittedError(_SkNotFittedError, DPConvexError):
    """The estimator is used before ``fit``."""


class PrivacyWarning(UserWarning):
    """Something the user should know about the scope of a guarantee."""
