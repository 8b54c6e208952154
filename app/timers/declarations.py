"""The timer tools as the model sees them."""

from __future__ import annotations

from datetime import timedelta

from voice.live.connection import ToolDeclaration

MAX_SECONDS = 7 * 24 * 3600
"""A timer runs a week at most; longer is a reminder's job (a date)."""
REMINDER_AHEAD = timedelta(days=366)
"""A reminder is set a year ahead at most (a leap year's 366 days): every date of the calendar is then said
without its year ("on 3 December" is the next one), and a time further off is a word misheard or misread
("in 10 years" confirmed "at 19:32" before), not a plan Parley should be trusted with."""

SET_TIMER = ToolDeclaration(
    "set_timer",
    "Start a countdown timer ('a pasta timer for nine minutes'). It rings with a chime and a spoken line when "
    "it runs out, even if the conversation has ended.",
    {
        "type": "object",
        "properties": {
            "seconds": {"type": "integer", "minimum": 1, "maximum": MAX_SECONDS, "description": "How long."},
            "label": {"type": "string", "description": "What it is for, in a word or two ('pasta'); may be empty."},
        },
        "required": ["seconds"],
        "additionalProperties": False,
    },
)
SET_REMINDER = ToolDeclaration(
    "set_reminder",
    "Remind the user of something at a time ('remind me tomorrow at 9 to call the plumber'). It rings with a "
    "chime and says the reminder, even if the conversation has ended.",
    {
        "type": "object",
        "properties": {
            "when": {
                "type": "string",
                "minLength": 1,
                "description": "The time in the user's words ('tomorrow at 9', 'in 2 hours') or as ISO 8601 "
                "local time ('2026-11-28T09:00:00').",
            },
            "text": {"type": "string", "minLength": 1, "description": "What to remind of ('call the plumber')."},
        },
        "required": ["when", "text"],
        "additionalProperties": False,
    },
)
LIST_TIMERS = ToolDeclaration(
    "list_timers",
    "The timers and reminders still to ring, soonest first, with how long is left on each (to answer 'how "
    "long is left on the pasta?' too). 'count' is how many there are; of a long list only the next few are given.",
    {"type": "object", "properties": {}, "additionalProperties": False},
)
CANCEL_TIMER = ToolDeclaration(
    "cancel_timer",
    "Cancel a timer or a reminder, named by its label ('pasta'), its id, or 'all'.",
    {
        "type": "object",
        "properties": {"which": {"type": "string", "minLength": 1, "description": "Label, id or 'all'."}},
        "required": ["which"],
        "additionalProperties": False,
    },
)
TIMER_TOOLS = (SET_TIMER, SET_REMINDER, LIST_TIMERS, CANCEL_TIMER)
TIMER_TOOL_NAMES = frozenset(tool.name for tool in TIMER_TOOLS)
