"""The import rules of ARCHITECTURE.md, checked on the code as it stands."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("languages", "app", "voice", "chats", "ui")

FORBIDDEN = {
    "languages": ("voice", "chats", "app", "ui"),
    "voice": ("chats", "app", "ui"),
    "chats": ("voice", "app", "ui"),
    "app": ("ui",),
    "ui": ("voice",),
}
"""Package -> the packages it must never import."""

SDK_HOMES = {
    "google.genai": (
        "chats/text/gemini_text.py",
        "chats/embedders/gemini_embedder.py",
        "voice/live/gemini.py",
        "voice/live/gemini_grounding.py",
        "voice/live/gemini_setup.py",
        "voice/live/gemini_warm_up.py",
    ),
    "openai": ("chats/embedders/openai_embedder.py",),
    "sounddevice": ("voice/",),
    "openwakeword": ("voice/wake/detector.py",),
    "supabase": ("chats/supabase/",),
    "PySide6": ("ui/",),
    "keyring": ("app/config/secrets.py",),
    "sqlite3": ("chats/sqlite/",),
    "livekit": ("voice/echo/canceller.py",),
    "faster_whisper": ("voice/offline/transcriber.py",),
    "ctranslate2": ("voice/offline/chat_model.py", "voice/offline/convert.py"),
    "gguf": ("voice/offline/convert.py",),
    "mcp": ("app/mcp/",),
}
"""SDK -> the only modules (or folders) that may import it: one SDK per module."""


def modules() -> Iterator[tuple[str, set[str]]]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            imported = set()
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    imported |= {alias.name for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    imported.add(node.module)
            yield path.relative_to(ROOT).as_posix(), imported


def within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def test_the_tree_has_modules_to_check() -> None:
    assert len(list(modules())) > 20


@pytest.mark.parametrize(("module", "imported"), list(modules()))
def test_packages_import_only_downwards(module: str, imported: set[str]) -> None:
    package = module.split("/", 1)[0]
    for name in imported:
        for forbidden in FORBIDDEN.get(package, ()):
            assert not within(name, forbidden), f"{module} imports {name}"
    if package == "ui":
        # The window reads the core's data types (chats, and memories since the Memory page); everything
        # else it reaches through `app`.
        chats_imports = {name for name in imported if within(name, "chats")}
        assert chats_imports <= {"chats.models", "chats.memory.models"}, f"{module} reaches past the data types"


@pytest.mark.parametrize(("module", "imported"), list(modules()))
def test_each_sdk_stays_in_its_module(module: str, imported: set[str]) -> None:
    for sdk, homes in SDK_HOMES.items():
        if any(within(name, sdk) for name in imported):
            assert any(module == home or (home.endswith("/") and module.startswith(home)) for home in homes), (
                f"{module} imports {sdk}"
            )


LAYERS: dict[str, tuple[tuple[str, ...], ...]] = {
    "voice": (
        ("voice.errors", "voice.backoff", "voice.races"),
        ("voice.audio",),
        ("voice.wake", "voice.echo", "voice.live"),
        ("voice.offline",),
        ("voice",),
    ),
    "chats": (
        ("chats.models", "chats.errors", "chats.storable_text", "chats.store", "chats.compaction", "chats.degrade"),
        ("chats.working_memory", "chats.language"),
        ("chats.text",),
        ("chats.embedders",),
        ("chats.search",),
        ("chats.memory",),
        ("chats.sqlite", "chats.supabase", "chats.migrations"),
        ("chats",),
    ),
    "app": (
        ("app.config",),
        (
            "app.wiring",
            "app.account",
            "app.outbox",
            "app.chat_so_far",
            "app.chat_in_conversation",
            "app.runtime",
            "app.listening_lock",
            "app.wake_enrolment",
        ),
        ("app.core",),
        ("app.timers", "app.mcp"),
        ("app.offline",),
        ("app.tools",),
        ("app",),
        ("app.front", "app.cli"),
    ),
}
"""Package -> its rooms (and top-level modules), bottom layer first, as docs/ARCHITECTURE.md describes
them: a module imports its own layer or the ones below, never one above. A bare package name stands for
its top-level modules that no other entry names."""

TOP_LEVEL_LIMIT = 15
"""Python modules at the top of `voice/` and `chats/`: past this, a package needs rooms."""


def layer_of(package: str, module: str) -> int:
    """The layer of a dotted module name inside `package`: its longest prefix among the layers' entries."""
    best, layer = "", -1
    for index, entries in enumerate(LAYERS[package]):
        for entry in entries:
            if within(module, entry) and len(entry) > len(best):
                best, layer = entry, index
    return layer


@pytest.mark.parametrize(("module", "imported"), [m for m in modules() if m[0].split("/")[0] in LAYERS])
def test_rooms_import_only_their_layer_or_below(module: str, imported: set[str]) -> None:
    package = module.split("/", 1)[0]
    dotted = module.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    own = layer_of(package, dotted)
    for name in imported:
        if within(name, package):
            assert layer_of(package, name) <= own, f"{module} imports {name}, a layer above it"


def test_every_package_folder_is_named_in_the_architecture_page() -> None:
    page = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    for package in PACKAGES:
        for folder in [ROOT / package, *(ROOT / package).rglob("*")]:
            if folder.is_dir() and (folder / "__init__.py").exists():
                name = folder.relative_to(ROOT).as_posix()
                assert f"`{name}/`" in page or f"`{name}`" in page, f"docs/ARCHITECTURE.md does not name {name}/"


@pytest.mark.parametrize("package", ["voice", "chats"])
def test_packages_keep_few_modules_at_their_top(package: str) -> None:
    top = [path for path in (ROOT / package).glob("*.py") if path.name != "__init__.py"]
    assert len(top) <= TOP_LEVEL_LIMIT, f"{package}/ has {len(top)} modules at its top"
