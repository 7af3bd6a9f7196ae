"""The "auto" rules: public functions of (n, p, C, ε, δ, the declared constants) only.

- :mod:`~.noise_level`: the rules that weigh a mechanism's noise: the regularization Λ of
  ``lam="auto"`` (and a stated loss's smoothing width), and the warning that the noise
  dominates the signal (one rule, a threshold per family of learners);
- :mod:`~.large_margin`: the large-margin classifier's "auto" options;

No rule reads the data; each returns its reason for the certificate.
"""
