"""Which store, embedder and text model this run uses, chosen from the settings."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from app.settings import Settings, SettingsError
from chats.embedding import Embedder
from chats.maintenance import ChatMaintainer
from chats.memory.service import MemoryService
from chats.memory.store import MemoryStore
from chats.minilm import MiniLMEmbedder
from chats.recall import Recaller
from chats.search import ChatFinder
from chats.sqlite import SqliteChatStore
from chats.sqlite.memories import SqliteMemoryStore
from chats.store import ChatStore
from chats.text_model import TextModel
from chats.working_memory import WorkingMemory

STORE_FILE = "chats.sqlite3"


def store_path(settings: Settings) -> Path:
    return settings.data_dir / STORE_FILE


def make_embedder(settings: Settings, closing: AsyncExitStack) -> Embedder:
    """The embedder the settings choose; network clients are closed with `closing`."""
    if settings.effective_embedder == "local":
        return MiniLMEmbedder()
    if settings.openai_api_key is None:
        raise SettingsError("the OpenAI embedder is chosen but no key is set: set OPENAI_API_KEY")
    from chats.openai_embedder import OpenAIEmbedder

    embedder = OpenAIEmbedder(
        settings.openai_api_key.reveal(), model=settings.openai_embedding_model, base_url=settings.openai_base_url
    )
    closing.push_async_callback(embedder.aclose)
    return embedder


def make_text_model(settings: Settings, closing: AsyncExitStack) -> TextModel:
    """The text model the settings choose; network clients are closed with `closing`."""
    if settings.effective_text_model == "offline":
        # Imported when chosen, like the Gemini one: yake brings networkx, 0.2 s of the window's first paint.
        from chats.offline_text import OfflineTextModel

        return OfflineTextModel()
    if settings.gemini_api_key is None:
        raise SettingsError("the Gemini text model is chosen but no key is set: set GEMINI_API_KEY")
    from chats.gemini_text import GeminiTextModel

    text_model = GeminiTextModel(
        settings.gemini_api_key.reveal(), model=settings.gemini_text_model, base_url=settings.gemini_base_url
    )
    closing.push_async_callback(text_model.aclose)
    return text_model


@dataclass(frozen=True, slots=True)
class ChatServices:
    store: ChatStore
    embedder: Embedder
    text_model: TextModel
    maintainer: ChatMaintainer
    finder: ChatFinder
    memory: MemoryService
    recaller: Recaller
    working_memory: WorkingMemory


def compose_services(
    store: ChatStore, memories: MemoryStore, embedder: Embedder, text_model: TextModel
) -> ChatServices:
    """The services over a chat store and a memory store of the same user."""
    return ChatServices(
        store=store,
        embedder=embedder,
        text_model=text_model,
        maintainer=ChatMaintainer(store, embedder, text_model),
        finder=ChatFinder(store, embedder),
        memory=MemoryService(memories, embedder),
        recaller=Recaller(store, embedder),
        working_memory=WorkingMemory(store),
    )


@asynccontextmanager
async def open_chat_services(settings: Settings) -> AsyncIterator[ChatServices]:
    async with AsyncExitStack() as closing:
        embedder = make_embedder(settings, closing)
        text_model = make_text_model(settings, closing)
        store = await SqliteChatStore.open(store_path(settings), settings.user_id)
        closing.push_async_callback(store.close)
        memories = await SqliteMemoryStore.open(store_path(settings), settings.user_id)
        closing.push_async_callback(memories.close)
        yield compose_services(store, memories, embedder, text_model)
