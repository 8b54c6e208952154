"""The timer tools as the model calls them, on a real timers file, with a clock the test moves."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import uuid4
from zoneinfo import ZoneInfo

from app.core.timer import Timer
from app.on_demand import OnDemand
from app.timers.store import TimerFile
from app.timers.toolkit import TimerKit
from tests.app.timers.clock import ManualClock

ROME = ZoneInfo("Europe/Rome")
CHAT = uuid4()


def kit(folder: Path, clock: ManualClock, seen: list[tuple[Timer, ...]] | None = None) -> TimerKit:
    told = None if seen is None else (lambda timers: seen.append(tuple(timers)))
    return TimerKit(TimerFile(folder), clock=clock, zone=ROME, language="en", on_change=told)


async def test_a_timer_is_set_listed_with_the_time_left_and_cancelled_by_its_label(tmp_path: Path) -> None:
    clock, seen = ManualClock(), list[tuple[Timer, ...]]()
    timers = kit(tmp_path, clock, seen)
    assert {d.name for d in await timers.declarations()} == {"set_timer", "set_reminder", "list_timers", "cancel_timer"}
    assert timers.handles("set_timer") and not timers.handles("switch_chat")

    set_ = await timers.call("set_timer", {"seconds": 540, "label": "pasta"}, CHAT)
    assert set_["success"] is True and set_["label"] == "pasta" and set_["seconds_left"] == 540
    assert set_["due_at"] == "2026-11-27T17:09:00+01:00"  # the user's local time
    [kept] = TimerFile(tmp_path).read()
    assert kept.chat_id == CHAT and kept.kind == "timer"

    clock.advance(60)
    listed = await timers.call("list_timers", {}, CHAT)
    assert [(t["label"], t["seconds_left"]) for t in listed["timers"]] == [("pasta", 480)]

    cancelled = await timers.call("cancel_timer", {"which": "the pasta timer"}, CHAT)
    assert [t["label"] for t in cancelled["cancelled"]] == ["pasta"]
    assert (await timers.call("list_timers", {}, CHAT))["timers"] == []
    assert [len(s) for s in seen] == [1, 0]  # the window's list: after the set, after the cancel


async def test_a_reminder_takes_the_user_s_words_for_its_time(tmp_path: Path) -> None:
    timers = kit(tmp_path, ManualClock())
    reminder = await timers.call("set_reminder", {"when": "tomorrow at 9", "text": "call the plumber"}, CHAT)
    assert reminder["success"] is True
    assert (reminder["kind"], reminder["label"], reminder["due_at"]) == (
        "reminder",
        "call the plumber",
        "2026-11-28T09:00:00+01:00",
    )


async def test_bad_calls_are_answered_and_change_nothing(tmp_path: Path) -> None:
    timers = kit(tmp_path, ManualClock())
    calls: list[tuple[str, dict[str, Any]]] = [
        ("set_timer", {"seconds": 0}),
        ("set_timer", {"seconds": "ten"}),
        ("set_reminder", {"when": "yesterday", "text": "x"}),
        ("set_reminder", {"when": "", "text": "x"}),
        ("cancel_timer", {"which": "rice"}),
    ]
    for name, args in calls:
        answer = await timers.call(name, args, CHAT)
        assert answer["success"] is False and answer["error"], (name, args)
    assert TimerFile(tmp_path).read() == []


async def test_a_name_several_timers_share_asks_which(tmp_path: Path) -> None:
    timers = kit(tmp_path, ManualClock())
    await timers.call("set_timer", {"seconds": 60, "label": "pasta"}, CHAT)
    await timers.call("set_timer", {"seconds": 120, "label": "pasta sauce"}, CHAT)
    answer = await timers.call("cancel_timer", {"which": "pasta"}, CHAT)
    assert answer["success"] is False and [c["label"] for c in answer["choices"]] == ["pasta", "pasta sauce"]
    assert len((await timers.call("list_timers", {}, CHAT))["timers"]) == 2
    everything = await timers.call("cancel_timer", {"which": "all"}, CHAT)
    assert len(everything["cancelled"]) == 2


async def test_a_damaged_timers_file_is_an_answer_not_a_failure(tmp_path: Path) -> None:
    (tmp_path / "timers.json").write_text("not json", encoding="utf-8")
    answer = await kit(tmp_path, ManualClock()).call("set_timer", {"seconds": 60}, CHAT)
    assert answer["success"] is False and "damaged" in answer["error"]


async def test_the_kit_lets_its_models_go_as_it_exits(tmp_path: Path) -> None:
    released: list[str] = []

    async def load() -> str:
        return "the spotter's models"

    async def release(part: str) -> None:
        released.append(part)

    models = OnDemand("the test models", load, release, quiet_s=3600.0)  # long: only the exit lets them go
    async with TimerKit(TimerFile(tmp_path), clock=ManualClock(), zone=ROME, language="en", on_demand=(models,)):
        async with models.lease():
            pass
        assert models.loaded and released == []
    assert not models.loaded and released == ["the spotter's models"]
