"""The "auto" rules: public functions of (n, p, C, ε, δ, the declared constants) only.

- :mod:`~.lam`: the regularization Λ of ``lam="auto"``;
- :mod:`~.large_margin`: the large-margin classifier's "auto" options;
- :mod:`~.noise_dominance`: the warning that the noise dominates the signal (one rule,
  a threshold per family of learners).

No rule reads the data; each returns its reason for the certificate.
"""
