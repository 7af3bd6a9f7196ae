"""Privacy: what a release is and how it is certified.

- :mod:`~dpconvex.privacy.budget`: :class:`Budget` (ε, δ), its arithmetic and the ledger;
- :mod:`~dpconvex.privacy.noise`: the noise samplers (norm-Gamma, Gaussian, Laplace);
- :mod:`~dpconvex.privacy.certificate`: certificates;
- :mod:`~dpconvex.privacy.composition`: the certificate of a fit made of releases, by rule;
- :mod:`~dpconvex.privacy.accounting`: the Gaussian calibrations;
- :mod:`~dpconvex.privacy.checks`: the conditions a template's proof needs;
- :mod:`~dpconvex.privacy.mechanisms`: one class per mechanism, one registry;
- :mod:`~dpconvex.privacy.release`: the one release pipeline;
- :mod:`~dpconvex.privacy.rules`: the "auto" rules (public quantities only);
- :mod:`~dpconvex.privacy.verify`: the user-facing verifier of a template.

The privacy layer imports templates, solvers, objectives and data; never estimators.
"""
