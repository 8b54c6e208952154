"""The paraphrase set and its check: `python -m bench.paraphrase_set` (exit 1 when a request shares a word).

bench/paraphrase_tuning.json and bench/paraphrase_test.json (issue 23 part 2): per language, sixteen short
chats written by hand, each with one request to go back to it that shares NO content word with it: the
request is found by meaning or not at all. A content word is one Parley's search would match: the
Snowball stems of `chats.language.words.stems`, which leave out the language's stop words (function
words and the ways people ask for a chat). The two parts have different subjects; choices are made on the
tuning part only (bench/paraphrase.py).

The distractors, chats on other subjects that every request is searched among, are the hand-written chats
of the other sets in the same language (`distractors`): bench/language_set.json and the two parts of the
title set. None of their subjects is one of the paraphrase set's.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from chats.language.words import stems
from chats.models import Turn
from languages.registry import SUPPORTED, Language

BENCH = Path(__file__).resolve().parent
Part = Literal["tuning", "test"]
PARTS: tuple[Part, ...] = ("tuning", "test")


@dataclass(frozen=True, slots=True)
class Target:
    """One chat of the set and the request that means it."""

    key: str
    turns: tuple[Turn, ...]
    request: str


def _turns(rows: list[list[str]]) -> tuple[Turn, ...]:
    return tuple(Turn(role="user" if role == "user" else "model", text=text) for role, text in rows)


def load(part: Part, path: Path | None = None) -> dict[Language, list[Target]]:
    raw = json.loads((path or BENCH / f"paraphrase_{part}.json").read_text(encoding="utf-8"))
    return {
        code: [Target(row["key"], _turns(row["turns"]), row["request"]) for row in rows]
        for code, rows in raw["languages"].items()
        if code in SUPPORTED  # a language written into the set before Parley registers it
    }


def distractors(language: Language) -> dict[str, tuple[Turn, ...]]:
    """The other sets' chats in `language`, by a key naming their set."""
    out: dict[str, tuple[Turn, ...]] = {}
    language_set = json.loads((BENCH / "language_set.json").read_text(encoding="utf-8"))
    for topic, rows in language_set["languages"][language]["chats"].items():
        out[f"language_set:{topic}"] = _turns(rows)
    for name in ("title_tuning_chats", "title_test_chats"):
        titles = json.loads((BENCH / f"{name}.json").read_text(encoding="utf-8"))
        for i, chat in enumerate(titles["languages"][language]):
            out[f"{name}:{chat.get('subject') or i}"] = _turns(chat["turns"])
    return out


def shared_words(target: Target, language: Language) -> set[str]:
    """The stems that the request and its chat share (the set wants none)."""
    chat = set()
    for turn in target.turns:
        chat.update(stems(turn.text, language))
    return set(stems(target.request, language)) & chat


def problems(part: Part, sets: dict[Language, list[Target]] | None = None) -> list[str]:
    """One line per request that shares a word with its chat, and per language missing or short of chats."""
    found = sets if sets is not None else load(part)
    out = [f"{part}: no {code} chats" for code in SUPPORTED if not found.get(code)]
    for code, targets in found.items():
        for target in targets:
            if shared := shared_words(target, code):
                out.append(f"{part} {code} {target.key}: {target.request!r} shares {sorted(shared)}")
    return out


def main() -> int:
    lines = [line for part in PARTS for line in problems(part)]
    for line in lines:
        print(line)
    counts = {part: {code: len(targets) for code, targets in load(part).items()} for part in PARTS}
    print(f"requests per language: {counts}; {len(lines)} sharing a content word with their chat")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
