"""The import rules of ARCHITECTURE.md, checked on the code as it stands."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("app", "voice", "chats", "ui")

FORBIDDEN = {
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
