from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Iterator
from logging.handlers import RotatingFileHandler
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from keyring.backends import fail

from app.cli.logs import REDACTED, RedactingFilter, configure_logging, log_file_path, redact
from app.config.secrets import ApiKeys, Secret
from app.config.settings import Settings
from tests.app import MemoryKeyring, using_keyring

# Configured secrets deliberately look like nothing the patterns know: only the exact value can catch them.
GEMINI_SECRET = "gm-plain-value-7f3a9c"
OPENAI_SECRET = "op-plain-value-1b2c3d"

log = logging.getLogger("tests.app.logs")


@pytest.fixture(autouse=True)
def restore_root_logger() -> Iterator[None]:
    """configure_logging changes the process's root logger: put it back as it was."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)


def make_settings(data_dir: Path, log_level: str = "DEBUG") -> Settings:
    return Settings(
        data_dir=data_dir,
        config_file=data_dir / "config.toml",
        log_level=log_level,
        api_keys=ApiKeys.of(gemini=Secret(GEMINI_SECRET), openai=Secret(OPENAI_SECRET)),
    )


def ours(root: logging.Logger) -> list[logging.Handler]:
    return [h for h in root.handlers if (h.get_name() or "").startswith("parley.")]


def read_log(data_dir: Path) -> str:
    return log_file_path(data_dir).read_text(encoding="utf-8")


# Where the lines go


def test_writes_a_rotating_file_in_data_dir_logs(tmp_path: Path) -> None:
    path = configure_logging(make_settings(tmp_path), stderr=False)
    assert path == tmp_path / "logs" / "parley.log"
    log.info("chat %s opened with %d turns", "c-42", 7)
    assert "INFO" in read_log(tmp_path)
    assert "tests.app.logs: chat c-42 opened with 7 turns" in read_log(tmp_path)

    (handler,) = ours(logging.getLogger())
    assert isinstance(handler, RotatingFileHandler)
    assert (handler.maxBytes, handler.backupCount) == (1_000_000, 3)


def test_stderr_gets_concise_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging(make_settings(tmp_path))
    log.warning("microphone %s not found", "hw:1")
    assert capsys.readouterr().err == "WARNING tests.app.logs: microphone hw:1 not found\n"


def test_level_comes_from_settings(tmp_path: Path) -> None:
    configure_logging(make_settings(tmp_path, log_level="WARNING"), stderr=False)
    log.info("hidden")
    log.warning("shown")
    text = read_log(tmp_path)
    assert "hidden" not in text
    assert "shown" in text


def test_calling_twice_does_not_duplicate_handlers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = logging.getLogger()
    before = len(root.handlers)
    configure_logging(make_settings(tmp_path))
    configure_logging(make_settings(tmp_path))
    assert len(ours(root)) == 2
    assert len(root.handlers) == before + 2
    log.info("once")
    assert read_log(tmp_path).count("once") == 1
    assert capsys.readouterr().err.count("once") == 1


def test_reconfiguring_moves_the_file_and_keeps_other_handlers(tmp_path: Path) -> None:
    root = logging.getLogger()
    other = logging.NullHandler()
    root.addHandler(other)
    configure_logging(make_settings(tmp_path / "a"), stderr=False)
    configure_logging(make_settings(tmp_path / "b"), stderr=False)
    log.info("after the move")
    assert other in root.handlers
    assert "after the move" not in read_log(tmp_path / "a")
    assert "after the move" in read_log(tmp_path / "b")


def test_an_unwritable_data_dir_leaves_stderr_logging(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the data folder should be", encoding="utf-8")
    assert configure_logging(make_settings(blocked)) is None
    assert "cannot write the log file" in capsys.readouterr().err
    log.info("still logging")
    assert "still logging" in capsys.readouterr().err


# Redaction through the handlers


def test_a_configured_secret_is_redacted_from_the_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging(make_settings(tmp_path))
    log.info(f"calling Gemini with key {GEMINI_SECRET}")  # the mistake the filter exists for
    for text in (read_log(tmp_path), capsys.readouterr().err):
        assert GEMINI_SECRET not in text
        assert f"calling Gemini with key {REDACTED}" in text


def test_a_key_read_from_the_keyring_after_logging_began_is_redacted(tmp_path: Path) -> None:
    settings = dataclasses.replace(make_settings(tmp_path), api_keys=ApiKeys({}))
    with using_keyring(MemoryKeyring()) as backend:
        backend.set_password("parley", "gemini_api_key", GEMINI_SECRET)
        configure_logging(settings, stderr=False)
        assert settings.gemini_api_key == Secret(GEMINI_SECRET)  # read now, as a conversation first uses it
        log.info(f"calling Gemini with key {GEMINI_SECRET}")
    assert GEMINI_SECRET not in read_log(tmp_path)
    assert f"calling Gemini with key {REDACTED}" in read_log(tmp_path)


def test_a_keyring_lookup_that_logs_is_not_kept_waiting_by_the_log_filter(tmp_path: Path) -> None:
    # The lookup logs why the keyring gave nothing (at DEBUG); the filter asks the keys read so far. A lock held by
    # the lookup and asked for by the filter would leave `parley --log-level DEBUG ask` waiting for ever.
    settings = dataclasses.replace(make_settings(tmp_path), api_keys=ApiKeys({}))
    configure_logging(settings, stderr=False)
    found: list[Secret | None] = []
    with using_keyring(fail.Keyring()):  # type: ignore[no-untyped-call]  # keyring has no hints here
        lookup = threading.Thread(target=lambda: found.append(settings.gemini_api_key), daemon=True)
        lookup.start()
        lookup.join(timeout=30)
    assert found == [None]
    assert "no gemini key from the OS keyring: NoKeyringError" in read_log(tmp_path)


def test_a_configured_secret_is_redacted_from_the_args(tmp_path: Path) -> None:
    configure_logging(make_settings(tmp_path), stderr=False)
    log.info("key %s and %r", OPENAI_SECRET, GEMINI_SECRET)
    log.info("headers %s", {"x-goog-api-key": GEMINI_SECRET})
    log.info("%(who)s uses %(key)s", {"who": "openai", "key": OPENAI_SECRET})
    text = read_log(tmp_path)
    assert GEMINI_SECRET not in text
    assert OPENAI_SECRET not in text
    assert f"key {REDACTED} and '{REDACTED}'" in text
    assert f"headers {{'x-goog-api-key': '{REDACTED}'}}" in text
    assert f"openai uses {REDACTED}" in text


def test_the_record_itself_is_rewritten() -> None:
    # Args are cleared after rendering, so a later handler cannot render the secret again.
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "key %s", (OPENAI_SECRET,), None)
    assert RedactingFilter([OPENAI_SECRET]).filter(record) is True
    assert record.msg == f"key {REDACTED}"
    assert record.args is None
    assert record.getMessage() == f"key {REDACTED}"


def test_a_configured_secret_is_redacted_from_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging(make_settings(tmp_path))

    def call_model(key: str) -> None:
        raise PermissionError(f"key {key} was rejected")

    try:
        call_model(GEMINI_SECRET)
    except PermissionError:
        log.exception("model call failed")
    for text in (read_log(tmp_path), capsys.readouterr().err):
        assert "Traceback (most recent call last)" in text
        assert f"PermissionError: key {REDACTED} was rejected" in text
        assert GEMINI_SECRET not in text


def test_a_secret_in_stack_info_is_redacted() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "where am I", None, None)
    record.stack_info = f"Stack (most recent call last):\n  connect(key={OPENAI_SECRET!r})"
    RedactingFilter([OPENAI_SECRET]).filter(record)
    assert record.stack_info == f"Stack (most recent call last):\n  connect(key='{REDACTED}')"


def test_key_shapes_are_redacted_without_being_configured(tmp_path: Path) -> None:
    configure_logging(make_settings(tmp_path), stderr=False)
    google = "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUv"
    log.info("GET https://generativelanguage.googleapis.com/v1?key=%s", google)
    assert google not in read_log(tmp_path)
    assert f"?key={REDACTED}" in read_log(tmp_path)


# The pure function


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("key=AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUv end", f"key={REDACTED} end"),
        ("sk-proj-Ab12Cd34Ef56Gh78Ij90_kl-mn", REDACTED),
        ("openai sk-Ab12Cd34Ef56Gh78Ij90", f"openai {REDACTED}"),
        ("Authorization: Bearer abc.def-ghi_jkl~123", f"Authorization: Bearer {REDACTED}"),
        ("authorization: bearer 0123456789abcdef", f"authorization: bearer {REDACTED}"),
        (
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEifQ.c2lnbmF0dXJlLXZhbHVl ok",
            f"jwt {REDACTED} ok",
        ),
    ],
)
def test_key_shapes(text: str, expected: str) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "chat 3f2a9c01 appended 4 turns in 12 ms",
        "the bearer of bad news",
        "sk-short",
        "AIza too short",
        "task-runner started",
        "eyJ alone is not a token",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact(text, ["unrelated-secret-value"]) == text


def test_longer_secrets_are_replaced_first() -> None:
    assert redact("token abcd1234efgh", ["abcd", "abcd1234efgh"]) == f"token {REDACTED}"


def test_empty_known_secrets_are_ignored() -> None:
    assert redact("nothing to hide", ["", ""]) == "nothing to hide"


@given(
    prefix=st.text(max_size=40),
    suffix=st.text(max_size=40),
    secret=st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_", min_size=6, max_size=40),
)
def test_a_known_secret_never_survives(prefix: str, suffix: str, secret: str) -> None:
    assert secret not in redact(prefix + secret + suffix + secret, [secret])
