"""The real Parley client (`McpToolKit` on the official SDK) against a real MCP server over stdio
(tests/fakes/mcp_server.py): its tools declared, called, held for a yes, and every way a server fails."""

from __future__ import annotations

import logging
from pathlib import Path
from uuid import uuid4

import pytest

from app.config.settings import Settings
from app.core.events import ConfirmationAsked, ConfirmationSettled, FrontEvent
from app.mcp.config import RemoteServer, ServerConfig, StdioServer, read_servers
from app.mcp.switches import Switches, save_switches
from app.mcp.toolkit import McpToolKit, mcp_toolkits
from tests.app import MemoryKeyring
from tests.app.mcp import fake_server, patient_kit, write_mcp_json

CHAT = uuid4()


async def test_tools_are_declared_with_their_schemas_and_a_read_only_one_runs_at_once() -> None:
    async with patient_kit([fake_server()]) as kit:
        declarations = {d.name: d for d in await kit.declarations()}
        assert set(declarations) == {
            "fake__add",
            "fake__delete_note",
            "fake__crash",
            "fake__hang",
            "fake__echo_secret",
            "confirm_action",
        }
        add = declarations["fake__add"]
        assert add.description == "Add two numbers. (the user's tool, from fake)"
        assert add.parameters["properties"]["a"]["type"] == "number"
        assert add.parameters["required"] == ["a", "b"]
        assert kit.handles("fake__add") and not kit.handles("switch_chat")
        answer = await kit.call("fake__add", {"a": 2, "b": 3}, CHAT)
    assert answer["structured"] == {"sum": 5.0}
    assert '"sum": 5.0' in answer["result"]


async def test_a_destructive_tool_waits_for_the_users_yes(tmp_path: Path) -> None:
    ran = tmp_path / "ran.txt"
    async with patient_kit([fake_server(env={"FAKE_MCP_LOG": str(ran)})]) as kit:
        await kit.declarations()
        kit.heard("delete my shopping note")
        held = await kit.call("fake__delete_note", {"title": "shopping"}, CHAT)
        assert "Ask the user" in held["needs_confirmation"] and '"title": "shopping"' in held["needs_confirmation"]
        early = await kit.call("confirm_action", {"confirmation": held["confirmation"]}, CHAT)
        assert early == {"success": False, "error": "the user has not answered yet: ask them and wait for their yes"}
        assert not ran.exists()
        kit.heard("Yes, go ahead.")
        done = await kit.call("confirm_action", {"confirmation": held["confirmation"]}, CHAT)
        assert done["result"] == "Deleted the note shopping."
        assert ran.read_text(encoding="utf-8") == "deleted shopping\n"

        refused = await kit.call("fake__delete_note", {"title": "work"}, CHAT)
        kit.heard("no, keep it")
        answer = await kit.call("confirm_action", {"confirmation": refused["confirmation"]}, CHAT)
    assert answer == {"success": False, "error": "the user did not say yes: the action was not run"}
    assert ran.read_text(encoding="utf-8") == "deleted shopping\n"


async def test_a_server_that_crashes_mid_call_is_an_error_and_starts_again_next_conversation(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with patient_kit([fake_server()]) as kit:
        await kit.declarations()
        crashed = await kit.call("fake__crash", {}, CHAT)
        assert crashed == {"success": False, "error": "the fake server stopped (its connection closed)"}
        after = await kit.call("fake__add", {"a": 1, "b": 1}, CHAT)
        assert after["success"] is False and "stopped" in after["error"]
        assert "fake__add" in {d.name for d in await kit.declarations()}  # the next conversation
        again = await kit.call("fake__add", {"a": 1, "b": 1}, CHAT)
    assert again["structured"] == {"sum": 2.0}
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert "MCP server fake, tool crash: stopped (its connection closed)" in warnings


async def test_a_tool_that_hangs_times_out_and_the_server_goes_on() -> None:
    async with patient_kit([fake_server()], call_timeout_s=0.5) as kit:
        await kit.declarations()
        hung = await kit.call("fake__hang", {}, CHAT)
        assert hung == {"success": False, "error": "the fake server did not answer within 0.5 s"}
        answer = await kit.call("fake__add", {"a": 1, "b": 2}, CHAT)
    assert answer["structured"] == {"sum": 3.0}


async def test_a_tool_that_fails_tells_the_model_why_and_the_log_nothing(caplog: pytest.LogCaptureFixture) -> None:
    async with patient_kit([fake_server()]) as kit:
        await kit.declarations()
        answer = await kit.call("fake__add", {"a": "my private words", "b": 1}, CHAT)
    assert answer["success"] is False and "my private words" in answer["error"]  # so the model can correct itself
    assert not [r for r in caplog.records if r.name.startswith("app.")]  # the server answered: nothing to say


async def test_servers_that_cannot_start_are_left_out_and_the_others_go_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    servers = [
        fake_server("good"),
        ServerConfig("missing", StdioServer(str(tmp_path / "no-such-server"))),
        fake_server("garbage", "--garbage"),
        ServerConfig("remote", RemoteServer("http://127.0.0.1:9/mcp")),  # nothing listens on the discard port
    ]
    async with patient_kit(servers, start_timeout_s=8.0) as kit:
        names = {d.name for d in await kit.declarations()}
        assert {name.split("__")[0] for name in names if "__" in name} == {"good"}
        lines = sorted(r.getMessage() for r in caplog.records)
        caplog.clear()
        await kit.declarations()  # given up: not tried again in every conversation
        assert not caplog.records
        answer = await kit.call("good__add", {"a": 1, "b": 2}, CHAT)
    assert answer["structured"] == {"sum": 3.0}
    assert lines == [
        "MCP server garbage did not answer within 8 s of starting: its tools are left out until Parley restarts",
        "MCP server missing cannot be started (No such file or directory): its tools are left out until Parley "
        "restarts",
        "MCP server remote All connection attempts failed: its tools are left out until Parley restarts",
    ]


async def test_start_failures_say_what_happened(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    servers = [
        ServerConfig("missing", StdioServer(str(tmp_path / "no-such-server"))),
        fake_server("dies", "--die-at-start"),
        fake_server("hangs", "--hang-at-start"),
        fake_server("secret", env={"FAKE_MCP_SECRET": "keyring:absent"}),
    ]
    with caplog.at_level(logging.WARNING, logger="app.mcp"):
        # Waited for until the hanging one has been stopped: its process gets 2 s to leave, then SIGTERM.
        async with patient_kit(servers, start_timeout_s=3.0) as kit:
            assert await kit.declarations() == ()
    lines = sorted(r.getMessage() for r in caplog.records if r.name.startswith("app.mcp"))
    assert all("\n" not in line and line.endswith("its tools are left out until Parley restarts") for line in lines)
    assert lines[0].startswith("MCP server dies ")
    assert lines[1] == (
        "MCP server hangs did not answer within 3 s of starting: its tools are left out until Parley restarts"
    )
    assert lines[2].startswith("MCP server missing cannot be started (")
    assert lines[3].startswith("MCP server secret server 'secret': no keyring entry 'absent' for FAKE_MCP_SECRET")


async def test_a_conversation_does_not_wait_for_a_slow_server(caplog: pytest.LogCaptureFixture) -> None:
    async with McpToolKit([fake_server("slow", "--hang-at-start")], declare_wait_s=0.2) as kit:
        assert await kit.declarations() == ()
        assert await kit.declarations() == ()  # still starting: said once
    assert [r.getMessage() for r in caplog.records] == [
        "MCP server slow is still starting: its tools come with the next conversation"
    ]


async def test_switched_off_servers_and_tools_are_not_declared(memory_keyring: MemoryKeyring) -> None:
    memory_keyring.set_password("parley", "fake", "s3cret")
    servers = [
        fake_server("off", disabled=True),
        fake_server("on", env={"FAKE_MCP_SECRET": "keyring:fake"}, disabled_tools=frozenset({"delete_note"})),
    ]
    async with patient_kit(servers) as kit:
        names = {d.name for d in await kit.declarations()}
        secret = await kit.call("on__echo_secret", {}, CHAT)
    assert names == {"on__add", "on__crash", "on__hang", "on__echo_secret"}  # all read-only: no confirm_action
    assert secret["result"] == "present"


def test_a_wrong_file_means_no_mcp_and_one_line(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "mcp.json").write_text("{oops", encoding="utf-8")
    assert mcp_toolkits(Settings(data_dir=tmp_path, config_file=tmp_path / "config.toml", voice_model="gemini")) == ()
    assert [r.getMessage() for r in caplog.records] == [
        f"{tmp_path / 'mcp.json'}: not valid JSON (line 1): fix it or remove the file; going on without the MCP servers"
    ]


async def test_each_conversation_reads_the_file_again(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = write_mcp_json(tmp_path / "mcp.json", [fake_server("a"), fake_server("b", disabled=True)])
    (kit,) = mcp_toolkits(Settings(data_dir=tmp_path, config_file=tmp_path / "config.toml", voice_model="gemini"))
    assert isinstance(kit, McpToolKit)
    async with patient_kit(list(read_servers(path)), source=path) as kit:
        assert {d.name for d in await kit.declarations()} == A_TOOLS | {"confirm_action"}
        save_switches(
            path,
            {
                "a": Switches(disabled=False, disabled_tools=frozenset({"delete_note"})),
                "b": Switches(disabled=False, disabled_tools=frozenset({"delete_note", "hang"})),
            },
        )
        assert {d.name for d in await kit.declarations()} == (A_TOOLS - {"a__delete_note"}) | {
            "b__add",
            "b__crash",
            "b__echo_secret",
        }
        save_switches(path, {"a": Switches(disabled=True, disabled_tools=frozenset())})
        names = {d.name for d in await kit.declarations()}
        assert names == {"b__add", "b__crash", "b__echo_secret"}
        assert kit.handles("b__add") and not kit.handles("a__add")
        path.write_text("{oops", encoding="utf-8")
        assert {d.name for d in await kit.declarations()} == names  # as it named them last
        assert {d.name for d in await kit.declarations()} == names
    assert [r.getMessage() for r in caplog.records] == [
        f"{path}: not valid JSON (line 1): fix it or remove the file; going on with the MCP servers it named before"
    ]


A_TOOLS = {"a__add", "a__delete_note", "a__crash", "a__hang", "a__echo_secret"}


async def test_allow_and_deny_in_a_front_end_answer_a_held_call(tmp_path: Path) -> None:
    ran = tmp_path / "ran.txt"
    posted: list[FrontEvent] = []
    kit = McpToolKit([fake_server(env={"FAKE_MCP_LOG": str(ran)})], post=posted.append, declare_wait_s=120.0)
    async with kit:
        await kit.declarations()
        allowed = (await kit.call("fake__delete_note", {"title": "shopping"}, CHAT))["confirmation"]
        denied = (await kit.call("fake__delete_note", {"title": "work"}, CHAT))["confirmation"]
        assert posted == [
            ConfirmationAsked(allowed, "fake", "delete_note", {"title": "shopping"}),
            ConfirmationAsked(denied, "fake", "delete_note", {"title": "work"}),
        ]
        words = kit.decide(allowed, allowed=True)
        assert words == (
            f"Allowed in the window: run delete_note now (call confirm_action with confirmation {allowed})."
        )
        assert kit.decide(allowed, allowed=False) is None
        assert (
            kit.decide(denied, allowed=False)
            == f"Denied in the window: do not run delete_note (confirmation {denied})."
        )
        kit.heard(words)  # the words reach the model as the user's turn
        done = await kit.call("confirm_action", {"confirmation": allowed}, CHAT)
        refused = await kit.call("confirm_action", {"confirmation": denied}, CHAT)
    assert done["result"] == "Deleted the note shopping."
    assert refused == {"success": False, "error": "the user refused it in the window: the action was not run"}
    assert ran.read_text(encoding="utf-8") == "deleted shopping\n"
    assert posted[2:] == [
        ConfirmationSettled(allowed),
        ConfirmationSettled(denied),
        ConfirmationSettled(allowed),
        ConfirmationSettled(denied),
    ]
