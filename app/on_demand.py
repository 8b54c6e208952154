"""A heavy part (a model, the local models' child process) loaded when first needed and released after a
quiet spell: what keeps Parley small while it sleeps (issue 35, bench/footprint.py).

Asleep, Parley needs only the wake word, the audio path, the store and the window. The transcriber, the chat
model, the language detector and the local embedding models each cost 70-170 MB resident; each sits behind
one `OnDemand`, which loads it on the first `lease` (or as soon as a conversation opens: `held`, `prepare`)
and releases it once nobody has used it for `quiet_s` seconds (the `models_release_s` setting).

Facts that shape it:
- A release never cuts a use short: while any `lease` or `held` is open the timer does not run, and the
  quiet spell starts when the last one closes.
- Memory freed in this process goes back to the OS only if the allocator hands it back: glibc keeps freed
  heap in its arenas, so every release ends with `malloc_trim` (measured: Whisper and SmolLM2 released give
  back all but 30 MB of their 320; with the trim, all). A child process that stops gives back everything.
- The load runs as a task of its own, shielded from the callers that wait for it: a conversation cancelled
  while the models load does not cancel the load another caller waits for.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import gc
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager, suppress
from functools import cache
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from chats.embedders.embedding import Matrix
    from chats.embedders.local_embedder import InProcessEmbedder
    from chats.embedders.local_process import LocalModelsProcess

T = TypeVar("T")
log = logging.getLogger(__name__)


class OnDemand(Generic[T]):
    """One part, loaded by `load` when first needed and released by `release` after `quiet_s` seconds unused.
    On the event loop that uses it; `aclose` releases it for good (it may be used again after, and loads again)."""

    def __init__(
        self, name: str, load: Callable[[], Awaitable[T]], release: Callable[[T], Awaitable[None]], *, quiet_s: float
    ) -> None:
        """`name`: the part, for the log and the tasks' names; `quiet_s`: seconds unused before it is released."""
        self.name = name
        self._load = load
        self._release = release
        self.quiet_s = quiet_s
        self._loading: asyncio.Task[T] | None = None
        self._users = 0
        self._timer: asyncio.Task[None] | None = None
        self._idle = asyncio.Event()
        self._idle.set()

    @property
    def loaded(self) -> bool:
        """Loaded, or loading."""
        return self._loading is not None

    def prepare(self) -> None:
        """Start loading now, in the background, unless it is loaded or loading; unused, it is released after the
        quiet spell as after a use."""
        if self._loading is None:
            self._loading = asyncio.create_task(self._loaded(), name=f"load {self.name}")
            # Read here too: a load nobody waits for (a conversation that ended first) logs nothing at exit.
            self._loading.add_done_callback(lambda done: done.cancelled() or done.exception())
            if self._users == 0:
                self._start_timer()

    @asynccontextmanager
    async def held(self) -> AsyncIterator[None]:
        """Keep the part from being released while the context is open, and start loading it without waiting
        (a conversation holds what it may need)."""
        self._users += 1
        self._idle.clear()
        self._stop_timer()
        try:
            self.prepare()
            yield
        finally:
            self._users -= 1
            if self._users == 0:
                self._idle.set()
                self._start_timer()

    @asynccontextmanager
    async def lease(self) -> AsyncIterator[T]:
        """The part, loaded (waiting for the load in progress, or starting one); not released before the context
        closes. A load that failed raises here, and the next lease tries again."""
        async with self.held():
            assert self._loading is not None
            loading = self._loading
            try:
                part = await asyncio.shield(loading)
            except Exception:
                if self._loading is loading:
                    self._loading = None
                raise
            yield part

    async def aclose(self) -> None:
        """Release the part now, once its uses in progress are over."""
        self._stop_timer()
        await self._released()

    def _start_timer(self) -> None:
        self._stop_timer()
        if self._loading is not None:
            self._timer = asyncio.create_task(self._release_when_quiet(), name=f"release {self.name}")

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    async def _release_when_quiet(self) -> None:
        await asyncio.sleep(self.quiet_s)
        self._timer = None
        await self._released()

    async def _released(self) -> None:
        await self._idle.wait()
        loading, self._loading = self._loading, None
        if loading is None:
            return
        try:
            part = await loading
        except Exception:  # nothing was loaded: nothing to release (the lease that waited for it was told)
            return
        await self._release(part)
        del part, loading  # the last references: what the part held is freed before the heap is trimmed
        await asyncio.to_thread(give_back_memory)
        log.info("%s released", self.name)

    async def _loaded(self) -> T:
        part = await self._load()
        log.info("%s loaded", self.name)
        return part


def give_back_memory() -> None:
    """Free what only cycles still hold, then hand the heap the process freed back to the OS (glibc's
    `malloc_trim`; nothing more where there is none)."""
    gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    with suppress(OSError, AttributeError):
        return ctypes.CDLL(name).malloc_trim
    return None


A = TypeVar("A")
C = TypeVar("C")


def holding(
    parts: Sequence[OnDemand[Any]], opening: Callable[[A], AbstractAsyncContextManager[C]]
) -> Callable[[A], AbstractAsyncContextManager[C]]:
    """`opening`, with `parts` held (`OnDemand.held`: loading, and kept) while what it opens is open: a voice
    loop's connections, and the models a conversation may need."""

    @asynccontextmanager
    async def opened(argument: A) -> AsyncIterator[C]:
        async with AsyncExitStack() as held:
            for part in parts:
                await held.enter_async_context(part.held())
            async with opening(argument) as connection:
                yield connection

    return opened


class LocalModelsOnDemand:
    """The local models' child process (`chats.embedders.local_process`) as an `OnDemand`: started, its model
    loaded, when first asked (or as a conversation opens), stopped after `quiet_s` unused; a stopped child gives
    all its memory back. Its `call` is the child's, for `ProcessEmbedder` and `ProcessTextModel`."""

    def __init__(self, process: LocalModelsProcess, quiet_s: float) -> None:
        async def load() -> LocalModelsProcess:
            from chats.embedders.local_process import warm_up
            from chats.errors import EmbeddingError

            # A child that cannot start, or a model that cannot load, is said by the request that needs it.
            with suppress(EmbeddingError):
                await warm_up(process, process.model)
            return process

        self.part = OnDemand("the local models' process", load, _stopped, quiet_s=quiet_s)

    async def call(self, request: dict[str, Any], payload_bytes: int = 0) -> tuple[dict[str, Any], bytes]:
        async with self.part.lease() as process:
            return await process.call(request, payload_bytes)

    async def aclose(self) -> None:
        await self.part.aclose()


async def _stopped(process: LocalModelsProcess) -> None:
    await process.aclose()


class EmbedderOnDemand:
    """An embedder of this process (`InProcessEmbedder`, whose weights stay once read) as an `OnDemand`: a fresh
    one made by `make` at the first `embed`, its weights read then, and let go after `quiet_s` unused. The
    multilingual encoder beside MiniLM (`chats.embedders.local_models.OtherLanguages`, a memory said in another
    language) holds 100 MB once it has embedded, 13 MB after the release."""

    def __init__(self, make: Callable[[], InProcessEmbedder[Any]], quiet_s: float) -> None:
        self._named = make()  # its weights are read at its first embed only: this one gives the names
        self.part: OnDemand[InProcessEmbedder[Any]] = OnDemand(
            f"the {self._named.model_name} embedder", _made(make), dropped, quiet_s=quiet_s
        )

    @property
    def model_name(self) -> str:
        return self._named.model_name

    @property
    def dimensions(self) -> int:
        return self._named.dimensions

    async def embed(self, texts: Sequence[str]) -> Matrix:
        async with self.part.lease() as embedder:
            return await embedder.embed(texts)


def _made(make: Callable[[], T]) -> Callable[[], Awaitable[T]]:
    async def made() -> T:
        return make()

    return made


async def dropped(_: object) -> None:
    """A release for a part with nothing to close: what it holds goes with its last reference, which `OnDemand`
    drops."""
