"""The Adult-sized table of docs/privacy/perturbation.md#privacy-jacobian-slack, recomputed.

Each row is the objective-perturbation calibration (slack, Δ, ε′) of linear ERM at n = 30,162,
q = 1, p = 105, with the one-sided slack (the default) and the two-sided one
(``slack="two_sided"``), at a given Λ or at the Λ of ``lam="auto"``
(:func:`~dpconvex.privacy.rules.noise_level.auto_lam`); the sentence under the table gives
the Λ that rule would choose from a two-sided calibration of its grid. The test compares the
page with what this file prints, at the page's printed precision (the same format).

Regenerate the rows: ``python tests/privacy/test_perturbation_table.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

from dpconvex.objectives.losses import HuberHinge, Logistic, Loss
from dpconvex.privacy.mechanisms import calibrate_objective_perturbation, get_mechanism
from dpconvex.privacy.mechanisms.base import Calibration, at_modulus
from dpconvex.privacy.rules.noise_level import LAM_GRID, auto_lam
from dpconvex.templates.linear_erm import LinearERMTemplate

PAGE = Path(__file__).resolve().parents[2] / "docs" / "privacy" / "perturbation.md"
HEADER = "| loss, ε, Λ | two-sided slack (Δ, ε′) | one-sided slack (Δ, ε′) |"
N, Q, P = 30162, 1.0, 105

#: (the row's label of the loss, the loss, ε, Λ or "auto")
ROWS: list[tuple[str, Loss, float, float | str]] = [
    ("logistic (c = 1/4)", Logistic(), 0.1, 1e-3),
    ("logistic", Logistic(), 0.1, "auto"),
    ("logistic", Logistic(), 1.0, "auto"),
    ("Huber h = 0.5 (c = 1)", HuberHinge(0.5), 0.1, 1e-3),
    ("Huber h = 0.5", HuberHinge(0.5), 0.1, "auto"),
    ("Huber h = 0.5", HuberHinge(0.5), 1.0, "auto"),
]

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _power(x: float, digits: int) -> str:
    """x as the page writes it: 4.57·10⁻³ (``digits`` significant digits)."""
    mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
    return f"{mantissa}·10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def _cell(cal: Calibration) -> str:
    delta = cal.extra_strong_convexity
    delta_text = "0" if delta == 0 else f"Δ = {_power(delta, 2)}"
    return f"{cal.slack:.5f} ({delta_text}, {cal.epsilon_noise:.5f})"


def _lam(loss: Loss, epsilon: float, lam: float | str, two_sided: bool = False) -> float:
    """Λ given, or the Λ of ``lam="auto"`` (from a two-sided calibration of its grid)."""
    if lam != "auto":
        return float(lam)
    mechanism, grid = get_mechanism("objective"), None
    if two_sided:
        problem = LinearERMTemplate.constants_for(loss, Q, 1.0, P, N)
        cal = calibrate_objective_perturbation(epsilon, N, problem, LAM_GRID, slack="two_sided")
        grid = mechanism.holding_noise(problem, cal, at_modulus(problem, LAM_GRID))
    return auto_lam(mechanism, N, epsilon, Q, P, loss, grid=grid)


def table() -> list[str]:
    """The table's rows as the page prints them."""
    rows = []
    for label, loss, epsilon, lam in ROWS:
        value = _lam(loss, epsilon, lam)
        lam_text = "10⁻³" if lam == 1e-3 else f"auto = {_power(value, 3)}"
        consts = LinearERMTemplate.constants_for(loss, Q, value, P)
        one = calibrate_objective_perturbation(epsilon, N, consts)
        two = calibrate_objective_perturbation(epsilon, N, consts, slack="two_sided")
        rows.append(f"| {label}, ε = {epsilon:g}, Λ = {lam_text} | {_cell(two)} | {_cell(one)} |")
    return rows


def two_sided_auto() -> str:
    """The Λ of ``lam="auto"`` on a two-sided calibration, for the rows at Λ = auto."""
    return ", ".join(_power(_lam(loss, epsilon, lam, two_sided=True), 3)
                     for _, loss, epsilon, lam in ROWS if lam == "auto")


def _page_table(text: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index(HEADER) + 2  # the header and its separator
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("|"))
    return lines[start:end]


def test_page_table_is_the_calibration():
    text = PAGE.read_text(encoding="utf-8")
    assert _page_table(text) == table(), (
        "docs/privacy/perturbation.md's Adult-sized table is not the code's calibration: "
        "regenerate it with `python tests/privacy/test_perturbation_table.py`")
    stated = re.search(r"the rule would choose\s+(.*?)\.\)", text, re.S)
    assert stated is not None and " ".join(stated[1].split()) == two_sided_auto()


def main() -> None:
    print(HEADER, "|---|---|---|", *table(), sep="\n")
    print(f"\nlam='auto' on a two-sided calibration: {two_sided_auto()}")


if __name__ == "__main__":
    main()
