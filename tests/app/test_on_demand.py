"""`OnDemand`: a part loaded when first needed, released after a quiet spell, never while it is in use. The
part here is a counter of loads and releases: what is tested is when `OnDemand` calls them."""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass, field

import numpy as np
import psutil
import pytest

from app.on_demand import EmbedderOnDemand, LocalModelsOnDemand, OnDemand
from chats.embedders.local_process import LocalModelsProcess, ProcessEmbedder
from chats.embedders.use_multilingual import MODEL_NAME as USE_MODEL_NAME
from chats.embedders.use_multilingual import MultilingualEmbedder

WAIT_S = 10.0
"""Only how long a failing test waits: nothing here is timed."""


@dataclass
class Part:
    """Loads and releases, counted; each load is a new part (its number)."""

    loads: int = 0
    released: list[int] = field(default_factory=list)
    failures: int = 0
    """Loads that fail before one succeeds."""
    gone: asyncio.Event = field(default_factory=asyncio.Event)

    async def load(self) -> int:
        await asyncio.sleep(0)
        if self.failures:
            self.failures -= 1
            raise OSError("the model file is missing")
        self.loads += 1
        return self.loads

    async def release(self, part: int) -> None:
        self.released.append(part)
        self.gone.set()

    async def until_released(self) -> None:
        async with asyncio.timeout(WAIT_S):
            await self.gone.wait()
        self.gone.clear()


def on_demand(part: Part, quiet_s: float = 0.0) -> OnDemand[int]:
    return OnDemand("the test model", part.load, part.release, quiet_s=quiet_s)


async def test_nothing_is_loaded_until_it_is_needed() -> None:
    part = Part()
    model = on_demand(part)
    assert not model.loaded and part.loads == 0
    async with model.lease() as loaded:
        assert loaded == 1 and model.loaded


async def test_a_part_released_after_a_quiet_spell_loads_again_on_its_next_use() -> None:
    part = Part()
    model = on_demand(part, quiet_s=0.01)
    async with model.lease() as first:
        pass
    await part.until_released()
    assert part.released == [first] and not model.loaded
    async with model.lease() as second:
        assert second == 2
    await part.until_released()
    assert part.released == [1, 2]


async def test_uses_one_after_the_other_share_one_load_until_the_quiet_spell() -> None:
    part = Part()
    model = on_demand(part, quiet_s=WAIT_S * 10)  # longer than the test: never released by its timer
    for _ in range(3):
        async with model.lease() as loaded:
            assert loaded == 1
    assert part.loads == 1 and part.released == []
    await model.aclose()
    assert part.released == [1]


async def test_a_release_during_a_use_waits_for_the_use() -> None:
    part = Part()
    model = on_demand(part)
    using = asyncio.Event()
    done_using = asyncio.Event()

    async def use() -> None:
        async with model.lease():
            using.set()
            await done_using.wait()
            assert part.released == []  # still in use: not released under it

    user = asyncio.create_task(use())
    await using.wait()
    closing = asyncio.create_task(model.aclose())
    for _ in range(5):  # the release has had every chance to run: it waits
        await asyncio.sleep(0)
    assert not closing.done() and part.released == []
    done_using.set()
    async with asyncio.timeout(WAIT_S):
        await asyncio.gather(user, closing)
    assert part.released == [1]


async def test_a_quiet_spell_counts_from_the_last_use_that_ends() -> None:
    part = Part()
    model = on_demand(part)
    first, second = model.lease(), model.lease()
    await first.__aenter__()
    await second.__aenter__()
    await first.__aexit__(None, None, None)
    for _ in range(5):
        await asyncio.sleep(0)
    assert part.released == []  # the second use is still open
    await second.__aexit__(None, None, None)
    await part.until_released()
    assert part.released == [1]


async def test_held_starts_the_load_without_waiting_and_keeps_the_part() -> None:
    part = Part()
    model = on_demand(part)
    async with model.held():
        assert model.loaded and part.loads == 0  # loading in the background
        async with model.lease() as loaded:
            assert loaded == 1
        for _ in range(5):
            await asyncio.sleep(0)
        assert part.released == []  # still held
    await part.until_released()


async def test_a_load_that_fails_is_said_to_its_user_and_tried_again_by_the_next() -> None:
    part = Part(failures=1)
    model = on_demand(part)
    with pytest.raises(OSError, match="missing"):
        async with model.lease():
            pass
    assert not model.loaded
    async with model.lease() as loaded:
        assert loaded == 1
    await part.until_released()
    assert part.released == [1]


def model_children() -> list[psutil.Process]:
    return [child for child in psutil.Process().children() if "chats.embedders.local_process" in child.cmdline()]


async def test_the_local_models_child_stops_when_released_and_starts_again_for_the_next_request() -> None:
    models = LocalModelsOnDemand(LocalModelsProcess(), quiet_s=WAIT_S * 10)
    embedder = ProcessEmbedder(models)
    try:
        assert model_children() == []  # nothing started before a request
        first = await embedder.embed(["a cat on the mat"])
        assert len(model_children()) == 1
        await models.aclose()
        assert model_children() == []  # stopped: its memory is the OS's again
        again = await embedder.embed(["a cat on the mat"])
        assert len(model_children()) == 1 and np.array_equal(first, again)
    finally:
        await models.aclose()


async def test_a_part_prepared_and_never_used_is_released_after_the_quiet_spell() -> None:
    part = Part()
    model = on_demand(part, quiet_s=0.01)
    model.prepare()  # a message being typed, never sent
    await part.until_released()
    assert part.loads == 1 and part.released == [1] and not model.loaded


async def test_an_embedder_of_this_process_reads_its_weights_at_its_first_embed_and_lets_them_go() -> None:
    made: list[weakref.ref[MultilingualEmbedder]] = []

    def make() -> MultilingualEmbedder:
        embedder = MultilingualEmbedder()
        made.append(weakref.ref(embedder))
        return embedder

    embedder = EmbedderOnDemand(make, quiet_s=WAIT_S * 10)  # longer than the test: released by `aclose` alone
    assert (embedder.model_name, embedder.dimensions) == (USE_MODEL_NAME, 512)
    assert not embedder.part.loaded and len(made) == 1  # named, nothing read
    first = await embedder.embed(["Il mio gatto si chiama Miele"])
    assert first.shape == (1, 512) and len(made) == 2
    await embedder.part.aclose()
    assert made[1]() is None  # nothing holds its weights any more
    again = await embedder.embed(["Il mio gatto si chiama Miele"])
    assert len(made) == 3 and np.allclose(first, again)
    await embedder.part.aclose()
