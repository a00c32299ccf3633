"""The process pool of the expensive stages: ``map`` over worker processes that survives them.

A worker that dies (a crash in a native parser, the kernel's OOM killer, a signal) takes
the items it was running with it, and ``concurrent.futures`` then fails every pending
item. This pool retries those items one at a time in a fresh worker, so the item that kills
its worker alone is the one reported (through the caller's ``on_death``), and the run goes
on. Workers hold an address-space limit (a last guard: the evaluator's limits come first)
and die with the process that started them.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any, Protocol, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class Mapper(Protocol):
    """``map(fn, items)`` over ``count`` items; ``on_death(item)`` stands for the result of an
    item whose worker died running it."""

    def __call__(self, fn: Callable[[T], R], items: Iterable[T], count: int, on_death: Callable[[T], R], /) -> Iterator[R]: ...


POOL_THRESHOLD = 32  # below this many items, starting workers costs more than it saves
WORKER_MEMORY = 4 << 30  # bytes of address space a worker may map (RLIMIT_AS); a file past it fails alone
_PR_SET_PDEATHSIG = 1


@contextmanager
def mapper(jobs: int) -> Iterator[Mapper]:
    """``map`` for the expensive stages: in-process for one job or little work, else over a
    pool of ``jobs`` workers started on first need and shared by the stages."""
    pool = _Pool(jobs)

    def run(fn: Callable[[Any], Any], items: Iterable[Any], count: int, on_death: Callable[[Any], Any]) -> Iterator[Any]:
        """``map(fn, items)`` over ``count`` items; ``on_death(item)`` stands for the result
        of an item whose worker died running it."""
        if jobs <= 1 or count < POOL_THRESHOLD:
            return map(fn, items)
        # Items come largest first: small chunks keep the first ones from piling up on one
        # worker (the 64 stdlib files with the most cards hold 47% of its cards).
        return pool.map(fn, items, max(1, min(8, count // (jobs * 32))), on_death)

    try:
        yield run
    finally:
        pool.close()


class _Pool:
    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self._executor: ProcessPoolExecutor | None = None

    def _started(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(max_workers=self.jobs, initializer=_worker_start, initargs=(os.getpid(),))
        return self._executor

    def _restart(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
        self._executor = None

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown()
        self._executor = None

    def map(self, fn: Callable[[T], R], items: Iterable[T], chunk: int, on_death: Callable[[T], R]) -> Iterator[R]:
        """The results in the order of ``items``, at most a few chunks per worker in flight
        (``items`` is consumed as the workers take them)."""
        source = iter(items)
        pending: deque[tuple[list[T], Future[list[R]] | None]] = deque()
        limit = self.jobs * 4
        task = _Task(fn)
        while True:
            while len(pending) < limit:
                batch = [item for _, item in zip(range(chunk), source)]
                if not batch:
                    break
                try:
                    pending.append((batch, self._started().submit(task, batch)))
                except BrokenProcessPool:  # a worker died while this filled the queue
                    pending.append((batch, None))
                    break
            if not pending:
                return
            batch, future = pending.popleft()
            try:
                if future is None:
                    raise BrokenProcessPool("a worker died")
                results = future.result()
            except BrokenProcessPool:
                # Every item in flight failed with the worker; find the one that kills it.
                suspects = [batch, *(b for b, _ in pending)]
                pending.clear()
                self._restart()
                for suspect in suspects:
                    yield from self._one_by_one(task, suspect, on_death)
                continue
            yield from results

    def _one_by_one(self, task: _Task, batch: list[T], on_death: Callable[[T], R]) -> Iterator[R]:
        for item in batch:
            try:
                yield self._started().submit(task, [item]).result()[0]
            except BrokenProcessPool:
                self._restart()
                yield on_death(item)


class _Task:
    """A chunk of items as a worker runs it: afterwards, the reference cycles the work left
    behind (nearly all young) are freed by collecting the young generations, when they hold
    enough objects to be worth a walk (rendering a file's pages leaves none; the analysis
    breaks its own big cycles, see cstpass.UnitAnalysis.close). Once in a while a full
    collection frees the old cycles too: entries the worker's caches dropped (parsed guards
    hold cycles through their compiled closures). On vLLM (3,231 files), with a young
    collection after every item and a full one every 1,000, collecting took about 8 s of a
    cold run's 80 s of worker CPU, 4 s of it the full ones; with no full collection at all
    the workers' peak memory was the same (230 MB), so full ones are rare now."""

    FULL_EVERY = 10_000  # items between full collections (each walks the worker's whole heap)
    YOUNG = 20_000  # container objects allocated, and not yet freed, since the last collection

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn = fn

    def __call__(self, batch: list[Any]) -> list[Any]:
        out = []
        for item in batch:
            try:
                out.append(self.fn(item))
            finally:
                _done[0] += 1
                if _done[0] % self.FULL_EVERY == 0:
                    gc.collect(2)
                elif gc.get_count()[0] > self.YOUNG:
                    gc.collect(1)
        return out


_done = [0]  # items this worker has run


def _worker_start(parent: int) -> None:
    """A forked worker inherits the parent's heap: frozen, the garbage collector never walks,
    and so never copies, those objects. Automatic collection stays off (it cost about a third
    of a worker's time, rescanning what the run keeps); see _Task. The worker dies with its
    parent, and holds an address-space limit."""
    gc.freeze()
    gc.disable()
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)
    try:
        import resource

        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        wanted = WORKER_MEMORY if hard == resource.RLIM_INFINITY else min(WORKER_MEMORY, hard)
        resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))
    except (ImportError, ValueError, OSError):
        pass
