"""`run_window`: the window, its runtime thread and the chat services, from start to a clean exit."""

from __future__ import annotations

import functools
import logging
import os
import sys
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from PySide6.QtWidgets import QApplication, QWidget

from app.config.desktop_entry import DesktopPaths, DesktopUnsupported, install_menu_entry, parley_command
from app.config.settings import Settings
from app.core.events import Notice
from app.front.device_checks import DeviceLister, MicrophoneFactory, microphone_and_speaker, open_microphone
from app.front.device_switch import DeviceSwitch, OpenDevices
from app.front.first_start import guide_done
from app.front.shortcut.talk import TalkShortcut
from app.runtime import Runtime
from app.wiring import open_chat_services
from ui.bridge import ChatBridge
from ui.first_start.guide import FirstStartGuide
from ui.main_window import MainWindow
from ui.settings.dialog import SettingsDialog, as_saved
from ui.shown_text import for_window
from ui.single_instance import WindowSocket, show_open_window
from ui.tray.icon import Tray, app_icon
from ui.voice.window_voice import WindowVoice

log = logging.getLogger(__name__)

ALREADY_OPEN = "Parley is already open on these chats: its window was brought to the front."


@dataclass(frozen=True, slots=True)
class ParleyWindow:
    main: MainWindow
    bridge: ChatBridge
    voice: WindowVoice
    tray: Tray
    guide: Callable[[QWidget], FirstStartGuide]
    """Opens the first-start guide over a widget (Settings' button does, and the first start)."""
    shortcut: TalkShortcut
    """The talk shortcut, held for every application until it is closed."""


def open_window(
    settings: Settings,
    runtime: Runtime,
    *,
    tray_available: bool | None = None,
    hidden: bool = False,
    open_devices: OpenDevices = microphone_and_speaker,
    devices: DeviceLister | None = None,
    microphone: MicrophoneFactory = open_microphone,
    environ: Mapping[str, str] = os.environ,
) -> ParleyWindow:
    """The main window, its bridge, its tray icon and its voice loop on `runtime`: shown (or, `hidden`, in
    the tray only, as at login; shown anyway on a desktop without a tray), opening, listening.
    `tray_available`: whether the desktop has a tray (None: ask Qt). `open_devices` opens the microphone
    and speaker the settings name; `devices` lists the sound cards Settings offers (None: PortAudio's), and
    `microphone` opens one for its level test and enrolment; `environ` names the desktop session the talk shortcut
    is grabbed in."""
    bridge = ChatBridge(runtime, functools.partial(open_chat_services, settings, local_models_in_child=True))
    voice = WindowVoice(bridge, runtime, settings, DeviceSwitch(settings, open_devices))
    # Pressed on the grab's listener thread: `voice.talk` submits to the runtime, as the Talk button does. A
    # problem names the combination as the config file holds it, and may quote the desktop's portal.
    shortcut = TalkShortcut(voice.talk, lambda problem: bridge.post(Notice(for_window(problem))), environ)

    def guide(parent: QWidget) -> FirstStartGuide:
        """The guide on the settings as saved now. The window's microphone is muted while it runs (the
        enrolment's "hey Jarvis" must not wake Parley), and as it was once it closes; what it saved then
        reaches the voice loop."""
        opened = FirstStartGuide(as_saved(settings), runtime, parent)
        opened.finished.connect(hold_microphone())
        opened.finished.connect(lambda: voice.apply_settings(as_saved(settings)))  # its language and devices
        return opened

    def hold_microphone() -> Callable[[], None]:
        """Mute the window's microphone; the call returned puts it back as it was."""
        main = window_ref()
        if main is None:
            return lambda: None
        mute = main.voice.mute_action
        was_muted = mute.isChecked()
        mute.setChecked(True)
        return lambda: mute.setChecked(was_muted)

    def settings_dialog(parent: QWidget) -> SettingsDialog:
        """The settings as saved now, not as Parley started; what is saved reaches the tray and the voice loop
        at once."""
        dialog = SettingsDialog(
            as_saved(settings),
            runtime,
            parent,
            devices=devices,
            microphone=microphone,
            guide=guide,
            hold_microphone=hold_microphone,
        )
        dialog.saved.connect(lambda saved: _apply_to_tray(tray_ref, saved))
        dialog.saved.connect(voice.apply_settings)
        dialog.saved.connect(lambda saved: shortcut.set(saved.talk_shortcut))
        return dialog

    window = MainWindow(bridge, settings_dialog=settings_dialog)
    window_ref = weakref.ref(window)  # the window holds the factories: a strong reference would be a cycle
    window.setWindowIcon(app_icon())
    tray = Tray(window, window.voice.mute_action, close_to_tray=settings.close_to_tray, available=tray_available)
    tray_ref = weakref.ref(tray)  # the window holds the dialog factory: a strong reference would be a cycle

    bridge.state_changed.connect(tray.show_state)
    bridge.timer_ringing.connect(lambda ringing: tray.notify(ringing.message))
    bridge.timers_missed.connect(tray.notify)
    if not (hidden and tray.available):
        window.show()
    bridge.open()
    voice.bind(window.voice)
    voice.bind_timers(window.timers, window.confirmations)
    voice.start()
    shortcut.set(settings.talk_shortcut)
    return ParleyWindow(window, bridge, voice, tray, guide, shortcut)


def offer_first_start_guide(window: ParleyWindow, settings: Settings) -> FirstStartGuide | None:
    """The first-start guide over the window, when none has been through in this data folder and the
    window shows (a start at login, hidden in the tray, leaves it for a start in view)."""
    if guide_done(settings) or not window.main.isVisible():
        return None
    guide = window.guide(window.main)
    guide.open()
    return guide


def _apply_to_tray(tray: weakref.ref[Tray], saved: Settings) -> None:
    alive = tray()
    if alive is not None:
        alive.set_close_to_tray(saved.close_to_tray)


def run_window(settings: Settings, argv: list[str] | None = None, *, hidden: bool = False) -> int:
    """Show the window until it is closed; return the exit code.

    The services open on the runtime thread; closing the window ends the Qt loop, then the runtime
    cancels what is still running, closes the store and joins its thread before this returns.
    """
    app = QApplication.instance() or QApplication(sys.argv if argv is None else argv)
    app.setApplicationName("Parley")
    if show_open_window(settings.data_dir):
        print(ALREADY_OPEN)
        return 0
    _in_the_menu()
    with Runtime() as runtime:
        window = open_window(settings, runtime, hidden=hidden)
        offer_first_start_guide(window, settings)
        WindowSocket(settings.data_dir, window.main).show_requested.connect(window.tray.show_window)
        code = app.exec()
        window.shortcut.close()
    # The window is still referenced here, after the runtime stopped: no answer can arrive for an
    # object already deleted.
    del window
    return code


def _in_the_menu() -> None:
    """Parley in the desktop's application menu, with its icon, from its first start on (refreshed when it
    moved: a new install's command). A folder that cannot be written costs the menu entry, not the window."""
    try:
        install_menu_entry(DesktopPaths.of_user(), parley_command())
    except (DesktopUnsupported, OSError) as error:
        log.info("Parley is not in the application menu: %s", error)
