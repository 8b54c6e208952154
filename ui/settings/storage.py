"""The settings window's storage: this computer (SQLite) or the user's Supabase project, and signing in.

The project's URL and anon key go to the config file with the other settings when the dialog is saved.
"Sign in" runs on the runtime thread with what is typed (email and password are never written anywhere;
the session goes to the OS keyring), and its one-line answer comes back as a signal to a bound slot here.
"""

from __future__ import annotations

import concurrent.futures

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from app.config.config_file import SettingsError
from app.config.config_writer import ConfigValue
from app.config.settings import Settings
from app.runtime import Runtime
from ui.runtime_answers import submit_for_answer
from ui.widgets import form_label, push_button, stacked, text_line

SQLITE_NOTE = "Chats and memories are kept in a file on this computer."
SUPABASE_NOTE = (
    "Chats and memories live in your Supabase project, shared by every computer you sign in on. Run "
    "`parley supabase setup` once to get the project's SQL, and `parley sync --to supabase` to bring the "
    "chats of this computer."
)


class StorageBox(QGroupBox):
    _signed_in = Signal(str)
    """The sign-in's one-line answer, emitted on the runtime thread, delivered queued to `_show_sign_in`."""

    def __init__(self, settings: Settings, runtime: Runtime, parent: QWidget | None = None) -> None:
        super().__init__("Storage", parent)
        self._settings = settings
        self._runtime = runtime
        self._sign_in: concurrent.futures.Future[str] | None = None
        self._make_controls()
        self._lay_out()
        self._bind()
        self._show_choice()

    def _make_controls(self) -> None:
        settings = self._settings
        self.storage = QComboBox()
        self.storage.addItem("This computer (SQLite)", "sqlite")
        self.storage.addItem("My Supabase project", "supabase")
        self.storage.setCurrentIndex(self.storage.findData(settings.storage))
        self.storage.setAccessibleName("Storage backend")
        self.note = text_line("Storage note")
        self.url = QLineEdit(settings.supabase_url or "")
        self.url.setPlaceholderText("https://<project>.supabase.co")
        self.url.setAccessibleName("Supabase project URL")
        self.anon_key = QLineEdit(settings.supabase_anon_key.reveal() if settings.supabase_anon_key else "")
        self.anon_key.setPlaceholderText("The project's anon (public) key, never the service-role key")
        self.anon_key.setAccessibleName("Supabase anon key")
        self.email = QLineEdit()
        self.email.setAccessibleName("Supabase email")
        self.password = QLineEdit()
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.password.setAccessibleName("Supabase password")
        self.password.setAccessibleDescription("Hidden as you type; used to sign in, never stored")
        self.sign_in_button = push_button("Sign &in", "Sign in to Supabase")
        self.sign_in_result = text_line("Supabase sign-in result", hidden=True)  # until a sign-in says something

    def _lay_out(self) -> None:
        self.project = QWidget()
        project = QFormLayout(self.project)
        project.setContentsMargins(0, 0, 0, 0)
        project.addRow(form_label("Project &URL:", self.url), self.url)
        project.addRow(form_label("&Anon key:", self.anon_key), self.anon_key)
        project.addRow(form_label("&Email:", self.email), self.email)
        password = QHBoxLayout()
        password.addWidget(self.password, 1)
        password.addWidget(self.sign_in_button)
        project.addRow(form_label("&Password:", self.password), stacked(password, self.sign_in_result))
        layout = QVBoxLayout(self)
        choice = QFormLayout()
        choice.addRow(form_label("Store &chats on:", self.storage), stacked(self.storage, self.note))
        layout.addLayout(choice)
        layout.addWidget(self.project)

    def _bind(self) -> None:
        self.storage.currentIndexChanged.connect(self._show_choice)
        self.sign_in_button.clicked.connect(self.sign_in)
        self._signed_in.connect(self._show_sign_in)

    def values(self) -> dict[str, tuple[ConfigValue | None, ConfigValue | None]]:
        """The config keys this box edits: (shown now, what Parley started with); None is no value."""
        settings = self._settings
        return {
            "storage": (self.storage.currentData(), settings.storage),
            "supabase_url": (self.url.text().strip() or None, settings.supabase_url),
            "supabase_anon_key": (
                self.anon_key.text().strip() or None,
                settings.supabase_anon_key.reveal() if settings.supabase_anon_key else None,
            ),
        }

    def check(self) -> None:
        """`SettingsError` when Supabase is chosen without a project to keep the chats in."""
        url, key = self.values()["supabase_url"][0], self.values()["supabase_anon_key"][0]
        if self.storage.currentData() == "supabase" and not (url and key):
            raise SettingsError("to keep chats in Supabase, give the project's URL and its anon key")

    @Slot()
    def sign_in(self) -> None:
        """Sign in with what is typed, on the runtime; the answer shows under the password."""
        # Imported when asked for: the supabase client takes a while to import, and the window paints first.
        from app.account.supabase_account import sign_in_line

        self.sign_in_result.setText("Signing in…")
        self.sign_in_result.show()
        self.sign_in_button.setEnabled(False)
        attempt = sign_in_line(self.url.text(), self.anon_key.text(), self.email.text(), self.password.text())
        self.password.clear()
        self._sign_in = submit_for_answer(self._runtime, attempt, self._signed_in.emit, refused="Not signed in")

    @Slot()
    def cancel_checks(self) -> None:
        if self._sign_in is not None:
            self._sign_in.cancel()

    @Slot(str)
    def _show_sign_in(self, message: str) -> None:
        self.sign_in_result.setText(message)
        self.sign_in_button.setEnabled(True)

    @Slot()
    def _show_choice(self) -> None:
        supabase = self.storage.currentData() == "supabase"
        self.note.setText(SUPABASE_NOTE if supabase else SQLITE_NOTE)
        if supabase:
            self.project.show()
        else:
            self.project.hide()
