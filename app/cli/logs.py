"""Logging: concise lines on stderr, a rotating file in the data folder, secrets redacted from both.

The rule the whole codebase follows: never log transcripts, memory texts or keys. Log ids, counts,
sizes and durations instead: "appended 4 turns to chat 3f2a... in 12 ms", not what was said.
Transcripts and memories are the user's private data, and a log file travels: into bug reports,
backups, support chats.

The redaction filter is a safety net for mistakes, not a licence to log sensitive values. It replaces,
in the final message, in the arguments and in exception and stack text:

- every API key the run has read (`Settings.gemini_api_key`, `Settings.openai_api_key`), exactly;
- strings shaped like keys: Google `AIza...`, OpenAI `sk-...`, `Bearer <token>` and JWTs (`eyJ...`).
"""

from __future__ import annotations

import logging
import os
import re
import sys
from collections.abc import Callable, Iterable
from logging.handlers import RotatingFileHandler
from pathlib import Path

from app.config.settings import Settings

REDACTED = "[REDACTED]"

LOG_FILE_MAX_BYTES = 1_000_000
"""Size at which the log file rotates (bytes)."""
LOG_FILE_BACKUPS = 3
"""Rotated files kept beside the current one: parley.log.1 ... parley.log.3."""

_STDERR_HANDLER = "parley.stderr"
_FILE_HANDLER = "parley.file"

_STDERR_FORMAT = "%(levelname)s %(name)s: %(message)s"
_FILE_FORMAT = "%(asctime)s %(levelname)-8s [%(threadName)s] %(name)s: %(message)s"

_KEY_PATTERNS = (
    re.compile(r"AIza[0-9A-Za-z_-]{20,}"),  # Google API keys
    re.compile(r"sk-[A-Za-z0-9_-]{16,}"),  # OpenAI keys, sk-proj-... included
    re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),  # JWTs (Supabase keys)
)
# At least 8 token characters, so that prose ("the bearer of bad news") is left alone.
_BEARER = re.compile(r"(\bBearer\s+)[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE)


def log_file_path(data_dir: Path) -> Path:
    return data_dir / "logs" / "parley.log"


def redact(text: str, known_secrets: Iterable[str] = ()) -> str:
    """`text` with every known secret value and every key-shaped string replaced by `[REDACTED]`."""
    # Longest first, so a secret that contains another is replaced whole.
    for secret in sorted((s for s in known_secrets if s), key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    text = _BEARER.sub(rf"\g<1>{REDACTED}", text)
    for pattern in _KEY_PATTERNS:
        text = pattern.sub(REDACTED, text)
    return text


class RedactingFilter(logging.Filter):
    """Rewrites each record so that no secret reaches a handler; never drops a record.

    The message is rendered (`msg % args`) and redacted, and the args are cleared: a secret split
    across the template and an argument is caught too. Exception and stack text are rendered and
    redacted into `exc_text` / `stack_info`, which formatters print instead of re-rendering.
    """

    def __init__(self, known_secrets: Iterable[str] | Callable[[], Iterable[str]] = ()) -> None:
        """`known_secrets`: the values to redact, or what gives them as each record comes (keys read as the run
        goes: `app.config.secrets.ApiKeys`)."""
        super().__init__()
        if callable(known_secrets):
            self._known = known_secrets
        else:
            fixed = tuple(known_secrets)
            self._known = lambda: fixed

    def filter(self, record: logging.LogRecord) -> bool:
        secrets = tuple(self._known())
        try:
            message = record.getMessage()
        except Exception:
            # A bad format string: keep the parts so the line still says something useful.
            message = f"{record.msg} {record.args!r}"
        record.msg = redact(message, secrets)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, secrets)
        if record.stack_info:
            record.stack_info = redact(record.stack_info, secrets)
        return True


def configure_logging(settings: Settings, *, stderr: bool = True, stderr_level: str | None = None) -> Path | None:
    """Send the root logger to stderr (unless `stderr` is False) and to `data_dir/logs/parley.log`.

    Safe to call again (say, after the settings change): the handlers it installed before are
    replaced, handlers anyone else installed are left alone. Returns the log file's path, or None
    when the file cannot be written (then a warning says why and logging goes on without it).
    """
    root = logging.getLogger()
    for handler in list(root.handlers):
        if handler.get_name() in (_STDERR_HANDLER, _FILE_HANDLER):
            root.removeHandler(handler)
            handler.close()

    api_keys, anon_key = settings.api_keys, settings.supabase_anon_key

    def known() -> list[str]:  # the API keys read so far: the OS keyring is read when a key is first used
        return [key.reveal() for key in (*api_keys.read(), anon_key) if key is not None]

    redactor = RedactingFilter(known)
    root.setLevel(settings.log_level)

    if stderr:
        console = logging.StreamHandler(sys.stderr)
        console.set_name(_STDERR_HANDLER)
        # The command line keeps its own output readable: the file gets every record.
        if stderr_level is not None:
            console.setLevel(stderr_level)
        console.setFormatter(logging.Formatter(_STDERR_FORMAT))
        console.addFilter(redactor)
        root.addHandler(console)

    path = log_file_path(settings.data_dir)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        file = RotatingFileHandler(path, maxBytes=LOG_FILE_MAX_BYTES, backupCount=LOG_FILE_BACKUPS, encoding="utf-8")
    except OSError as exc:
        # A read-only or full disk must not stop the assistant: it still works, just without a file.
        if settings.data_dir.is_dir() and not os.access(settings.data_dir, os.W_OK):
            # A data folder opened read-only (a backup, a read-only disk) is a way to use Parley, not a fault
            # to repeat on every command: below the command line's warnings; `parley doctor` says it.
            logging.getLogger(__name__).info("no log file: the data folder %s is read-only", settings.data_dir)
        else:
            logging.getLogger(__name__).warning(
                "cannot write the log file %s (%s); logging to stderr only", path, exc.strerror or exc
            )
        return None
    file.set_name(_FILE_HANDLER)
    file.setFormatter(logging.Formatter(_FILE_FORMAT))
    file.addFilter(redactor)
    root.addHandler(file)
    return path
