"""Privacy accounting: the Gaussian calibrations (analytic, objective, composed over steps)."""
