"""GraphCache: the captured CUDA graphs of one runner, in one place for every runner.

Both graph runners (FlashInfer's packed stack, the standard padded step) keep
their graphs the same way: keyed by the shape they were captured for, at most
``max_graphs`` of them (the least recently used is dropped first), all captured
into one memory pool (they replay one at a time on one stream, so the pool holds
one set of activations, not one per shape), and used only on the thread that made
the cache: CUDA graphs and their static buffers are not safe to share between
threads, and the studio's engine lives on its worker thread.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from typing import Any

MAX_GRAPHS = 8


class GraphThreadError(RuntimeError):
    """A graph was asked for on a thread other than the one that owns the cache."""


class GraphCache:
    def __init__(self, platform, max_graphs: int = MAX_GRAPHS):
        self.platform = platform
        self.max_graphs = max_graphs
        self.owner = threading.get_ident()
        self._pool: Any = None
        self._entries: OrderedDict[Hashable, Any] = OrderedDict()

    def check_thread(self) -> None:
        if threading.get_ident() != self.owner:
            raise GraphThreadError(
                "CUDA graphs are captured and replayed only on the thread that made the runner")

    def get(self, key: Hashable) -> Any:
        """The entry captured for ``key`` (now the most recently used), or None."""
        self.check_thread()
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
        return entry

    def capture(self, fn: Callable[[], Any]) -> tuple[Callable[[], Any], Any]:
        """``platform.capture_graph(fn)`` into the shared pool: (replay, output)."""
        self.check_thread()
        if self._pool is None:
            self._pool = self.platform.graph_pool()
        return self.platform.capture_graph(fn, pool=self._pool)

    def put(self, key: Hashable, entry: Any) -> Any:
        """Keep ``entry`` for ``key``, dropping the least recently used past the bound."""
        self.check_thread()
        self._entries[key] = entry
        while len(self._entries) > self.max_graphs:
            self._entries.popitem(last=False)
        return entry

    def clear(self) -> bool:
        """Drop every graph and the pool; True when there was anything to drop."""
        had = bool(self._entries) or self._pool is not None
        self._entries.clear()
        self._pool = None
        return had

    @property
    def pool(self) -> Any:
        return self._pool

    def keys(self) -> list[Hashable]:
        return list(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __bool__(self) -> bool:
        return bool(self._entries)

    def __iter__(self) -> Iterator[Hashable]:
        return iter(list(self._entries))

    def __contains__(self, key: Hashable) -> bool:
        return key in self._entries
