"""A regularizer's strong-convexity modulus, which objective perturbation's noise rests on."""

import pytest

from dpconvex.objectives import L2, Frobenius


@pytest.mark.parametrize("cls", [L2, Frobenius])
def test_the_modulus_follows_lam_when_lam_is_changed_in_place(cls):
    # a notebook may set reg.lam after construction; the verifier must read the new modulus
    reg = cls(0.1)
    assert reg.strong_convexity == 0.1
    reg.lam = 0.5
    assert reg.strong_convexity == 0.5
