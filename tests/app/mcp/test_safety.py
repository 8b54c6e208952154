"""Which tools wait for a yes, what counts as one, and the names the model calls them by."""

from __future__ import annotations

import pytest

from app.mcp.names import MAX_NAME, declared_names
from app.mcp.safety import Confirmations, PendingCall, needs_confirmation, said_yes


@pytest.mark.parametrize(
    ("read_only", "destructive", "asks"),
    [(True, None, False), (True, False, False), (None, None, True), (False, False, True), (None, True, True)],
)
def test_only_tools_marked_read_only_run_without_a_yes(
    read_only: bool | None, destructive: bool | None, asks: bool
) -> None:
    assert needs_confirmation(read_only, destructive) is asks


@pytest.mark.parametrize(
    "text", ["Yes.", "Yeah, go ahead", "sì, procedi", "Sí, claro", "Oui, d\u2019accord", "Ja, klar"]
)
def test_yes_in_five_languages(text: str) -> None:
    assert said_yes(text)


@pytest.mark.parametrize("text", ["No.", "yes, no wait", "Don't do it", "non", "nein, nicht", "what would it do?", ""])
def test_no_or_a_question_is_not_a_yes(text: str) -> None:
    assert not said_yes(text)


def test_a_held_call_runs_only_after_the_users_own_yes() -> None:
    confirmations = Confirmations()
    confirmations.heard("delete the shopping note")
    held = confirmations.hold("notes__delete", {"title": "shopping"})
    assert confirmations.release(held) == "the user has not answered yet: ask them and wait for their yes"
    confirmations.heard("yes please")
    assert confirmations.release(held) == PendingCall("notes__delete", {"title": "shopping"}, 1)
    assert "already used" in str(confirmations.release(held))


def test_a_refusal_uses_up_the_confirmation() -> None:
    confirmations = Confirmations()
    held = confirmations.hold("notes__delete", {})
    confirmations.heard("no, leave it")
    assert confirmations.release(held) == "the user did not say yes: the action was not run"
    confirmations.heard("actually yes")
    assert "already used" in str(confirmations.release(held))


def test_a_click_answers_that_one_call_whatever_was_said() -> None:
    confirmations = Confirmations()
    delete = confirmations.hold("notes__delete", {"title": "shopping"})
    rename = confirmations.hold("notes__rename", {})
    assert confirmations.decide(delete, allowed=True) == PendingCall("notes__delete", {"title": "shopping"}, 0)
    assert confirmations.decide(delete, allowed=False) is None  # answered once
    assert confirmations.decide(rename, allowed=False) is not None
    assert confirmations.holds(delete) and confirmations.holds(rename)
    assert confirmations.release(delete) == PendingCall("notes__delete", {"title": "shopping"}, 0)  # no turn heard
    confirmations.heard("yes")
    assert confirmations.release(rename) == "the user refused it in the window: the action was not run"
    assert not confirmations.holds(delete) and not confirmations.holds(rename)
    assert confirmations.decide("c9", allowed=True) is None


def test_names_are_valid_for_gemini_and_unique() -> None:
    names = declared_names([("my notes", "add-item"), ("my.notes", "add item"), ("3d", "print"), ("s", "t" * 100)])
    assert list(names.values()) == [
        ("my notes", "add-item"),
        ("my.notes", "add item"),
        ("3d", "print"),
        ("s", "t" * 100),
    ]
    first, second, digit, long = names
    assert first == "my_notes__add_item"
    assert second.startswith("my_notes__add_item_") and second != first
    assert digit == "mcp_3d__print"
    assert len(long) == MAX_NAME
    assert all(name.replace("_", "").isalnum() for name in names)
    assert declared_names([("my notes", "add-item"), ("my.notes", "add item")]) == dict(list(names.items())[:2])
