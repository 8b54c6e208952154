"""Whether the offline voice stays with a long chat: `python -m bench.offline_voice [--part tuning|test]`.

Issue 23 part 6. Each chat of `bench/offline_voice_tuning.json` and `bench/offline_voice_test.json`
(22-26 turns, several topics, English, Italian, Spanish, German) is opened as the app opens it without
a key: an `OfflineLiveConnection` on the real models (SmolLM2-135M on CTranslate2, greedy), seeded with
the chat's turns as its history and the app's own system prompt (`app.tools.prompt.system_prompt`, with
the memories' pre-loaded block from `chats.memory.preload`, the tools a chat declares, the chat's
language, at a fixed moment: the prompt's minute once changed the greedy answer), with the app's intent
router (`OfflineIntents` on the local MiniLM, in the local models' child process as the app runs it).
The questions are typed to it in order (`send_text`, as `parley ask` and the window send a message), so
each question sees the answers before it. A tool the router calls is answered as the app's would be:
`search_memories` with the chat's memories that share a word with the query, `recall_conversations`
with nothing (it never returns the chat the model already sees), any other with an error.

Per part (`bench.offline_voice_scoring` says how each is judged): the share of answers that hold the
chat's fact; the answers that repeat an earlier answer to a new question; the answers that state a fact
about the user that is not saved or said; the share of unanswerable questions answered "I do not know".
Results in `bench/results/offline_voice.json` (every answer kept), and a summary on stdout;
`bench/results/offline_voice_before.json` is the run on the offline voice before issue 23 part 6 (commit
37b7fee), judged again by the same rules (`--judge-again FILE` judges a results file's answers anew).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
import uuid
from contextlib import aclosing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from app.config.paths import model_cache
from app.conversation import END_CONVERSATION
from app.offline.intents import OfflineIntents
from app.tools.chat_tools import TOOLS
from app.tools.memory_tools import MEMORY_TOOLS
from app.tools.prompt import system_prompt
from app.tools.recall_tools import RECALL_TOOLS
from app.wiring import language_of
from bench.offline_voice_scoring import about_user, does_not_know, folded, holds, invented_about_user, repeats
from chats.embedders.local_process import LocalModelsProcess, ProcessEmbedder
from chats.memory.models import Memory
from chats.memory.preload import build_preload
from chats.models import EmbeddedText
from voice.echo.vad import load_session
from voice.live.connection import HistoryTurn, LiveConfig, ModelTranscript, ToolCall, TurnComplete
from voice.offline.chat_model import ChatModel
from voice.offline.connection import connect
from voice.offline.engine import LoadedTranscriber, OfflineVoice, prepare_files
from voice.offline.transcriber import WhisperTranscriber

BENCH = Path(__file__).resolve().parent
PARTS = {"tuning": BENCH / "offline_voice_tuning.json", "test": BENCH / "offline_voice_test.json"}
RESULTS = BENCH / "results" / "offline_voice.json"
NOW = datetime(2026, 3, 10, 9, 30, tzinfo=UTC)
"""The prompt's moment, fixed: the same run gives the same answers."""
TOOL_SET = (*TOOLS, *MEMORY_TOOLS, *RECALL_TOOLS, END_CONVERSATION)
"""What a chat with memory on declares (`app.conversation`), timers and MCP aside."""
ANSWER_TIMEOUT_S = 120.0


def memories_of(contents: list[str]) -> list[Memory]:
    return [
        Memory(
            id=uuid.UUID(int=index + 1),
            user_id="bench",
            content=content,
            title=None,
            category="identity",
            tags=(),
            importance=5,
            project_id=None,
            embedding=EmbeddedText(content, np.zeros(1, dtype=np.float32), "none"),
            source_chat_id=None,
            created_at=NOW,
            updated_at=NOW,
        )
        for index, content in enumerate(contents)
    ]


def config_for(chat: dict[str, Any]) -> LiveConfig:
    memories = build_preload(memories_of(chat["memories"])).text
    prompt = system_prompt(
        tools=TOOL_SET, chat_title=chat["title"], now=NOW, memories=memories, language=chat["language"]
    )
    history = tuple(HistoryTurn("user" if role == "user" else "model", text) for role, text in chat["turns"])
    return LiveConfig(model="offline", system_prompt=prompt, tools=TOOL_SET, history=history)


def tool_result(call: ToolCall, memories: list[str]) -> dict[str, Any]:
    if call.name == "search_memories":
        asked = {word for word in folded(str(call.args.get("query", ""))).split() if len(word) >= 4}
        found = [m for m in memories if asked & set(folded(m).split())]
        return {"success": True, "results": [{"content": m} for m in found], "totalSaved": len(memories)}
    if call.name == "recall_conversations":
        return {"success": True, "results": []}
    return {"success": False, "error": "not part of this bench"}


async def ask_chat(
    models: tuple[WhisperTranscriber, ChatModel, Any], intents: OfflineIntents, chat: dict[str, Any]
) -> list[dict[str, Any]]:
    transcriber, model, vad = models
    voice = OfflineVoice(
        transcribers=LoadedTranscriber(transcriber),
        chat=model,
        vad=vad,
        language=chat["language"],
        language_of=language_of,
    )
    asked: list[dict[str, Any]] = []
    try:
        async with (
            connect(config_for(chat), voice=voice, intents=intents) as connection,
            aclosing(connection.events()) as events,
        ):
            for question in chat["questions"]:
                said, tools, started = [], [], time.perf_counter()
                await connection.send_text(question["q"])
                async for event in events:
                    if isinstance(event, ModelTranscript):
                        said.append(event.text)
                    elif isinstance(event, ToolCall):
                        tools.append(event.name)
                        await connection.send_tool_result(event.id, event.name, tool_result(event, chat["memories"]))
                    elif isinstance(event, TurnComplete):
                        break
                asked.append(
                    {
                        "q": question["q"],
                        "expect": question["expect"],
                        "answer": "".join(said).strip(),
                        "tools": tools,
                        "seconds": round(time.perf_counter() - started, 2),
                    }
                )
    finally:
        voice.close()
    return asked


def judged(chat: dict[str, Any], asked: list[dict[str, Any]]) -> list[dict[str, Any]]:
    chat_answers = [text for role, text in chat["turns"] if role != "user"]
    chat_text = [text for _, text in chat["turns"]] + chat["memories"]
    rows = []
    for index, row in enumerate(asked):
        earlier = chat_answers + [before["answer"] for before in asked[:index] if before["q"] != row["q"]]
        rows.append(
            {
                **row,
                "holds": row["expect"] is not None and holds(row["answer"], row["expect"]),
                "does_not_know": does_not_know(row["answer"]),
                "repeats": repeats(row["answer"], earlier)
                and not (row["expect"] and holds(row["answer"], row["expect"])),
                "invented": invented_about_user(row["answer"], [*chat_text, row["q"]], about_user(row["q"])),
            }
        )
    return rows


def figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    known = [row for row in rows if row["expect"] is not None]
    unknown = [row for row in rows if row["expect"] is None]
    return {
        "questions": len(rows),
        "holds_fact": f"{sum(row['holds'] for row in known)}/{len(known)}",
        "holds_fact_rate": round(sum(row["holds"] for row in known) / len(known), 3),
        "repeats": sum(row["repeats"] for row in rows),
        "invented_user_facts": sum(bool(row["invented"]) for row in rows),
        "says_not_known": f"{sum(row['does_not_know'] for row in unknown)}/{len(unknown)}",
        "says_not_known_rate": round(sum(row["does_not_know"] for row in unknown) / len(unknown), 3),
        "not_known_when_known": sum(row["does_not_know"] for row in known),
        "answer_seconds_mean": round(sum(row["seconds"] for row in rows) / len(rows), 2),
    }


async def run(parts: list[str]) -> dict[str, Any]:
    folders = prepare_files(model_cache())
    models = (WhisperTranscriber(folders.whisper), ChatModel(folders.chat), load_session())
    child = LocalModelsProcess()
    results: dict[str, Any] = {}
    try:
        for part in parts:
            chats = json.loads(PARTS[part].read_text(encoding="utf-8"))["chats"]
            rows: list[dict[str, Any]] = []
            for chat in chats:
                intents = OfflineIntents(ProcessEmbedder(child), language=chat["language"])
                asked = await asyncio.wait_for(
                    ask_chat(models, intents, chat), ANSWER_TIMEOUT_S * len(chat["questions"])
                )
                rows += [{"chat": chat["id"], **row} for row in judged(chat, asked)]
            results[part] = {"figures": figures(rows), "answers": rows}
    finally:
        await child.aclose()
    return results


def summary(results: dict[str, Any]) -> str:
    lines = ["part     holds fact    repeats  invented  says not known  (when known)  s/answer"]
    for part, result in results.items():
        f = result["figures"]
        lines.append(
            f"{part:<8} {f['holds_fact']:>6} {f['holds_fact_rate']:>5.2f} {f['repeats']:>8}"
            f" {f['invented_user_facts']:>9} {f['says_not_known']:>9} {f['says_not_known_rate']:>4.2f}"
            f" {f['not_known_when_known']:>13}"
            f" {f['answer_seconds_mean']:>9.2f}"
        )
    return "\n".join(lines)


def judged_again(saved: dict[str, Any]) -> dict[str, Any]:
    """The answers of an earlier run (`--judge-again`), judged by this module's rules as they are now."""
    results = {}
    for part, result in saved.items():
        chats = {chat["id"]: chat for chat in json.loads(PARTS[part].read_text(encoding="utf-8"))["chats"]}
        rows = []
        for chat_id, chat in chats.items():
            asked = [{key: row[key] for key in ASKED} for row in result["answers"] if row["chat"] == chat_id]
            rows += [{"chat": chat_id, **row} for row in judged(chat, asked)]
        results[part] = {"figures": figures(rows), "answers": rows}
    return results


ASKED = ("q", "expect", "answer", "tools", "seconds")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=sorted(PARTS), action="append", help="default: both")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--judge-again", type=Path, help="judge the answers of this results file again; run nothing")
    args = parser.parse_args()
    if args.judge_again is not None:
        saved = json.loads(args.judge_again.read_text(encoding="utf-8"))
        saved["parts"] = judged_again(saved["parts"])
        args.out.write_text(json.dumps(saved, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(summary(saved["parts"]))
        return
    started = time.perf_counter()
    results = asyncio.run(run(args.part or list(PARTS)))
    report = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "seconds": round(time.perf_counter() - started, 1),
        "parts": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(summary(results))
    print(f"load {report['load_average']}, {report['seconds']} s -> {args.out}")


if __name__ == "__main__":
    main()
