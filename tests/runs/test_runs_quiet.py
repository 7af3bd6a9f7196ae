"""Runs and the demo: each distinct warning once after the table; rows named from the certificates."""

import json
import re
import warnings
from types import SimpleNamespace

import pytest
from _helpers import placeholder_plot

from dpconvex import PrivateClassifier, PrivateLargeMarginGaussian, cli
from dpconvex.errors import PrivacyWarning
from dpconvex.runs import (
    WarningTally,
    first_sentence,
    format_table,
    load_data,
    release_name,
    run_problem,
    warning_lines,
)
from dpconvex.runs.runner import run_demo

# objective perturbation on wine at small epsilon: every fit at epsilon 0.3 and 1 warns
PROBLEM = """
[data]
dataset = "sklearn_wine"
test_size = 0.3
[grid]
epsilon = [0.3, 1.0]
runs = 3
seed = 1988
[[method]]
label = "LM"
estimator = "PrivateLargeMarginGaussian"
params = { mechanism = "objective" }
[[method]]
label = "LM defaults"
estimator = "PrivateLargeMarginGaussian"
params = {}
[[method]]
label = "LM non-private"
estimator = "PrivateLargeMarginGaussian"
params = { mechanism = "none" }
"""


@pytest.fixture(scope="module")
def problem(tmp_path_factory):
    p = tmp_path_factory.mktemp("quiet") / "wine_small.toml"
    p.write_text(PROBLEM)
    return p


@pytest.fixture(scope="module")
def run(problem):
    """The problem's result and the warnings run_problem emitted."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        result = run_problem(problem, progress=False)
    return result, rec


def test_progress_into_a_pipe_is_a_line_at_each_tenth_not_a_redrawn_bar(problem, tmp_path,
                                                                       capsys, monkeypatch):
    placeholder_plot(monkeypatch)  # the claim is the progress on stderr, not the drawing
    out = tmp_path / "out"
    assert cli.main(["run", str(problem), "--out", str(out)]) == 0  # captured: not a terminal
    err = capsys.readouterr().err
    assert "\r" not in err
    lines = [ln for ln in err.splitlines() if " fits, " in ln]
    assert 1 <= len(lines) <= 10 and lines[-1].startswith("wine_small: 15/15 fits, ")


def test_cli_run_prints_one_stderr_line_per_distinct_warning(problem, tmp_path, capsys,
                                                             monkeypatch):
    placeholder_plot(monkeypatch)  # the claim is the warnings' lines, not the drawing
    out = tmp_path / "out"
    assert cli.main(["run", str(problem), "--out", str(out), "--no-progress"]) == 0
    std = capsys.readouterr()
    saved = json.loads((out / "results.json").read_text())
    distinct = saved["warnings"]
    assert len(distinct) == 2  # epsilon = 0.3 and 1: two texts, each from 3 fits
    assert [w["fits"] for w in distinct] == [3, 3] and saved["fits"] == 3 * (2 + 2 + 1)
    assert all(w["category"] == "PrivacyWarning" and w["methods"] == ["LM"] for w in distinct)
    lines = [ln for ln in std.err.splitlines() if ln.strip()]
    assert len(lines) == len(distinct)
    assert all(ln.startswith("dpconvex: PrivacyWarning from 3 of 15 fits (LM): ") for ln in lines)
    assert std.out.index("| LM non-private") < std.out.index("wrote")  # the summary follows the table
    for w, ln in zip(distinct, lines, strict=True):
        assert ln.split("(LM): ", 1)[1].split(" [...")[0] in " ".join(w["message"].split())


def test_run_problem_reemits_each_distinct_warning_once(run):
    result, rec = run
    texts = [str(w.message) for w in rec if issubclass(w.category, PrivacyWarning)]
    assert len(texts) == len(result.warnings) == 2
    assert all("[raised by 3 of 15 fits of wine_small: LM]" in t for t in texts)


def test_rows_name_the_release_read_from_the_certificates(run):
    result, _ = run
    X, y = load_data(result.problem)
    n_train = len(y) - round(0.3 * len(y))
    for eps in (0.3, 1.0):  # the release depends on public quantities only: n, C, d, epsilon
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = PrivateLargeMarginGaussian(epsilon=eps, random_state=0).fit(X[:n_train], y[:n_train])
        assert result.released["LM defaults"][eps] == {release_name(est): 3}
        assert release_name(est) in [label.split(" → ", 1)[1] for label, m, _ in result.rows()
                                     if m == "LM defaults"]
    table = format_table(result)
    labels = [ln.split(" | ")[0][2:] for ln in table.splitlines() if ln.startswith("| LM")]
    assert labels and all(" → " in label for label in labels)
    assert "| LM non-private → non-private baseline" in table and "| majority class |" in table


def test_release_name_reads_the_certificate_mechanism():
    def fitted(mechanism, **attrs):
        return SimpleNamespace(certificate_=SimpleNamespace(mechanism=mechanism), **attrs)

    knorm = ("K-norm mechanism for sum_c ||b_c|| (Hardt & Talwar 2010) on the class sums and "
             "counts (3 classes)")
    assert release_name(fitted(knorm)) == "K-norm mechanism on class centroids"
    assert release_name(fitted(knorm, learner_="class centroids")) == "K-norm mechanism on class centroids"
    objective = "objective perturbation (CMS Alg. 2) on large-margin Gaussian classifier (softmax loss)"
    assert release_name(fitted(objective)) == ("objective perturbation on large-margin Gaussian "
                                               "classifier (softmax loss)")
    tuned = fitted("private tuning (CMS Alg. 4): parallel composition + exponential mechanism",
                   best_estimator_=fitted("output perturbation (CMS Alg. 1) on linear ERM"))
    assert release_name(tuned) == "private tuning, chosen: output perturbation on linear ERM"


def test_warning_tally_counts_fits_not_occurrences():
    tally = WarningTally()
    for _ in range(2):
        with tally.capture("A"):
            warnings.warn("Same text. Advice.", UserWarning, stacklevel=1)
            warnings.warn("Same text. Advice.", UserWarning, stacklevel=1)  # twice in one fit: one fit
    with tally.capture("B", fits=3):  # a sweep of three fits
        for eps in (1, 1, 2):
            warnings.warn(f"At epsilon = {eps}.", UserWarning, stacklevel=1)
    summary = {e["message"]: (e["fits"], e["methods"]) for e in tally.summary()}
    assert summary == {"Same text. Advice.": (2, ["A"]), "At epsilon = 1.": (2, ["B"]),
                       "At epsilon = 2.": (1, ["B"])}
    with tally.capture("data", fits=0):
        warnings.warn("Loaded.", UserWarning, stacklevel=1)
    assert tally.fits == 5 and warning_lines(tally.summary(), 5)[-1] == "UserWarning (data): Loaded."
    assert warning_lines(tally.summary()[:1], tally.fits, "r.json") == [
        "UserWarning from 2 of 5 fits (A): Same text. [... full text in r.json]"]
    with tally.capture("C", fits=2):  # a sweep of two fits, each warning the same text 3 times
        for _ in range(6):
            warnings.warn("Every fit, thrice.", UserWarning, stacklevel=1)
    assert {e["message"]: e["fits"] for e in tally.summary()}["Every fit, thrice."] == 2  # not 6 of 7 fits


def test_warning_lines_share_a_line_for_one_first_sentence():
    """The same warning at several ε (texts differing after the first sentence): one line."""
    entries = [{"category": "PrivacyWarning", "message": f"Mean released. At epsilon = {eps}.",
                "fits": fits, "methods": [method]}
               for eps, fits, method in ((1, 3, "A"), (2, 2, "B"), (5, 1, "A"))]
    entries.append({"category": "UserWarning", "message": "Mean released.", "fits": 4,
                    "methods": ["C"]})
    assert warning_lines(entries, 20) == [
        "PrivacyWarning from 6 of 20 fits (A, B): Mean released. [...]",
        "UserWarning from 4 of 20 fits (C): Mean released."]


def test_release_name_of_a_safeguard_fallback():
    """A front door whose safeguard released its constant: the learner and the selection."""
    certificate = SimpleNamespace(mechanism="PrivateRegressor with its safeguard: ...",
                                  released={"safeguard selected": "constant (private mean)"})
    fallback = SimpleNamespace(certificate_=certificate)
    door = SimpleNamespace(certificate_=certificate, estimator_=fallback,
                           learner_="constant (private mean)")
    assert release_name(door) == "constant (private mean): selected by the safeguard"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        results = run_demo(epsilons=(0.1, 2.0), runs=2, seed=0)
    return results, out.getvalue(), err.getvalue()


def test_demo_leads_with_the_front_door_named_from_its_certificate(demo):
    results, out, _ = demo
    from sklearn.model_selection import train_test_split

    from dpconvex.datasets import load_sklearn

    X, y = load_sklearn("breast_cancer")
    Xtr, _, ytr, _ = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    clf = PrivateClassifier(epsilon=2.0, random_state=0).fit(Xtr, ytr)
    first = results["rows"][0]
    # one release at every ε, or each with its ε's (the rule may change with n·ε)
    assert first == f"PrivateClassifier(epsilon=ε) → {release_name(clf)}" or re.search(
        rf"[→;] {re.escape(release_name(clf))} \(ε = [^)]*\b2\)$", first), first
    model = clf.estimator_.certificate_  # the released model's certificate (the safeguard's part)
    assert clf.learner_ in first and model.mechanism.split(" (")[0] in first
    rows = [ln for ln in out.splitlines() if ln.startswith("| ") and not ln.startswith("| model")]
    assert rows[0].startswith(f"| {first} |")
    assert "output perturbation on linear ERM" in results["rows"][2]
    assert "non-private baseline" in rows[-1] and rows[-1].endswith(f"| {results['majority class']:.3f} |")
    assert results[("front door", 2.0)] > results["majority class"]


def test_demo_prints_each_distinct_warning_once_after_the_table(demo):
    results, out, err = demo
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert results["warnings"] and len(lines) == len(
        {(w["category"], first_sentence(w["message"])) for w in results["warnings"]})
    assert all(ln.startswith("dpconvex demo: ") and " fits (" in ln for ln in lines)
    assert all(w["fits"] <= 2 for w in results["warnings"])  # at most the runs at one epsilon


@pytest.mark.slow
def test_main_job_quick_form_prints_one_stderr_line_per_distinct_warning(tmp_path, capsys):
    out = tmp_path / "wine"
    assert cli.main(["run", "wine_large_margin", "--quick", "--out", str(out), "--no-progress"]) == 0
    std = capsys.readouterr()
    distinct = json.loads((out / "results.json").read_text())["warnings"]
    lines = [ln for ln in std.err.splitlines() if ln.strip()]
    assert len(lines) == len({(w["category"], first_sentence(w["message"])) for w in distinct})
    assert "| LM-Gaussian defaults → K-norm mechanism on class centroids |" in std.out


def test_a_mean_no_better_than_the_trivial_baseline_is_marked():
    from dpconvex.runs import ProblemResult, load_problem

    problem = load_problem("wine_large_margin")
    result = ProblemResult(problem, quick=True, runs=2,
                           errors={"LM-Gaussian": {1.0: [0.7, 0.6], 3.0: [0.1, 0.2]}},
                           baselines={"majority class": [0.6, 0.6]})
    table = format_table(result)
    row = next(ln for ln in table.splitlines() if ln.startswith("| LM-Gaussian"))
    assert row.count("✗") == 1 and "0.6500 ± 0.0500 ✗" in row and "0.1500 ± 0.0500 |" in row
    assert "✗: no better than it)" in table
    clean = ProblemResult(problem, quick=True, runs=1, errors={"LM-Gaussian": {1.0: [0.2]}},
                          baselines={"majority class": [0.6]})
    assert "✗" not in format_table(clean)
