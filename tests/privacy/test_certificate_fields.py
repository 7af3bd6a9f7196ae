"""The certificate's typed fields (label source, Λ rule, row map, seeding) and their text."""

from __future__ import annotations

import json
import warnings

import numpy as np

import dpconvex as dp
from dpconvex.privacy.certificate import (
    SEEDED,
    Certificate,
    DeltaRows,
    LabelSource,
    LamRule,
    MechanismChoice,
    RowMap,
    SmoothingRule,
)
from dpconvex.privacy.composition import compose_sequential

SOURCE = LabelSource("parameter", (0, 1), "raise")
RULE = LamRule(0.05)
ROWS = RowMap("unit", dask=True)


def _data(n=80, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = 0.4 * rng.normal(size=(n, d))
    return X, (X[:, 0] > 0).astype(int)


def test_typed_facts_go_to_their_fields_and_lines_to_assumptions():
    cert = Certificate("m", 1.0, 1.0, assumptions=["adjacency", SOURCE, RowMap(dask=True)])
    cert.state(RULE, RowMap("unit"), "adjacency", None, "")  # a line already stated: once
    assert (cert.label_source, cert.lam_rule, cert.row_map) == (SOURCE, RULE, ROWS)
    assert cert.assumptions == ["adjacency"] and not cert.seeded
    assert cert.states(SOURCE) and cert.states(RowMap("unit")) and cert.states("adjacency")
    assert not cert.states(LamRule(0.1)) and not cert.states(LabelSource("inferred"))


def test_the_text_renders_every_field_first_and_the_seed_last():
    cert = Certificate("m", 1.0, 1.0, assumptions=["adjacency", SOURCE, RULE, ROWS])
    cert.seeded = True
    lines = str(cert).split("  assumptions:\n")[1].splitlines()
    assert [line.removeprefix("    - ") for line in lines] == [
        str(SOURCE), str(RULE), *ROWS.lines(), "adjacency", SEEDED]
    assert str(SOURCE).startswith("label set given by the caller (public): [0, 1]")
    assert str(RULE) == "lam = 0.05 given explicitly (a public parameter)"
    assert ROWS.lines()[1].startswith("data backend: dask: ")
    assert str(LabelSource("label_range", label_range=(-5.0, 15.0))).startswith(
        "labels clipped to the public label_range [-5, 15]")


def test_the_text_renders_the_guarantee_the_solver_and_the_released_outputs():
    cert = Certificate("m", 0.5, 0.5, delta=1e-6, solver={"backend": "native"},
                       released={"safeguard selected": "constant 0"})
    assert str(cert).splitlines()[1:] == [
        "  guarantee: (0.5, 1e-06)-differential privacy (requested epsilon = 0.5)",
        "  released (differentially private outputs of the parts):",
        "    safeguard selected = constant 0",
        "  solver: backend=native"]
    baseline = Certificate("m", 1.0, float("inf"), private=False)
    assert str(baseline).splitlines()[1] == (
        "  guarantee: NONE (non-private baseline; do not publish as private)")


def test_to_dict_holds_the_fields_as_json():
    cert = Certificate("m", 1.0, 1.0, assumptions=[SOURCE, RULE, ROWS])
    d = json.loads(json.dumps(cert.to_dict()))
    assert d["label_source"] == {"source": "parameter", "classes": [0, 1],
                                 "unknown_labels": "raise", "label_range": []}
    assert {k: d["lam_rule"][k] for k in ("lam", "rule", "how")} == {
        "lam": 0.05, "rule": "given", "how": ""}
    assert d["row_map"] == {"row_norm": "unit", "unit_map": "", "dask": True}
    assert d["seeded"] is False and d["assumptions"] == [] and d["lines"] == []


def test_a_typed_line_is_stated_once_with_its_text_among_the_assumptions():
    auto = LamRule(0.01, "auto", mechanism="objective", n=100, epsilon=1.0, q=1.0, p=3,
                   deriv_bound=1.0, curvature=0.25, reference_norm=16.0, stability_weight=0.5)
    cert = Certificate("m", 1.0, 1.0, assumptions=["a", DeltaRows(0.5, 10), auto])
    cert.state(DeltaRows(0.5, 10), SmoothingRule(0.5, 9))
    assert cert.lines == [DeltaRows(0.5, 10), SmoothingRule(0.5, 9)]
    assert cert.assumptions == ["a", str(DeltaRows(0.5, 10)), str(SmoothingRule(0.5, 9))]
    assert cert.states(DeltaRows(0.5, 10)) and not cert.states(DeltaRows(0.5, 11))
    assert cert.line(MechanismChoice) is None and cert.line(SmoothingRule).h == 0.5
    d = json.loads(json.dumps(cert.to_dict()))
    assert d["lines"] == [{"kind": "DeltaRows", "delta": 0.5, "n": 10},
                          {"kind": "SmoothingRule", "h": 0.5, "candidates": 9}]
    assert d["lam_rule"]["reference_norm"] == 16.0 and d["lam_rule"]["how"] == auto.stated
    assert "reference norm R = 16," in auto.stated  # the text renders the field


def test_a_composition_keeps_the_parts_fields_in_its_parts_and_is_seeded_with_a_seeded_part():
    part = Certificate("model", 1.0, 1.0, assumptions=[SOURCE])
    other = Certificate("selection", 1.0, 1.0)
    assert not compose_sequential([part, other], mechanism="whole", epsilon_requested=2.0).seeded
    part.seeded = True
    whole = compose_sequential([part, other], mechanism="whole", epsilon_requested=2.0)
    assert whole.label_source is None and whole.seeded  # anyone with the seed reproduces a part
    assert whole.parts[0].label_source == SOURCE and whole.parts[0].seeded


def test_a_fit_states_its_facts_in_the_fields():
    X, y = _data()
    est = dp.PrivateLogisticRegression(epsilon=1.0, lam=0.05, classes=[0, 1], row_norm="unit",
                                       random_state=0).fit(X, y)
    cert = est.certificate_
    assert cert.label_source == SOURCE and cert.lam_rule == RULE
    assert cert.row_map.row_norm == "unit" and not cert.row_map.dask and cert.seeded
    text = str(cert)
    assert all(line in text for line in (str(SOURCE), str(RULE), SEEDED, *cert.row_map.lines()))
    dry = dp.PrivateLogisticRegression(epsilon=1.0, lam=0.05, classes=[0, 1],
                                       row_norm="unit").certify(X, y)
    assert (dry.label_source, dry.lam_rule, dry.row_map) == (
        cert.label_source, cert.lam_rule, cert.row_map) and not dry.seeded


def test_a_label_set_read_from_the_data_is_not_repeated_in_the_certificate():
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyLeakWarning)
        cert = dp.PrivateLogisticRegression(epsilon=1.0).fit(X, y).certificate_
    assert cert.label_source == LabelSource("inferred") and cert.label_source.classes == ()
    assert cert.lam_rule.rule == "auto" and not cert.seeded
