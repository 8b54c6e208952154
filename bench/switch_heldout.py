"""The test part of chat switching (issue 23, part 7): bench/switch_test_set.json, chats and requests
written by hand apart from everything switching was tuned on (LoCoMo, the language sets), in three styles
LoCoMo lacks: a terse texter, a rambler whose chats mention each other's subjects, a developer. Each user
is one store; each chat is maintained by Parley as after a conversation (offline topic, title and
summary); each request goes through `ChatFinder` and `decide` as the tools do (`bench.languages.switching`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.languages import Language, switching
from chats.embedders.embedding import Embedder
from chats.models import Turn

DATA = Path(__file__).resolve().parent / "switch_test_set.json"


def load(path: Path = DATA) -> list[Language]:
    """Each user as a `Language` without memories: the shape `switching` measures."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    users = []
    for name, data in raw["users"].items():
        chats = {
            topic: [Turn(role="user" if role == "user" else "model", text=text) for role, text in turns]
            for topic, turns in data["chats"].items()
        }
        requests = [(r["topic"], r["text"]) for r in data["requests"]]
        users.append(Language(name, chats, requests, {}, []))
    return users


async def measure(embedder: Embedder, folder: Path) -> dict[str, Any]:
    by_user = {user.code: await switching(user, embedder, folder) for user in load()}
    requests = sum(u["requests"] for u in by_user.values())
    return {
        "users": len(by_user),
        "chats": sum(len(user.chats) for user in load()),
        "requests": requests,
        "hit@1": round(sum(u["hit@1"] for u in by_user.values()) / requests, 3),
        "hit@3": round(sum(u["hit@3"] for u in by_user.values()) / requests, 3),
        "clear_switch": round(sum(u["clear_switch"] for u in by_user.values()) / requests, 3),
        "by_user": by_user,
    }


def report(test: dict[str, Any]) -> None:
    print(
        f"Test part ({DATA.name}): {test['requests']} requests over {test['chats']} chats of {test['users']} users:"
        f" hit@1 {test['hit@1']:.3f}  hit@3 {test['hit@3']:.3f}  clear switch {test['clear_switch']:.3f}"
    )
    for name, user in test["by_user"].items():
        print(
            f"  {name:10} hit@1 {user['hit@1']}/{user['requests']}  hit@3 {user['hit@3']}  clear {user['clear_switch']}"
        )
        for miss in user["not_clear"]:
            print(
                f"    not clear: {miss['request']!r} wanted {miss['wanted']},"
                f" {miss['outcome']}, ranked {miss['ranked']}"
            )
