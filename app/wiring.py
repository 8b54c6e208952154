"""Which store, embedder and text model this run uses, chosen from the settings."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any
from uuid import UUID, uuid4

from app.config.config_file import SettingsError
from app.config.paths import model_cache
from app.config.secrets import Secret
from app.config.settings import Settings, StorageChoice
from chats.degrade import RemotePart
from chats.models import utc_now
from chats.text.text_model import TextModelOnFirstUse
from languages.registry import codes

# What a command may not need is imported where it is built (in `ChatServices` and the `make_` functions),
# not here: `parley chats list` reads the store alone, and the embedding model's code (numpy, tokenizers),
# the memory service's language tables (simplemma) and the offline text model (yake) each take tenths of a
# second to import on a 2-core machine.
if TYPE_CHECKING:
    from app.on_demand import OnDemand
    from chats.embedders.embedding import Embedder
    from chats.embedders.gemini_embedder import GeminiEmbedder
    from chats.embedders.local_models import OtherLanguages
    from chats.embedders.local_process import ModelsChild
    from chats.embedders.openai_embedder import OpenAIEmbedder
    from chats.maintenance import ChatMaintainer
    from chats.memory.service import MemoryService
    from chats.memory.store import MemoryStore
    from chats.recall import Recaller
    from chats.search import ChatFinder
    from chats.store import ChatStore
    from chats.text.text_model import TextModel
    from chats.working_memory import WorkingMemory

STORE_FILE = "chats.sqlite3"


def store_path(settings: Settings) -> Path:
    return settings.data_dir / STORE_FILE


def store_location(settings: Settings) -> str:
    """Where the chats are, for people: the SQLite file, or the Supabase project."""
    if settings.storage == "supabase":
        return f"the Supabase project {settings.supabase_url or '(not set)'}"
    return str(store_path(settings))


def spoken_language(settings: Settings) -> str | None:
    """The language the user speaks, for the models told one (Whisper, the offline intents, Gemini Live's
    speech config); None for "auto": each finds it in what is said."""
    return None if settings.language in (None, "auto") else settings.language


def live_language_code(settings: Settings) -> str | None:
    """The `speech_config.language_code` for Gemini Live, None for "auto". Native-audio models take the
    language from the system prompt (`app.tools.prompt.language_line`), which always says it; the code
    matters to the half-cascade models."""
    language = spoken_language(settings)
    return None if language is None else codes("live").get(language)


def language_of(text: str, hint: str) -> str:
    """The language of `text` (`chats.language.words.detect`), `hint` when it is too short to tell: what the offline
    voice speaks each sentence in."""
    from chats.language.words import detect

    return detect(text, hint=hint)


def language_detector(quiet_s: float) -> OnDemand[None]:
    """The language detector's model (70 MB), loaded on a thread as a conversation opens (1.2 s on a 2-core CPU,
    5 s at load 18) and let go after `quiet_s` unused. Loaded by the first spoken answer that asks a text's
    language (the offline voice's, to pick each sentence's voice; a memory's grounding), it stalled the event
    loop, and the voice with it."""
    from app.on_demand import OnDemand
    from chats.language.words import load_detector, unload_detector

    async def released(_: None) -> None:
        unload_detector()

    return OnDemand("the language detector", lambda: asyncio.to_thread(load_detector), released, quiet_s=quiet_s)


def chosen_key(key: Secret | None, chosen: str, variable: str) -> str:
    """The key of the service the settings chose (`chosen`, "the Gemini embedder"); a `SettingsError`
    that names the environment variable to set when there is none. Asked for only once the service is
    chosen: a choice that needs no key never asks for one."""
    if key is None:
        raise SettingsError(f"{chosen} is chosen but no key is set: set {variable}")
    return key.reveal()


REMOTE_TIMEOUT_SECONDS = 5.0
"""How long a remote embedding request may take when a local twin stands behind it: a voice switch waits
on it. The SDKs' retries are off too (the twin is the retry): a service that hangs costs one timeout, then
rests (`chats.degrade`)."""
REMOTE_TEXT_TIMEOUT_SECONDS = 20.0
"""The same for a summary or title: written in the background, but leaving Parley waits for it."""


def make_local_embedder(settings: Settings, child: ModelsChild | None = None) -> Embedder:
    """The local embedder of the user's language; `child`: it runs there (see `open_chat_services`), which must
    run the model `local_model_for(settings.language)` names."""
    from chats.embedders.local_models import local_embedder_for, local_model_for
    from chats.embedders.local_process import ProcessEmbedder

    if child is None:  # the multilingual model read from the model cache: ready in a tenth of the time
        return local_embedder_for(settings.language, model_cache())
    return ProcessEmbedder(child, local_model_for(settings.language))


def make_embedder(
    settings: Settings,
    closing: AsyncExitStack,
    child: ModelsChild | None = None,
    *,
    clock: Callable[[], datetime] = utc_now,
) -> Embedder:
    """The embedder the settings choose; network clients are closed with `closing`. `child`: the local
    model runs there (see `open_chat_services`). A remote embedder comes with its local twin, which answers
    when the service cannot (`FallbackEmbedder`); `clock` times its rests."""
    choice = settings.effective_embedder
    twin = make_local_embedder(settings, child)
    if choice == "local":
        return twin
    remote: OpenAIEmbedder | GeminiEmbedder
    if choice == "gemini":
        key = chosen_key(settings.gemini_api_key, "the Gemini embedder", "GEMINI_API_KEY")
        # Imported when chosen, like the text model: google-genai takes 0.4 s to import.
        from chats.embedders.gemini_embedder import GeminiEmbedder

        remote = GeminiEmbedder(
            key,
            model=settings.gemini_embedding_model,
            base_url=settings.gemini_base_url,
            timeout_seconds=REMOTE_TIMEOUT_SECONDS,
            max_retries=0,
        )
        part = "Gemini embeddings"
    else:
        key = chosen_key(settings.openai_api_key, "the OpenAI embedder", "OPENAI_API_KEY")
        from chats.embedders.openai_embedder import OpenAIEmbedder

        remote = OpenAIEmbedder(
            key,
            model=settings.openai_embedding_model,
            base_url=settings.openai_base_url,
            timeout_seconds=REMOTE_TIMEOUT_SECONDS,
            max_retries=0,
        )
        part = "OpenAI embeddings"
    closing.push_async_callback(remote.aclose)
    from chats.degrade import RemotePart
    from chats.embedders.fallback_embedder import FallbackEmbedder

    return FallbackEmbedder(remote, twin, RemotePart(part, f"the local model {twin.model_name}", clock=clock))


def make_text_model(
    settings: Settings,
    closing: AsyncExitStack,
    child: ModelsChild | None = None,
    *,
    clock: Callable[[], datetime] = utc_now,
    part: RemotePart | None = None,
) -> TextModel:
    """The text model the settings choose; network clients are closed with `closing`. `child`: the
    offline model runs there (see `open_chat_services`). Gemini comes with the offline model as its twin,
    which writes when the service cannot (`FallbackTextModel`); `clock` times its rests, `part` holds its
    health (`text_part`; a new one when None)."""
    if child is not None:
        from chats.embedders.local_process import ProcessTextModel

        offline: TextModel = ProcessTextModel(child)
    else:
        # Imported when needed, like the Gemini one: yake brings networkx, 0.2 s of the window's first paint.
        from chats.text.offline_text import OfflineTextModel

        offline = OfflineTextModel(spoken_language(settings))
    if settings.effective_text_model == "offline":
        return offline
    key = chosen_key(settings.gemini_api_key, "the Gemini text model", "GEMINI_API_KEY")
    from chats.text.gemini_text import GeminiTextModel

    remote = GeminiTextModel(
        key, model=settings.gemini_text_model, base_url=settings.gemini_base_url, timeout_s=REMOTE_TEXT_TIMEOUT_SECONDS
    )
    closing.push_async_callback(remote.aclose)
    from chats.text.fallback_text import FallbackTextModel

    return FallbackTextModel(remote, offline, part or _remote_text_part(clock))


def text_part(settings: Settings, clock: Callable[[], datetime] = utc_now) -> RemotePart | None:
    """The health of the remote text model the settings choose (None: the offline one, which has none)."""
    return None if settings.effective_text_model == "offline" else _remote_text_part(clock)


def _remote_text_part(clock: Callable[[], datetime]) -> RemotePart:
    return RemotePart("Gemini summaries and titles", "the offline writer", clock=clock)


NO_INSTALLATION = UUID(int=0)
"""Services composed without a data folder (tests, benches): one store, so one installation."""


class ChatServices:
    """The chat services over a chat store and a memory store of the same user. Each service is built, and
    its module imported, when first used (see the imports above): a command pays only for what it uses."""

    def __init__(
        self,
        store: ChatStore,
        memories: MemoryStore,
        embedder: Callable[[], Embedder],
        text_model: TextModel,
        installation: UUID = NO_INSTALLATION,
        *,
        other_languages: Callable[[], OtherLanguages | None] = lambda: None,
        on_demand: tuple[OnDemand[Any], ...] = (),
    ) -> None:
        """`embedder` makes the embedder, when first used: choosing it may read the OS keyring (which key is
        set), and making it imports the model's code, which a command that embeds nothing (a chat list) does
        not pay. `other_languages` makes what embeds a memory the embedder cannot read
        (`chats.embedders.local_models`). `on_demand`: the models behind the embedder and the text model that
        load when needed and go after a quiet spell (the local models' child process): a conversation holds
        them while it lasts."""
        self.store = store
        self.on_demand = on_demand
        self._make_embedder = embedder
        self._make_other_languages = other_languages
        self.text_model = text_model
        self.installation = installation
        """This data folder's own random id (`installation_id`): what makes an imported chat's id, derived
        from its content so that importing it again finds it, differ from another installation's import of
        the same file, which a shared Supabase project could not hold twice."""
        self._memories = memories

    @cached_property
    def embedder(self) -> Embedder:
        return self._make_embedder()

    @cached_property
    def other_languages(self) -> OtherLanguages | None:
        return self._make_other_languages()

    @cached_property
    def maintainer(self) -> ChatMaintainer:
        from chats.maintenance import ChatMaintainer

        return ChatMaintainer(self.store, self.embedder, self.text_model)

    @cached_property
    def finder(self) -> ChatFinder:
        from chats.search import ChatFinder

        return ChatFinder(self.store, self.embedder)

    @cached_property
    def memory(self) -> MemoryService:
        from chats.memory.service import MemoryService

        return MemoryService(self._memories, self.embedder, self.other_languages)

    @cached_property
    def recaller(self) -> Recaller:
        from chats.recall import Recaller

        return Recaller(self.store, self.embedder)

    @cached_property
    def working_memory(self) -> WorkingMemory:
        from chats.working_memory import WorkingMemory

        return WorkingMemory(self.store)


def installation_id(data_dir: Path) -> UUID:
    """The data folder's random id, made on first use (`installation-id`, private as the folder is)."""
    path = data_dir / "installation-id"
    try:
        return UUID(path.read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        made = uuid4()
    # In a read-only data folder the id is not kept: nothing can be imported there, which is all it is for.
    with suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{made}\n", encoding="utf-8")
    return made


def compose_services(
    store: ChatStore,
    memories: MemoryStore,
    embedder: Embedder,
    text_model: TextModel,
    installation: UUID = NO_INSTALLATION,
) -> ChatServices:
    """The services over a chat store and a memory store of the same user."""
    return ChatServices(store, memories, lambda: embedder, text_model, installation)


async def open_stores(
    settings: Settings,
    closing: AsyncExitStack,
    *,
    storage: StorageChoice | None = None,
    clock: Callable[[], datetime] = utc_now,
) -> tuple[ChatStore, MemoryStore]:
    """The chat and memory stores of `storage` (None: the one the settings choose), closed with `closing`;
    `clock` stamps what they write. Memory search reads each model's cosines with its own floor
    (`chats.memory.service.MemoryService.search`)."""
    if (storage or settings.storage) == "supabase":
        # Imported when chosen: the supabase client takes a while to import, and most runs use SQLite.
        from app.account.supabase_account import open_supabase_stores

        return await open_supabase_stores(settings, closing, clock)
    from chats.sqlite.memories import SqliteMemoryStore
    from chats.sqlite.store import SqliteChatStore

    store = await SqliteChatStore.open(store_path(settings), settings.user_id, clock=clock)
    closing.push_async_callback(store.close)
    memories = await SqliteMemoryStore.open(store_path(settings), settings.user_id, clock=clock)
    closing.push_async_callback(memories.close)
    return store, memories


@asynccontextmanager
async def open_chat_services(
    settings: Settings, *, local_models_in_child: bool = False, clock: Callable[[], datetime] = utc_now
) -> AsyncIterator[ChatServices]:
    """The chat services of `settings`, open until the context ends. `local_models_in_child`: the local
    embedding and text models run in a child process (started when first needed), off this interpreter's
    lock, for the window and the voice loop. `clock` stamps what the stores write (an import's
    `StampClock` keeps the times of what it imports)."""
    from chats.language.words import keep_detector_in

    keep_detector_in(model_cache())  # every search reads the language of its request: read fast
    async with AsyncExitStack() as closing:
        child = None
        if local_models_in_child:
            from app.on_demand import LocalModelsOnDemand
            from chats.embedders.local_models import local_model_for
            from chats.embedders.local_process import LocalModelsProcess

            process = LocalModelsProcess(local_model_for(settings.language), model_cache())
            child = LocalModelsOnDemand(process, settings.models_release_s)
            closing.push_async_callback(child.aclose)
        store, memories = await open_stores(settings, closing, clock=clock)
        text_model = TextModelOnFirstUse(
            lambda part: make_text_model(settings, closing, child, part=part), functools.partial(text_part, settings)
        )
        on_demand = () if child is None else (child.part,)
        yield ChatServices(
            store,
            memories,
            functools.partial(make_embedder, settings, closing, child),
            text_model,
            installation_id(settings.data_dir),
            other_languages=functools.partial(_other_languages, settings, closing, child),
            on_demand=on_demand,
        )


def _other_languages(settings: Settings, closing: AsyncExitStack, child: ModelsChild | None) -> OtherLanguages | None:
    """What embeds a memory in a language the local embedder does not read; None with a service's embedder,
    whose model reads every language. Where the local models run in a child (`child`: a Parley that runs all
    day), the multilingual encoder beside MiniLM is let go after `models_release_s` unused, as the child is;
    closed with `closing`."""
    if settings.effective_embedder != "local":
        return None
    from chats.embedders.local_models import other_languages_for

    other = other_languages_for(settings.language, model_cache())
    if other is None or child is None:
        return other
    from app.on_demand import EmbedderOnDemand
    from chats.embedders.use_multilingual import MultilingualEmbedder

    multilingual = EmbedderOnDemand(
        functools.partial(MultilingualEmbedder, cache=model_cache()), settings.models_release_s
    )
    closing.push_async_callback(multilingual.part.aclose)
    return dataclasses.replace(other, embedder=multilingual)
