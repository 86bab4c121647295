"""The local process pool: results as completed, a dead worker costs only its own task."""

from __future__ import annotations

import os
import time
from concurrent.futures import BrokenExecutor, as_completed

import pytest

from tests.tournaments import helpers
from tournaments.executors.local_pool import PIN_ENV, LocalPoolExecutor, WorkerLost, worker_cpus


def test_results_come_back_from_long_lived_workers() -> None:
    with LocalPoolExecutor(2) as pool:
        futures = [pool.submit(helpers.square, i) for i in range(40)]
        results = [f.result(timeout=30) for f in futures]
    assert [r[0] for r in results] == [i * i for i in range(40)]
    assert len({r[1] for r in results}) <= 2  # the same two processes did everything


def test_a_killed_worker_costs_only_its_task_and_is_replaced() -> None:
    pool = LocalPoolExecutor(2)
    try:
        before = [pool.submit(helpers.nap_then_square, i, 0.05) for i in range(6)]
        doomed = pool.submit(helpers.die, 0)
        after = [pool.submit(helpers.nap_then_square, i, 0.0) for i in range(6, 12)]
        done = list(as_completed(before + [doomed] + after, timeout=60))
        assert len(done) == 13
        with pytest.raises(WorkerLost):
            doomed.result()
        assert [f.result() for f in before + after] == [i * i for i in range(12)]
        assert pool.lost_workers == 1
        assert len(pool.worker_pids) == 2  # replaced
    finally:
        pool.shutdown()


def test_a_task_exception_comes_back_as_itself() -> None:
    with LocalPoolExecutor(1) as pool:
        with pytest.raises(ValueError, match="no 3"):
            pool.submit(helpers.fail, 3).result(timeout=30)
        assert pool.submit(helpers.square, 2).result(timeout=30)[0] == 4


def test_cancel_futures_on_shutdown() -> None:
    pool = LocalPoolExecutor(1)
    running = pool.submit(helpers.nap_then_square, 2, 0.3)
    while not running.running():
        time.sleep(0.01)
    waiting = [pool.submit(helpers.nap_then_square, i, 0.3) for i in range(5)]
    pool.shutdown(wait=True, cancel_futures=True)
    assert running.result() == 4
    assert all(f.cancelled() for f in waiting)


def test_a_failing_initializer_breaks_the_pool_instead_of_looping() -> None:
    pool = LocalPoolExecutor(1, initializer=helpers.broken_initializer)
    future = pool.submit(helpers.square, 1)
    with pytest.raises(BrokenExecutor):
        future.result(timeout=60)
    pool.shutdown()


def test_the_local_pool_offers_the_optional_parts_of_the_executor_interface() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from tournaments.executors.api import RetryingExecutor, SizedExecutor, TerminableExecutor

    pool = LocalPoolExecutor(1)
    try:
        assert isinstance(pool, SizedExecutor) and isinstance(pool, TerminableExecutor)
        assert not isinstance(pool, RetryingExecutor)  # the runner retries a lost worker's match itself
    finally:
        pool.shutdown()
    with ThreadPoolExecutor(1) as plain:  # any Executor will do: without worker_count the runner assumes its workers
        assert not isinstance(plain, SizedExecutor)


def test_workers_come_from_a_fork_server_not_from_the_coordinator() -> None:
    # The coordinator runs threads: a worker forked from it would inherit their locks (held or not) and its heap.
    with LocalPoolExecutor(2) as pool:
        placements = [pool.submit(helpers.placement, i).result(timeout=60) for i in range(4)]
    assert all(parent != os.getpid() for _pid, parent, _cpus in placements)
    assert all(pid != os.getpid() for pid, _parent, _cpus in placements)


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs to pin two workers")
def test_pinned_workers_each_run_on_a_cpu_of_their_own() -> None:
    with LocalPoolExecutor(2, pin_cpus=True) as pool:
        cpus = pool.pinned_cpus
        futures = [pool.submit(helpers.placement, i, 0.2) for i in range(6)]  # both workers busy at once
        placements = {pid: tuple(allowed) for pid, _parent, allowed in (f.result(timeout=60) for f in futures)}
    assert cpus is not None and len(set(cpus)) == 2
    assert len(placements) == 2
    assert sorted(placements.values()) == sorted((cpu,) for cpu in cpus)  # each worker on its own single CPU


def test_pinning_is_left_out_when_there_are_more_workers_than_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    assert worker_cpus(len(os.sched_getaffinity(0)) + 1) is None
    assert worker_cpus(1) == [min(os.sched_getaffinity(0))]
    monkeypatch.setenv(PIN_ENV, "0")  # the operator's way out, e.g. on a machine shared with other programs
    assert worker_cpus(1) is None


def test_a_worker_sees_the_coordinators_environment_as_it_is_when_the_worker_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with LocalPoolExecutor(1) as pool:  # the fork server may have started long before
        pool.submit(helpers.square, 1).result(timeout=60)
    monkeypatch.setenv("LADDER_TEST_SET_LATE", "yes")
    with LocalPoolExecutor(1) as pool:
        assert pool.submit(helpers.environment, "LADDER_TEST_SET_LATE").result(timeout=60) == "yes"


def test_no_submit_is_left_waiting_when_only_the_first_behind_an_empty_queue_wakes_the_manager() -> None:
    """A submit wakes the manager thread only when it made the queue non-empty; every task must still start.
    Ping-pong (each task submitted to an empty queue with idle workers) and bursts from four threads at once
    (queues that empty and fill again while results come back): a lost wake-up would leave a future unfinished."""
    import threading

    with LocalPoolExecutor(2) as pool:
        for i in range(50):  # one at a time: every submit finds the queue empty and the workers idle
            assert pool.submit(helpers.square, i).result(timeout=10)[0] == i * i
        failures: list[BaseException] = []

        def burst(offset: int) -> None:
            try:
                for round_ in range(60):
                    size = 1 + (round_ + offset) % 3
                    futures = [pool.submit(helpers.square, round_ + k) for k in range(size)]
                    assert [f.result(timeout=10)[0] for f in futures] == [(round_ + k) ** 2 for k in range(size)]
            except BaseException as error:  # noqa: BLE001 - reported by the main thread
                failures.append(error)

        threads = [threading.Thread(target=burst, args=(offset,)) for offset in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert not failures and not any(thread.is_alive() for thread in threads)
