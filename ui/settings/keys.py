"""The settings window's API keys: each key's hidden field and status, and its "Test" and "Clear".

Keys go through `app.config.secrets`: never shown, never written to the config file. A key's "Test" runs on the
runtime thread, and its one-line answer comes back as a signal to a bound slot here.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from app.config.key_checks import KeyCheckFailed, check_gemini_key, check_openai_key
from app.config.secrets import SecretsError, delete_secret, get_secret, secret_source, secret_spec, set_secret
from app.config.settings import Settings
from app.runtime import Runtime
from ui.runtime_answers import submit_for_answer
from ui.widgets import form_label, push_button, stacked, text_line

KeyCheck = Callable[[Settings, str], Coroutine[Any, Any, str]]

_CHECKS: dict[str, KeyCheck] = {"gemini": check_gemini_key, "openai": check_openai_key}


@dataclass
class KeyRow:
    """The controls of one API key."""

    name: str
    field: QLineEdit
    status: QLabel
    test_button: QPushButton
    clear_button: QPushButton
    result: QLabel


class KeysBox(QGroupBox):
    """The "API keys" group: a row of controls per key, and the key checks it has running."""

    cleared = Signal(str)
    """A "Clear" done, for the dialog's error line: why the key could not be removed, or "" when it was."""
    _checked = Signal(str, str)
    """(key name, one-line answer), emitted on the runtime thread, delivered queued to `_show_check`."""

    def __init__(
        self, settings: Settings, runtime: Runtime, env: Mapping[str, str] | None, parent: QWidget | None = None
    ) -> None:
        """`env` is where keys set in the environment are looked for (None: `os.environ`)."""
        super().__init__("API keys", parent)
        self._settings = settings
        self._runtime = runtime
        self._env = env
        self._checks: dict[str, concurrent.futures.Future[str]] = {}
        self.rows = {name: _make_row(name) for name in _CHECKS}
        self._lay_out()
        self._bind()
        self.show_statuses()

    def _lay_out(self) -> None:
        form = QFormLayout(self)
        for row in self.rows.values():
            line = QHBoxLayout()
            line.addWidget(row.field, 1)
            line.addWidget(row.test_button)
            line.addWidget(row.clear_button)
            form.addRow(
                form_label(f"&{secret_spec(row.name).label} key:", row.field), stacked(line, row.status, row.result)
            )

    def _bind(self) -> None:
        for row in self.rows.values():
            row.test_button.clicked.connect(lambda _=False, name=row.name: self.test_key(name))
            row.clear_button.clicked.connect(lambda _=False, name=row.name: self.clear_key(name))
        self._checked.connect(self._show_check)

    # -- actions -----------------------------------------------------------------------------------

    def store_typed(self, stored: list[str]) -> None:
        """Store each typed key in the OS keyring and empty its field, appending the key's label to `stored`
        as it goes: should the keyring fail half-way (`SecretsError`), `stored` says which keys it took."""
        for row in self.rows.values():
            if row.field.text().strip():
                set_secret(row.name, row.field.text())
                stored.append(secret_spec(row.name).label)
                row.field.clear()
                self._show_status(row.name)

    @Slot(str)
    def test_key(self, name: str) -> None:
        """Check the typed key, or else the current one, on the runtime; the answer shows below the key."""
        row = self.rows[name]
        current = get_secret(name, self._env)
        key = row.field.text().strip() or (current.reveal() if current else "")
        row.result.setText("Testing…")
        row.result.show()
        row.test_button.setEnabled(False)
        future = submit_for_answer(
            self._runtime,
            _answer(_CHECKS[name](self._settings, key)),
            lambda answer: self._checked.emit(name, answer),
            refused="Not tested",
        )
        if future is not None:
            self._checks[name] = future

    @Slot(str)
    def clear_key(self, name: str) -> None:
        """Remove the key from the OS keyring (one set in the environment stays in effect)."""
        try:
            delete_secret(name)
        except SecretsError as error:
            self.cleared.emit(str(error))
        else:
            self.cleared.emit("")
        self._show_status(name)

    def show_statuses(self) -> None:
        """Where each key is set, as it is now."""
        for name in self.rows:
            self._show_status(name)

    @Slot()
    def cancel_checks(self) -> None:
        """Cancel the key checks still running: their answers would have nowhere to go."""
        for future in self._checks.values():
            future.cancel()

    # -- answers -----------------------------------------------------------------------------------

    @Slot(str, str)
    def _show_check(self, name: str, message: str) -> None:
        row = self.rows[name]
        row.result.setText(message)
        row.test_button.setEnabled(True)

    def _show_status(self, name: str) -> None:
        row = self.rows[name]
        source = secret_source(name, self._env)
        spec = secret_spec(name)
        if source == "environment":
            text = f"Set in the environment ({' or '.join(spec.env_vars)}), which wins over the keyring."
        elif source == "keyring":
            text = "Stored in the OS keyring."
        else:
            text = "Not set."
        row.status.setText(text)
        row.status.setAccessibleDescription(f"{spec.label} key: {text}")
        row.clear_button.setEnabled(source == "keyring")


def _make_row(name: str) -> KeyRow:
    label = secret_spec(name).label
    field = QLineEdit()
    field.setEchoMode(QLineEdit.EchoMode.Password)
    field.setPlaceholderText("Type a new key to store it")
    field.setAccessibleName(f"{label} API key")
    field.setAccessibleDescription("Hidden as you type; stored in the OS keyring when you press OK")
    status = QLabel()
    status.setAccessibleName(f"{label} key status")
    test_button = push_button(
        "Test", f"Test the {label} key", "Check the typed key, or else the current one, with the service"
    )
    clear_button = push_button("Clear", f"Remove the {label} key from the keyring")
    result = text_line(f"{label} key test result", hidden=True)  # until a test says something
    return KeyRow(name, field, status, test_button, clear_button, result)


async def _answer(check: Coroutine[Any, Any, str]) -> str:
    """The check's one line, success or failure: a failure is an answer to show, not an error to raise."""
    try:
        return await check
    except KeyCheckFailed as failed:
        return f"Failed: {failed}"
