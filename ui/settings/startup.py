"""The settings window's "start at login" switch: the XDG autostart entry `parley autostart` writes
(`app.config.desktop_entry`), applied when the dialog is saved."""

from __future__ import annotations

import os
from collections.abc import Mapping

from PySide6.QtWidgets import QCheckBox

from app.config.config_file import SettingsError
from app.config.desktop_entry import DesktopPaths, DesktopUnsupported, autostart_is_on, parley_command, set_autostart

LABEL = "Start hidden in the tray when I lo&g in"


class StartAtLogin(QCheckBox):
    def __init__(self, environment: Mapping[str, str] = os.environ) -> None:
        super().__init__(LABEL)
        self.setAccessibleName("Start Parley hidden in the tray when I log in")
        self._paths: DesktopPaths | None
        try:
            self._paths = DesktopPaths.of_user(environment)
        except DesktopUnsupported as unsupported:  # said where the switch is, rather than a switch that lies
            self._paths = None
            self.setEnabled(False)
            self.setToolTip(str(unsupported))
        else:
            self.setChecked(autostart_is_on(self._paths))
        self._applied = self.isChecked()

    def apply(self) -> None:
        """Write or remove the login entry when the switch was changed; one line when its folder cannot be
        written (`SettingsError`)."""
        if self._paths is None or self.isChecked() == self._applied:
            return
        try:
            set_autostart(self._paths, parley_command(), on=self.isChecked())
        except OSError as error:
            raise SettingsError(f"cannot change starting at login ({self._paths.autostart}): {error}") from None
        self._applied = self.isChecked()
