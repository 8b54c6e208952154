"""The tool kits of a voice loop, as every front end builds them (`parley listen`, `parley ask`, the window):
the timers, looking at the screen, the user's MCP servers."""

from __future__ import annotations

from dataclasses import dataclass

from app.config.settings import Settings
from app.core.events import Post
from app.core.toolkit import ToolKit
from app.mcp.server_tools import DECLARE_WAIT_S
from app.mcp.toolkit import McpToolKit, mcp_toolkits
from app.screen.toolkit import ScreenKit
from app.timers.ringing import SoundRinger
from app.timers.toolkit import TimerKit
from app.timers.wiring import timer_kit
from app.wiring import ChatServices, spoken_language
from voice.audio.chunks import AudioSink


@dataclass(frozen=True, slots=True)
class ToolKits:
    """The tools a voice loop offers besides the chats and the memory: the timers (with their ringer, None
    when they ring not), looking at the screen, and the user's MCP servers."""

    timers: TimerKit
    ringer: SoundRinger | None
    screen: ScreenKit
    mcp: tuple[McpToolKit, ...]

    @property
    def all(self) -> tuple[ToolKit, ...]:
        return (self.timers, self.screen, *self.mcp)


def tool_kits(
    settings: Settings,
    services: ChatServices,
    *,
    post: Post | None = None,
    sink: AudioSink | None = None,
    rings: bool = True,
    declare_wait_s: float | None = DECLARE_WAIT_S,
) -> ToolKits:
    """The kits of every front end (`timer_kit` and `mcp_toolkits` say what each option does)."""
    timers, ringer = timer_kit(settings, services, post=post, sink=sink, rings=rings)
    screen = ScreenKit(enabled=settings.look_at_screen, language=spoken_language(settings), post=post)
    return ToolKits(timers, ringer, screen, mcp_toolkits(settings, post, declare_wait_s=declare_wait_s))
