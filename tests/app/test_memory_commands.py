"""`parley memories` as a user runs it: add, list, search, edit, forget, export, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

from tests.app.conftest import Parley


def test_add_list_search_edit_forget(parley: Parley) -> None:
    tea = parley.json("memories", "add", "I prefer green tea to coffee", "--category", "preference")
    assert tea["content"] == "User prefers green tea to coffee"  # kept in the third person
    assert (tea["category"], tea["replaced"]) == ("preference", [])
    berlin = parley.json("memories", "add", "I live in Berlin", "--category", "identity")["id"]
    assert [m["id"] for m in parley.json("memories", "list")] == [berlin, tea["id"]]
    assert [m["id"] for m in parley.json("memories", "list", "--category", "identity")] == [berlin]

    [best, *_] = parley.json("memories", "search", "what does the user like to drink?")
    assert best["id"] == tea["id"]

    edited = parley.json("memories", "edit", tea["id"], "--text", "I prefer jasmine tea to coffee")
    assert edited["content"] == "User prefers jasmine tea to coffee"
    assert parley.json("memories", "forget", berlin) == {"id": berlin, "forgotten": 1}
    assert [m["id"] for m in parley.json("memories", "list")] == [tea["id"]]


def test_what_do_you_know_about_me_lists_what_is_saved_most_important_first(parley: Parley) -> None:
    assert parley("memories", "search", "what do you know about me") == (0, "No memories yet.\n")
    tea = parley.json("memories", "add", "I prefer green tea to coffee", "--category", "preference")["id"]
    name = parley.json("memories", "add", "My name is Giulia Rossi", "--category", "identity")["id"]
    mia = parley.json("memories", "add", "My daughter is called Mia", "--category", "relationship")["id"]
    # The question's words match no memory: it is answered by what is saved, not searched for.
    listed = parley.json("memories", "search", "what do you know about me")
    assert {m["id"] for m in listed} == {tea, name, mia}
    assert [m["importance"] for m in listed] == sorted((m["importance"] for m in listed), reverse=True)
    assert parley.json("memories", "search", "what have I told you about my family")[0]["id"] == mia
    assert parley.json("memories", "search", "cosa sai di me?", "--limit", "1")[0]["id"] == listed[0]["id"]
    code, out = parley("memories", "search", "tell me what you remember about me")
    assert code == 0 and len(out.splitlines()) == 3 and "score" not in out


def test_a_newer_fact_replaces_the_older_one(parley: Parley) -> None:
    paris = parley.json("memories", "add", "I live in Paris", "--category", "identity")["id"]
    berlin = parley.json("memories", "add", "I live in Berlin now", "--category", "identity")
    assert berlin["replaced"] == [paris]
    assert [m["id"] for m in parley.json("memories", "list")] == [berlin["id"]]
    assert {m["id"] for m in parley.json("memories", "list", "--all")} == {paris, berlin["id"]}


def test_export_json_and_markdown(parley: Parley, tmp_path: Path) -> None:
    parley.json("memories", "add", "My daughter is called Mia", "--category", "relationship")
    out = tmp_path / "memories.json"
    assert parley("memories", "export", "--out", str(out))[0] == 0
    [exported] = json.loads(out.read_text(encoding="utf-8"))["memories"]
    assert exported["content"] == "User's daughter is called Mia"
    assert "vector" not in json.dumps(exported)
    code, markdown = parley("memories", "export", "--format", "markdown")
    assert code == 0
    assert "## People" in markdown and "- User's daughter is called Mia" in markdown


def test_bad_input_gets_one_line_and_changes_nothing(parley: Parley) -> None:
    parley.json("memories", "add", "I prefer green tea to coffee", "--category", "preference")
    for args, message in (
        (("memories", "forget", "not-an-id"), "not a memory id"),
        (("memories", "forget", "00000000-0000-0000-0000-000000000000"), "no memory"),
        (("memories", "add", "I prefer green tea to coffee"), "already remembered"),
        (("memories", "add", "short"), "10"),
        (("memories", "edit", "00000000-0000-0000-0000-000000000000"), "say what to change"),
    ):
        code, out = parley(*args)
        assert (code, out) == (1, ""), args
        assert message in parley.err.lower(), (args, parley.err)
        assert len(parley.err.strip().splitlines()) == 1
    assert len(parley.json("memories", "list")) == 1


def test_a_search_with_no_match_says_how_many_others_are_saved(parley: Parley) -> None:
    assert parley("memories", "search", "quantum chromodynamics lecture notes") == (0, "No memories yet.\n")
    parley.json("memories", "add", "I prefer green tea to coffee", "--category", "preference")
    parley.json("memories", "add", "My daughter is called Mia", "--category", "relationship")
    assert parley("memories", "search", "quantum   chromodynamics lecture notes") == (
        0,
        "No memory matches “quantum chromodynamics lecture notes”; 2 others are saved (parley memories list).\n",
    )
    assert parley.json("memories", "search", "quantum chromodynamics lecture notes") == []
