"""Memories as a file the user keeps: JSON (every field but the vectors) or Markdown by category."""

from __future__ import annotations

import json
from collections.abc import Sequence

from chats.memory.models import CATEGORIES, Memory

_HEADINGS = {
    "identity": "Who you are",
    "preference": "Preferences",
    "relationship": "People",
    "project": "Projects",
    "context": "Context",
}


def export_json(memories: Sequence[Memory]) -> str:
    return json.dumps({"memories": [memory.to_json() for memory in memories]}, indent=2, ensure_ascii=False) + "\n"


def export_markdown(memories: Sequence[Memory]) -> str:
    """One section per category, newest facts first; replaced facts are listed as such, not as current."""
    lines = ["# What Parley remembers", ""]
    for category in CATEGORIES:
        kept = sorted((m for m in memories if m.category == category), key=lambda m: m.created_at, reverse=True)
        if not kept:
            continue
        lines += [f"## {_HEADINGS[category]}", ""]
        for memory in kept:
            replaced = " (replaced by a newer fact)" if memory.superseded_by is not None else ""
            lines.append(f"- {memory.content}{replaced} — saved {memory.created_at:%Y-%m-%d}, id {memory.id}")
        lines.append("")
    if len(lines) == 2:
        lines += ["Nothing yet.", ""]
    return "\n".join(lines)
