"""BudgetAccountant: composed totals, overspending, parallel blocks, estimator wiring."""

from __future__ import annotations

import contextvars
import copy
import json
import math
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from dpconvex import BudgetAccountant, BudgetError, Certificate, NoisyGradientDescent
from dpconvex.errors import BudgetPickleError, BudgetProcessError, ParameterError
from dpconvex.privacy.budget import Spend, reserve_budget


def test_sequential_totals_and_exact_exhaustion():
    acc = BudgetAccountant(epsilon=1.0, delta=1e-5)
    for i in range(10):
        acc.spend(0.1, 1e-6, label=f"q{i}")
    e, d = acc.spent
    assert e == pytest.approx(1.0, abs=1e-15)
    assert d == pytest.approx(1e-5, rel=1e-12)
    assert acc.remaining[0] == pytest.approx(0.0, abs=1e-15)
    assert [s.label for s in acc.spends] == [f"q{i}" for i in range(10)]
    with pytest.raises(BudgetError, match="Remaining"):
        acc.spend(1e-3, label="one too many")
    assert len(acc.spends) == 10  # the refused spend is not recorded


def test_overspend_epsilon_and_delta_separately():
    acc = BudgetAccountant(epsilon=1.0, delta=1e-6)
    acc.spend(0.6)
    with pytest.raises(BudgetError, match=r"epsilon=1\.2.* in epsilon\. .*Lower the "
                                          r"epsilon of the release, or"):
        acc.check(0.6)
    with pytest.raises(BudgetError, match=r"in delta\. .*Lower the delta of the release \("):
        acc.spend(0.1, 2e-6)  # epsilon fits, delta does not
    acc.spend(0.4, 1e-6)
    assert acc.spent == pytest.approx((1.0, 1e-6))
    # ten spends of 0.1 leave a float residue of about 1e-16: shown as nothing left
    tenths = BudgetAccountant(epsilon=1.0)
    for _ in range(10):
        tenths.spend(0.1)
    with pytest.raises(BudgetError, match=r"Remaining: \(epsilon=0, delta=0\)"):
        tenths.spend(1e-3)


def test_parallel_block_composes_by_max():
    acc = BudgetAccountant(epsilon=2.0, delta=1e-4)
    acc.spend(0.2, 1e-6, label="before")
    with acc.parallel():
        acc.spend(0.5, 1e-5, label="part A")
        acc.spend(0.3, 3e-5, label="part B")
        acc.spend(0.4, 0.0, label="part C")
    acc.spend(0.1, label="after")
    e, d = acc.spent
    assert e == pytest.approx(0.2 + 0.5 + 0.1)
    assert d == pytest.approx(1e-6 + 3e-5)
    groups = [s.group for s in acc.spends]
    assert groups == [None, 0, 0, 0, None]
    with acc.parallel():  # a second block is its own group
        acc.spend(0.7)
        acc.spend(0.7)
    assert acc.spent[0] == pytest.approx(1.5)


def test_check_inside_parallel_uses_max():
    acc = BudgetAccountant(epsilon=1.0)
    acc.spend(0.5)
    with acc.parallel():
        acc.spend(0.5)
        acc.spend(0.5)  # max stays 0.5: total 1.0
        with pytest.raises(BudgetError, match="parallel"):
            acc.spend(0.6)
    assert acc.spent[0] == pytest.approx(1.0)


def test_parallel_blocks_do_not_nest_and_close_on_error():
    acc = BudgetAccountant(epsilon=1.0)
    with acc.parallel(), pytest.raises(ParameterError, match="nested"):
        with acc.parallel():
            pass
    with pytest.raises(RuntimeError), acc.parallel():
        acc.spend(0.25)
        raise RuntimeError("boom")
    acc.spend(0.25)  # sequential again after the block closed on the error
    assert acc.spent[0] == pytest.approx(0.5)
    assert acc.spends[-1].group is None


@pytest.mark.parametrize("kwargs", [{"epsilon": -1.0}, {"epsilon": 0.0}, {"epsilon": "1"},
                                    {"epsilon": 1.0, "delta": 1.0},
                                    {"epsilon": 1.0, "delta": -1e-9}])
def test_invalid_budget(kwargs):
    with pytest.raises(ParameterError):
        BudgetAccountant(**kwargs)


def test_invalid_spend_and_budget_is_read_only():
    acc = BudgetAccountant(epsilon=1.0)
    with pytest.raises(ParameterError):
        acc.spend(-0.1)
    with pytest.raises(ParameterError):
        acc.spend(0.1, 2.0)
    with pytest.raises(AttributeError):
        acc.epsilon = 5.0  # type: ignore[misc]


def test_unlimited_budget_is_explicit():
    acc = BudgetAccountant(epsilon=math.inf, delta=0.5)
    acc.spend(1e9)
    acc.spend(math.inf, label="non-private baseline")
    assert math.isinf(acc.spent[0])
    with pytest.raises(TypeError):
        BudgetAccountant()  # type: ignore[call-arg]  # no default budget


def test_copies_share_the_ledger():
    acc = BudgetAccountant(epsilon=1.0)
    assert copy.copy(acc) is acc
    assert copy.deepcopy(acc) is acc
    est = NoisyGradientDescent(epsilon=0.5, delta=1e-6, steps=5, radius=1.0, accountant=acc)
    assert clone(est).accountant is acc


def test_reserve_budget_checks_the_ledger_and_commits_a_certificate():
    with reserve_budget(None, 1e9) as hold:  # no ledger: a no-op hold
        assert hold.commit_certificate(Certificate("x", 1.0, 1.0)) is None
    with pytest.raises(ParameterError, match="BudgetAccountant or None"):
        reserve_budget({"epsilon": 1}, 0.1)
    acc = BudgetAccountant(epsilon=1.0, delta=1e-6)
    acc.check(1.0, 1e-6)
    with pytest.raises(BudgetError):
        acc.check(1.1)
    with reserve_budget(acc, 0.5, 1e-7, label="model") as hold:
        hold.commit_certificate(Certificate("m", epsilon_requested=0.5, epsilon=0.4, delta=1e-7))
    assert acc.spent == pytest.approx((0.4, 1e-7))
    assert acc.spends[0].label == "model"
    nonprivate = Certificate("baseline", math.inf, math.inf, private=False)
    with pytest.raises(BudgetError), reserve_budget(acc, 0.1, label="baseline") as hold:
        hold.commit_certificate(nonprivate)


def test_estimator_is_refused_before_fitting():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3)) / 3
    y = (X[:, 0] > 0).astype(int)
    acc = BudgetAccountant(epsilon=1.0, delta=2e-6)
    for _ in range(2):
        NoisyGradientDescent(epsilon=0.5, delta=1e-6, steps=5, radius=1.0, random_state=0,
                             accountant=acc).fit(X, y)
    assert acc.spent[0] == pytest.approx(1.0, rel=1e-5)
    assert acc.spent[1] == pytest.approx(2e-6)
    est = NoisyGradientDescent(epsilon=0.01, delta=1e-9, steps=5, radius=1.0, accountant=acc)
    with pytest.raises(BudgetError):
        est.fit(X, y)
    assert not hasattr(est, "coef_")
    assert len(acc.spends) == 2


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(min_value=0.0, max_value=0.5, allow_nan=False), max_size=30),
       st.floats(min_value=0.1, max_value=3.0))
def test_ledger_never_exceeds_budget(spends, budget):
    acc = BudgetAccountant(epsilon=budget)
    accepted = []
    for e in spends:
        try:
            acc.spend(e)
            accepted.append(e)
        except BudgetError:
            pass
    assert acc.spent[0] == pytest.approx(math.fsum(accepted), abs=1e-12)
    assert acc.spent[0] <= budget * (1 + 1e-9) + 1e-15


def test_linear_estimators_spend_from_the_ledger():
    """Every private linear estimator checks before the fit and is charged after it."""
    import numpy as np

    import dpconvex as dp

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3)) / 3
    y = (X[:, 0] > 0).astype(int)
    acc = dp.BudgetAccountant(epsilon=1.0)
    dp.PrivateLogisticRegression(epsilon=0.4, accountant=acc, random_state=0).fit(X, y)
    dp.PrivateHuberSVM(epsilon=0.5, mechanism="output", accountant=acc, random_state=0).fit(X, y)
    assert acc.spent[0] == pytest.approx(0.9)
    late = dp.PrivateLogisticRegression(epsilon=0.2, accountant=acc, random_state=0)
    with pytest.raises(dp.BudgetError):
        late.fit(X, y)
    assert not hasattr(late, "coef_")
    assert acc.spent[0] == pytest.approx(0.9)
    with pytest.raises(dp.BudgetError):  # a non-private fit would spend epsilon = inf
        dp.PrivateLogisticRegression(mechanism="none", accountant=acc).fit(X, y)


# ----------------------------------------------------------------------------- threads
def _race_once(n_threads: int, eps: float, budget: float) -> tuple[int, list[float]]:
    """``n_threads`` threads reserve + commit ``eps`` at once; returns (#admitted, spent samples)."""
    acc = BudgetAccountant(epsilon=budget)
    barrier = threading.Barrier(n_threads)
    admitted: list[int] = []
    seen: list[float] = []

    def fit(i: int) -> None:
        barrier.wait()
        try:
            with acc.reserve(eps, label=f"fit {i}") as hold:
                seen.append(acc.spent[0])
                hold.commit(eps)
            admitted.append(i)
        except BudgetError:
            pass
        seen.append(acc.spent[0])

    threads = [threading.Thread(target=fit, args=(i,)) for i in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seen.append(acc.spent[0])
    return len(admitted), seen


def test_racing_reservations_never_overspend():
    """8 threads race to reserve + commit 0.6 on a 1.0 budget: exactly one wins, 200 times.

    A 1 µs switch interval makes threads interleave often (a ledger without the lock,
    driven the same way with check + spend, overspent in 53 of 200 trials).
    """
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for _ in range(200):
            n_ok, seen = _race_once(8, 0.6, 1.0)
            assert n_ok == 1
            assert max(seen) <= 1.0
    finally:
        sys.setswitchinterval(interval)


def test_racing_plain_spends_never_overspend():
    acc = BudgetAccountant(epsilon=1.0)
    barrier = threading.Barrier(8)
    ok: list[int] = []

    def go(i: int) -> None:
        barrier.wait()
        for _ in range(50):
            try:
                acc.spend(0.01)
                ok.append(i)
            except BudgetError:
                pass

    threads = [threading.Thread(target=go, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(ok) == 100 and len(acc.spends) == 100
    assert acc.spent[0] == pytest.approx(1.0)


def test_reservation_counts_as_spent_until_released_or_committed():
    acc = BudgetAccountant(epsilon=1.0, delta=1e-6)
    hold = acc.reserve(0.6, 1e-7, label="fit")
    assert acc.spent == (0.0, 0.0)
    assert acc.remaining == pytest.approx((0.4, 9e-7))
    assert [h.label for h in acc.reserved] == ["fit"]
    with pytest.raises(BudgetError, match="reservation"):
        acc.check(0.5)
    with pytest.raises(BudgetError):
        acc.reserve(0.5)
    hold.release()
    assert hold.state == "released" and acc.reserved == []
    acc.check(1.0)
    hold.release()  # idempotent
    with pytest.raises(ParameterError, match="released"):
        hold.commit()


def test_reservation_commits_the_final_guarantee():
    acc = BudgetAccountant(epsilon=1.0)
    with acc.reserve(0.6, label="model") as hold:
        spend = hold.commit(0.4)  # the certificate may guarantee less than requested
    assert spend is not None and spend.epsilon == 0.4 and spend.label == "model"
    assert acc.spent[0] == pytest.approx(0.4) and acc.reserved == []
    with pytest.raises(ParameterError, match="committed"):
        hold.commit()
    with acc.reserve(0.5) as hold:  # normal exit without commit: the reserved amount
        pass
    assert hold.state == "committed" and acc.spent[0] == pytest.approx(0.9)
    with pytest.raises(RuntimeError), acc.reserve(0.1) as hold:  # failure gives it back
        raise RuntimeError("solver failed")
    assert hold.state == "released" and acc.spent[0] == pytest.approx(0.9)
    assert acc.remaining[0] == pytest.approx(0.1)


def test_commit_above_the_reservation_is_checked_again():
    acc = BudgetAccountant(epsilon=1.0)
    acc.spend(0.5)
    hold = acc.reserve(0.3)
    with pytest.raises(BudgetError):
        hold.commit(0.6)
    assert hold.state == "released" and acc.reserved == [] and len(acc.spends) == 1
    cert = Certificate("m", epsilon_requested=0.3, epsilon=0.25, delta=0.0)
    acc.reserve(0.3).commit_certificate(cert)
    assert acc.spent[0] == pytest.approx(0.75)
    with pytest.raises(BudgetError):  # non-private certificate: epsilon = inf
        acc.reserve(0.1).commit_certificate(Certificate("b", math.inf, math.inf, private=False))


def test_reserve_budget_helper():
    hold = reserve_budget(None, 0.5, label="x")  # no ledger: a no-op hold
    with hold:
        assert hold.commit(0.5) is None
    with pytest.raises(ParameterError, match="BudgetAccountant or None"):
        reserve_budget({"epsilon": 1}, 0.1)
    acc = BudgetAccountant(epsilon=1.0)
    with reserve_budget(acc, 0.7, label="fit") as h:
        h.commit_certificate(Certificate("m", epsilon_requested=0.7, epsilon=0.7, delta=0.0))
    assert acc.spends[0].label == "fit"
    with pytest.raises(BudgetError):
        reserve_budget(acc, 0.7)


def test_parallel_block_does_not_capture_other_threads():
    """Thread A's parallel() block must not absorb thread B's spend (1.4 spent on 1.0 if it did)."""
    acc = BudgetAccountant(epsilon=1.0)
    a_in_block = threading.Event()
    b_done = threading.Event()
    errors: list[BaseException] = []

    def thread_a() -> None:
        try:
            with acc.parallel():
                acc.spend(0.6, label="A part 1")
                a_in_block.set()
                b_done.wait(5)
                acc.spend(0.6, label="A part 2")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def thread_b() -> None:
        a_in_block.wait(5)
        try:
            acc.spend(0.4, label="B")
        finally:
            b_done.set()

    ta, tb = threading.Thread(target=thread_a), threading.Thread(target=thread_b)
    ta.start()
    tb.start()
    ta.join()
    tb.join()
    assert not errors
    by_label = {s.label: s.group for s in acc.spends}
    assert by_label["B"] is None and by_label["A part 1"] == by_label["A part 2"] is not None
    assert acc.spent[0] == pytest.approx(1.0)
    with pytest.raises(BudgetError):
        acc.spend(0.4)  # with B captured in A's block this fitted: 1.4 spent on 1.0


def test_parallel_block_joined_by_threads_through_the_context():
    acc = BudgetAccountant(epsilon=1.0)
    with acc.parallel():
        ctx = contextvars.copy_context()
        threads = [threading.Thread(target=ctx.copy().run, args=(acc.spend, 0.7))
                   for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        acc.spend(0.7)
    assert acc.spent[0] == pytest.approx(0.7)
    assert len({s.group for s in acc.spends}) == 1


def test_a_context_copied_in_a_parallel_block_is_out_of_it_once_the_block_closes():
    """A worker's context copied inside the block keeps no closed block: after the ``with``,
    its spends add (and the next block opens), while the function that opened it still runs."""
    acc = BudgetAccountant(epsilon=1.0)
    with acc.parallel():
        ctx = contextvars.copy_context()
    ctx.run(acc.spend, 0.6)
    with pytest.raises(BudgetError):
        ctx.run(acc.spend, 0.6)
    assert acc.spent[0] == pytest.approx(0.6) and [s.group for s in acc.spends] == [None]
    with acc.parallel():  # not taken for a nested block
        ctx.run(acc.spend, 0.1)


def test_split_budget_shares_add_up_exactly_to_at_most_the_whole():
    """Ten shares of a tenth: their exact sum (the ledger's and compose_sequential's) is within
    the whole, so a ledger of exactly the whole takes them all and the composition holds."""
    from dpconvex import Certificate
    from dpconvex.privacy.budget import Budget, split_budget
    from dpconvex.privacy.composition import compose_sequential

    whole = Budget(1.0, 1e-6)
    parts = split_budget(whole, [0.1] * 10)
    assert math.fsum(p.epsilon for p in parts) <= 1.0 and math.fsum(p.delta for p in parts) <= 1e-6
    certificates = [Certificate("part", p.epsilon, p.epsilon, delta=p.delta) for p in parts]
    compose_sequential(certificates, mechanism="parts", epsilon_requested=1.0, delta_requested=1e-6)
    acc = BudgetAccountant(epsilon=1.0, delta=1e-6)
    for p in parts:
        acc.spend(p.epsilon, p.delta)
    assert acc.spent[0] <= 1.0
    with pytest.raises(ParameterError, match="leave the last a share"):  # within 1e-9 of 1, none left
        split_budget(whole, [1.0, 1e-10])


def test_reservation_in_parallel_block_composes_by_max():
    acc = BudgetAccountant(epsilon=1.0)
    with acc.parallel():
        a = acc.reserve(0.8, label="part A")
        b = acc.reserve(0.8, label="part B")
        acc.check(0.9)  # composed by max with the block: 0.9 <= 1.0
        with pytest.raises(BudgetError):
            acc.reserve(1.1)
    with pytest.raises(BudgetError):  # outside the block the holds add: 0.8 + 0.3
        acc.check(0.3)
    a.commit()
    b.commit(0.5)  # committed after the block closed: still in its block
    assert acc.spent[0] == pytest.approx(0.8)
    assert acc.spends[0].group == acc.spends[1].group is not None


# ----------------------------------------------------------------------------- processes
_REFUSED = "copy.*accountant.spend"
_TIMEOUT = 60.0  # seconds a worker process may take before the test fails
needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="the platform has no fork")


def _refusals(acc: BudgetAccountant) -> list[str]:
    """Try every authorizing call on ``acc``; the name of what each raised (or "allowed")."""
    out = []
    for call in (lambda: acc.check(0.1), lambda: acc.spend(0.1, label="copy"),
                 lambda: acc.reserve(0.1), lambda: acc.parallel().__enter__()):
        try:
            call()
            out.append("allowed")
        except BudgetProcessError as exc:
            out.append("BudgetProcessError" if "accountant.spend" in str(exc) else "no advice")
        except BaseException as exc:  # reported to the test, not swallowed
            out.append(type(exc).__name__)
    return out


def test_pickled_ledger_is_a_readable_copy_that_refuses_to_spend():
    acc = BudgetAccountant(epsilon=1.0, delta=1e-6)
    acc.spend(0.25, 1e-7, label="histogram")
    hold = acc.reserve(0.5, label="fit in progress")
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        dup = pickle.loads(pickle.dumps(acc, protocol=protocol))
        assert dup is not acc and isinstance(dup, BudgetAccountant)
        assert (dup.epsilon, dup.delta) == (1.0, 1e-6)
        assert dup.spends == acc.spends and dup.spent == acc.spent
        assert dup.reserved == acc.reserved and dup.remaining == acc.remaining
        assert _refusals(dup) == ["BudgetProcessError"] * 4
        assert "a copy" in repr(dup) and "a copy" not in repr(acc)
        again = pickle.loads(pickle.dumps(dup, protocol=protocol))  # a copy of a copy
        assert _refusals(again) == ["BudgetProcessError"] * 4
    moved = pickle.loads(pickle.dumps(hold))  # a reservation sent elsewhere cannot commit
    with pytest.raises(BudgetProcessError, match=_REFUSED):
        moved.commit()
    moved.release()  # giving back a copy's hold changes nothing
    assert acc.spends == [Spend("histogram", 0.25, 1e-7)]
    assert [h.label for h in acc.reserved] == ["fit in progress"]
    hold.commit(0.5)  # the original still spends
    acc.spend(0.25)
    assert acc.spent == pytest.approx((1.0, 1e-7))
    assert issubclass(BudgetProcessError, BudgetPickleError)
    assert issubclass(BudgetPickleError, BudgetError)
    assert copy.deepcopy(acc) is acc  # in-process copies (clone) share the ledger


def test_unpickled_estimator_is_refused_before_fitting():
    X, y = _cross_val_data()
    acc = BudgetAccountant(epsilon=1.0, delta=1e-5)
    est = NoisyGradientDescent(epsilon=0.5, delta=1e-6, steps=5, radius=1.0, random_state=0,
                               accountant=acc)
    dup = pickle.loads(pickle.dumps(est))
    with pytest.raises(BudgetProcessError, match=_REFUSED):
        dup.fit(X, y)
    assert not hasattr(dup, "coef_")
    assert acc.spends == [] and acc.reserved == []


@needs_fork
def test_forked_child_spend_is_refused_and_parent_unchanged():
    """os.fork: every spend of the child's inherited ledger is refused; the parent's is untouched.

    The child reports through a pipe and leaves with ``os._exit``. A parent thread holds the
    ledger's lock across the fork: the child can still read its ledger.
    """
    X, y = _cross_val_data()
    acc = BudgetAccountant(epsilon=1.0, delta=1e-6)
    acc.spend(0.25, label="before the fork")
    hold = acc.reserve(0.5, label="parent's fit")
    est = NoisyGradientDescent(epsilon=0.2, delta=1e-7, steps=5, radius=1.0, random_state=0,
                               accountant=acc)
    locked, release = threading.Event(), threading.Event()

    def hold_the_lock() -> None:
        with acc._lock:
            locked.set()
            release.wait(_TIMEOUT)

    holder = threading.Thread(target=hold_the_lock)
    holder.start()
    assert locked.wait(_TIMEOUT)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child process
        code = 1
        try:
            os.close(r)
            report = {"calls": _refusals(acc), "spent": list(acc.spent)}
            for name, call in (("commit", hold.commit), ("fit", lambda: est.fit(X, y))):
                try:
                    call()
                    report[name] = "allowed"
                except BaseException as exc:
                    report[name] = type(exc).__name__
            os.write(w, json.dumps(report).encode())
            code = 0
        finally:
            os._exit(code)
    release.set()
    holder.join()
    os.close(w)
    deadline = time.monotonic() + _TIMEOUT
    while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    if done[0] == 0:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the forked child did not answer (deadlocked on the ledger's lock?)")
    with os.fdopen(r) as pipe:
        report = json.loads(pipe.read())
    assert os.waitstatus_to_exitcode(done[1]) == 0
    assert report == {"calls": ["BudgetProcessError"] * 4, "spent": [0.25, 0.0],
                      "commit": "BudgetProcessError", "fit": "BudgetProcessError"}
    assert [s.label for s in acc.spends] == ["before the fork"]
    assert [h.label for h in acc.reserved] == ["parent's fit"]
    hold.commit()
    est.fit(X, y)  # the parent's ledger still authorizes and records
    assert acc.spent == pytest.approx((0.95, 1e-7))


#: Filled before a fork pool starts: the workers inherit it (the module-level estimator of a script).
_INHERITED: dict[str, object] = {}


def _spend_inherited(i: int) -> str:
    try:
        _INHERITED["acc"].spend(0.6, label=f"worker {i}")  # type: ignore[attr-defined]
        return "recorded"
    except BudgetProcessError:
        return "BudgetProcessError"


def _fit_inherited(i: int) -> str:
    try:
        clone(_INHERITED["est"]).fit(*_cross_val_data())  # type: ignore[arg-type]
        return "fitted"
    except BudgetProcessError:
        return "BudgetProcessError"


@needs_fork
def test_fork_pool_and_executor_workers_cannot_spend_an_inherited_ledger():
    import dpconvex as dp

    acc = BudgetAccountant(epsilon=1.0)
    _INHERITED.update(acc=acc, est=dp.PrivateLogisticRegression(epsilon=0.6, accountant=acc))
    ctx = multiprocessing.get_context("fork")
    try:
        with ctx.Pool(2) as pool:
            spent = pool.map_async(_spend_inherited, range(3)).get(_TIMEOUT)
            fitted = pool.map_async(_fit_inherited, range(2)).get(_TIMEOUT)
        with ProcessPoolExecutor(2, mp_context=ctx) as ex:
            futures = [ex.submit(f, i) for f in (_spend_inherited, _fit_inherited) for i in range(2)]
            from_executor = [f.result(_TIMEOUT) for f in futures]
    finally:
        _INHERITED.clear()
    assert spent == ["BudgetProcessError"] * 3
    assert fitted == ["BudgetProcessError"] * 2
    assert from_executor == ["BudgetProcessError"] * 4
    assert acc.spends == [] and acc.reserved == []


def _cross_val_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3)) / 3
    return X, (X[:, 0] > 0).astype(int)


@pytest.mark.slow
def test_joblib_and_cross_val_score_workers_raise_the_named_error():
    """loky pickles the estimator: the worker's fit raises BudgetProcessError, re-raised by type.

    ``cross_val_score`` with its default ``error_score=np.nan`` reports failed fits in its own
    ValueError ("All the 5 fits failed"), which names the error and its advice. (That call comes
    first so that its loky workers, each importing dpconvex, serve the ``joblib.Parallel`` call
    too: joblib restarts them after a task raised.)
    """
    import joblib
    from sklearn.model_selection import cross_val_score

    import dpconvex as dp

    X, y = _cross_val_data()
    acc = BudgetAccountant(epsilon=1.0)
    est = dp.PrivateLogisticRegression(epsilon=0.1, accountant=acc, random_state=0)
    with pytest.raises(ValueError, match="BudgetProcessError.*copy"):
        cross_val_score(est, X, y, n_jobs=2)
    with pytest.raises(BudgetProcessError, match=_REFUSED):
        joblib.Parallel(n_jobs=2, timeout=_TIMEOUT)(joblib.delayed(est.fit)(X, y) for _ in range(2))
    assert acc.spends == [] and acc.reserved == []


@pytest.mark.slow
def test_spawned_workers_raise_the_named_error():
    X, y = _cross_val_data()
    acc = BudgetAccountant(epsilon=1.0, delta=1e-5)
    est = NoisyGradientDescent(epsilon=0.5, delta=1e-6, steps=5, radius=1.0, random_state=0,
                               accountant=acc)
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=ctx) as ex:
        future = ex.submit(est.fit, X, y)
        with pytest.raises(BudgetProcessError, match=_REFUSED):
            future.result(_TIMEOUT)
    assert not hasattr(est, "coef_")
    assert acc.spends == [] and acc.reserved == []


# ----------------------------------------------------------------------------- pure ε
@pytest.mark.parametrize("delta", [1e-15, 5e-324, 1e-6])
def test_pure_epsilon_ledger_refuses_any_positive_delta(delta):
    acc = BudgetAccountant(epsilon=1.0)
    for call in (lambda: acc.check(0.1, delta), lambda: acc.spend(0.1, delta),
                 lambda: acc.reserve(0.1, delta)):
        with pytest.raises(BudgetError, match=r"pure epsilon-DP \(delta=0\).*delta=\.\.\."):
            call()
    hold = acc.reserve(0.1, label="pure fit")
    with pytest.raises(BudgetError, match="pure epsilon-DP"):
        hold.commit(0.1, delta)
    assert hold.state == "released" and acc.spends == [] and acc.reserved == []
    est = NoisyGradientDescent(epsilon=0.5, delta=1e-6, steps=5, radius=1.0, accountant=acc)
    with pytest.raises(BudgetError, match="pure epsilon-DP"):
        est.fit(*_cross_val_data())
    assert not hasattr(est, "coef_")
    acc.spend(0.1, 0.0)  # pure epsilon spends still fit
    approx = BudgetAccountant(epsilon=1.0, delta=1e-6)
    approx.spend(0.1, min(delta, 1e-6))
    assert acc.spent == (0.1, 0.0) and approx.spent == (0.1, min(delta, 1e-6))


def test_delta_budget_comparison_is_relative():
    acc = BudgetAccountant(epsilon=1.0, delta=1e-12)
    with pytest.raises(BudgetError, match="over the budget"):
        acc.spend(0.1, 1.0001e-12)  # 0.01 % over a tiny delta budget
    with pytest.raises(BudgetError, match="over the budget"):
        acc.spend(0.1, 1e-12 * (1 + 1e-9))  # more than the rounding of decimals to binary
    acc.spend(0.1, 1e-12 * (1 + 2.0**-52))  # a unit in the last place is absorbed


def test_decimal_spends_that_sum_to_the_budget_fit_and_no_more():
    acc = BudgetAccountant(epsilon=0.3)
    acc.spend(0.1)
    acc.spend(0.2)  # 0.1 + 0.2 is 0.30000000000000004 in binary: the rounding of the decimals
    with pytest.raises(BudgetError, match="over the budget"):
        acc.spend(1e-12)


def test_cross_val_score_with_threads_records_every_fit():
    """The thread backend shares the one (locked) ledger: all 5 fits are recorded."""
    import joblib
    from sklearn.model_selection import cross_val_score

    import dpconvex as dp

    X, y = _cross_val_data()
    acc = BudgetAccountant(epsilon=1.0)
    est = dp.PrivateLogisticRegression(epsilon=0.1, accountant=acc, random_state=0)
    with joblib.parallel_backend("threading", n_jobs=2):
        scores = cross_val_score(est, X, y, cv=5, n_jobs=2)
    assert len(scores) == 5 and np.all(np.isfinite(scores))
    assert len(acc.spends) == 5 and acc.spent[0] == pytest.approx(0.5)


def test_a_generator_suspended_in_a_parallel_block_groups_none_of_its_callers_spends():
    """The block's context outlives the generator's frame in its caller: spends there are
    not in the block (they add up), only the generator's own are."""
    ledger = BudgetAccountant(2.0)

    def parts():
        with ledger.parallel():
            ledger.spend(0.5, label="first part")
            yield
            ledger.spend(0.5, label="second part")
            yield

    steps = parts()
    next(steps)
    ledger.spend(0.6, label="outside the block")
    next(steps)
    assert ledger.spent[0] == pytest.approx(0.5 + 0.6)  # the parts by max, then the rest added
    assert [s.group is None for s in ledger.spends] == [False, True, False]


def test_an_unlimited_ledger_stays_unlimited_and_sums_past_the_float_range():
    ledger = BudgetAccountant(math.inf)
    ledger.spend(math.inf)
    assert ledger.remaining == (math.inf, 0.0)  # not inf - inf, which is nan
    for _ in range(2):
        ledger.spend(1e308)  # a sum math.fsum cannot hold
    assert ledger.spent == (math.inf, 0.0)
