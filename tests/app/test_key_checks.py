"""The key checks behind the settings window's "Test" buttons, on the test's own event loop."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from app.config.key_checks import KeyCheckFailed, check_gemini_key, check_openai_key
from app.config.settings import Settings, load_settings
from tests.app import MemoryKeyring, using_keyring
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.fakes.openai_server import FAKE_API_KEY


def settings_with(tmp_path: Path, env: dict[str, str]) -> Settings:
    config = tmp_path / "config.toml"
    config.write_text("", encoding="utf-8")
    with using_keyring(MemoryKeyring()):
        return load_settings({"data_dir": str(tmp_path / "data"), "config_file": str(config)}, env=env)


def live_env(tmp_path: Path, server: FakeGeminiLiveServer) -> dict[str, str]:
    ca_file = tmp_path / "ca.pem"
    ca_file.write_bytes(server.ca_pem)
    return {"PARLEY_GEMINI_BASE_URL": server.base_url, "PARLEY_CA_FILE": str(ca_file)}


async def test_a_good_gemini_key_opens_and_closes_one_session(
    tmp_path: Path, gemini_live_server: FakeGeminiLiveServer
) -> None:
    settings = settings_with(tmp_path, live_env(tmp_path, gemini_live_server))
    answer = await check_gemini_key(settings, f"  {gemini_live_server.api_key}\n")
    assert answer == f"The Gemini key works: {settings.gemini_live_model} answered."
    await gemini_live_server.wait_until(lambda: gemini_live_server.connections[0].closed)
    assert len(gemini_live_server.connections) == 1


async def test_a_wrong_gemini_key_fails_without_showing_it(
    tmp_path: Path, gemini_live_server: FakeGeminiLiveServer
) -> None:
    settings = settings_with(tmp_path, live_env(tmp_path, gemini_live_server))
    with pytest.raises(KeyCheckFailed, match="Gemini Live refused the API key") as failed:
        await check_gemini_key(settings, "AIza-not-the-right-one")
    assert "AIza-not-the-right-one" not in str(failed.value)


async def test_an_unreadable_ca_file_is_a_failed_check(tmp_path: Path) -> None:
    bad_ca = tmp_path / "ca.pem"
    bad_ca.write_text("not a certificate", encoding="utf-8")
    settings = settings_with(tmp_path, {"PARLEY_CA_FILE": str(bad_ca)})
    with pytest.raises(KeyCheckFailed, match="cannot read the CA file"):
        await check_gemini_key(settings, "AIza-any")


@pytest.mark.parametrize("check", [check_gemini_key, check_openai_key])
async def test_an_empty_key_is_not_sent_anywhere(
    tmp_path: Path, check: Callable[[Settings, str], Awaitable[str]]
) -> None:
    settings = settings_with(tmp_path, {})
    with pytest.raises(KeyCheckFailed, match="to test: type one, or store one first"):
        await check(settings, "  ")


async def test_an_unreachable_openai_endpoint_is_one_line(tmp_path: Path, closed_port_url: str) -> None:
    settings = settings_with(tmp_path, {"PARLEY_OPENAI_BASE_URL": closed_port_url})
    with pytest.raises(KeyCheckFailed, match=r"^cannot reach the OpenAI API at 127\.0\.0\.1:\d+$"):
        await check_openai_key(settings, FAKE_API_KEY)
