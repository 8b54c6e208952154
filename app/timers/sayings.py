"""What is said about timers, in the five languages: when one rings or was missed, and the offline voice's
answers to the timer tools (`app.offline.replies` hands those here). Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, tzinfo
from typing import Any

from app.core.timer import Timer

_EN = {
    "timer_up": "Your {} timer is up.",
    "plain_timer_up": "Your timer is up.",
    "reminder": "Reminder: {}.",
    "missed": "While Parley was not running, you missed: {}.",
    "timer_set": "Okay, {} timer for {}.",
    "plain_timer_set": "Okay, timer for {}.",
    "reminder_set": "Okay, I'll remind you at {}: {}.",
    "none": "You have no timers or reminders.",
    "listed": "You have: {}.",
    "timer_left": "{} timer, {} left",
    "plain_timer_left": "a timer, {} left",
    "reminder_at": "{} at {}",
    "cancelled": "Cancelled: {}.",
    "not_found": "I couldn't find that timer.",
    "which": "Which one: {}?",
    "failed": "Sorry, I couldn't set that.",
    "units": "hour hours minute minutes second seconds",
    "and": "and",
}
SAY: Mapping[str, Mapping[str, str]] = {
    "en": _EN,
    "it": {
        "timer_up": "Il timer {} è scaduto.",
        "plain_timer_up": "Il timer è scaduto.",
        "reminder": "Promemoria: {}.",
        "missed": "Mentre Parley era spento, hai perso: {}.",
        "timer_set": "Va bene, timer {} di {}.",
        "plain_timer_set": "Va bene, timer di {}.",
        "reminder_set": "Va bene, te lo ricorderò alle {}: {}.",
        "none": "Non hai timer né promemoria.",
        "listed": "Hai: {}.",
        "timer_left": "timer {}, mancano {}",
        "plain_timer_left": "un timer, mancano {}",
        "reminder_at": "{} alle {}",
        "cancelled": "Annullato: {}.",
        "not_found": "Non ho trovato quel timer.",
        "which": "Quale: {}?",
        "failed": "Scusa, non sono riuscito a impostarlo.",
        "units": "ora ore minuto minuti secondo secondi",
        "and": "e",
    },
    "es": {
        "timer_up": "Tu temporizador de {} ha terminado.",
        "plain_timer_up": "Tu temporizador ha terminado.",
        "reminder": "Recordatorio: {}.",
        "missed": "Mientras Parley estaba apagado, te perdiste: {}.",
        "timer_set": "Vale, temporizador de {} para {}.",
        "plain_timer_set": "Vale, temporizador de {}.",
        "reminder_set": "Vale, te lo recordaré a las {}: {}.",
        "none": "No tienes temporizadores ni recordatorios.",
        "listed": "Tienes: {}.",
        "timer_left": "temporizador de {}, quedan {}",
        "plain_timer_left": "un temporizador, quedan {}",
        "reminder_at": "{} a las {}",
        "cancelled": "Cancelado: {}.",
        "not_found": "No encontré ese temporizador.",
        "which": "¿Cuál: {}?",
        "failed": "Lo siento, no pude programarlo.",
        "units": "hora horas minuto minutos segundo segundos",
        "and": "y",
    },
    "fr": {
        "timer_up": "Ton minuteur {} est terminé.",
        "plain_timer_up": "Ton minuteur est terminé.",
        "reminder": "Rappel : {}.",
        "missed": "Pendant que Parley était éteint, tu as manqué : {}.",
        "timer_set": "D'accord, minuteur {} de {}.",
        "plain_timer_set": "D'accord, minuteur de {}.",
        "reminder_set": "D'accord, je te le rappellerai à {} : {}.",
        "none": "Tu n'as ni minuteur ni rappel.",
        "listed": "Tu as : {}.",
        "timer_left": "minuteur {}, encore {}",
        "plain_timer_left": "un minuteur, encore {}",
        "reminder_at": "{} à {}",
        "cancelled": "Annulé : {}.",
        "not_found": "Je n'ai pas trouvé ce minuteur.",
        "which": "Lequel : {} ?",
        "failed": "Désolé, je n'ai pas pu le régler.",
        "units": "heure heures minute minutes seconde secondes",
        "and": "et",
    },
    "de": {
        "timer_up": "Dein {}-Timer ist abgelaufen.",
        "plain_timer_up": "Dein Timer ist abgelaufen.",
        "reminder": "Erinnerung: {}.",
        "missed": "Während Parley aus war, hast du verpasst: {}.",
        "timer_set": "Okay, {}-Timer für {}.",
        "plain_timer_set": "Okay, Timer für {}.",
        "reminder_set": "Okay, ich erinnere dich um {}: {}.",
        "none": "Du hast keine Timer und keine Erinnerungen.",
        "listed": "Du hast: {}.",
        "timer_left": "{}-Timer, noch {}",
        "plain_timer_left": "einen Timer, noch {}",
        "reminder_at": "{} um {}",
        "cancelled": "Abgebrochen: {}.",
        "not_found": "Diesen Timer habe ich nicht gefunden.",
        "which": "Welchen: {}?",
        "failed": "Entschuldigung, das konnte ich nicht stellen.",
        "units": "Stunde Stunden Minute Minuten Sekunde Sekunden",
        "and": "und",
    },
}
"""Language -> what is said about timers, by message."""


STOP_WORDS: Mapping[str, tuple[str, ...]] = {
    "en": ("stop", "enough", "quiet", "shut up"),
    "it": ("stop", "basta", "ferma", "fermati", "smettila", "zitto"),
    "es": ("stop", "para", "basta", "detente", "silencio", "cállate"),
    "fr": ("stop", "arrête", "arrêtez", "assez", "silence", "tais toi"),
    "de": ("stopp", "stop", "aus", "halt", "genug", "ruhe", "hör auf"),
}
"""What stops a ringing timer when said alone, without the wake word (`app.timers.ringing`): matched as whole
words in what Whisper heard (case and accents aside). Nothing a ring itself says (`rang`) is among them."""


def stop_words(language: str) -> tuple[str, ...]:
    """The words that stop a ring in `language` (English's for one Parley does not speak)."""
    return STOP_WORDS.get(language, STOP_WORDS["en"])


def rang(timer: Timer, language: str) -> str:
    """What is said (and shown, and noted in the chat) when `timer` rings."""
    say = SAY.get(language, _EN)
    if timer.kind == "reminder":
        return say["reminder"].format(timer.label)
    return say["timer_up"].format(timer.label) if timer.label else say["plain_timer_up"]


def missed(timers: Sequence[Timer], zone: tzinfo, language: str) -> str:
    say = SAY.get(language, _EN)
    return say["missed"].format(_listed([_named(t, zone, say) for t in timers], say))


def duration(seconds: int, language: str) -> str:
    """ "9 minutes", "1 hour and 5 minutes", "30 seconds" (the two largest units that are not zero)."""
    say = SAY.get(language, _EN)
    names = say["units"].split()
    hours, rest = divmod(max(0, seconds), 3600)
    parts = ((hours, 0), (rest // 60, 2), (rest % 60, 4))  # each unit's singular in `names`; plural after it
    said = [f"{n} {names[unit + (n != 1)]}" for n, unit in parts if n][:2]
    return f" {say['and']} ".join(said) if said else f"0 {names[5]}"


def tool_reply(tool: str, result: Mapping[str, Any], language: str) -> str:
    """What the offline voice says once a timer tool answered `result` (its times are the user's local
    times, as the kit answers them)."""
    say = SAY.get(language, _EN)
    if tool in ("set_timer", "set_reminder"):
        if not result.get("success"):
            return say["failed"]
        if tool == "set_reminder":
            return say["reminder_set"].format(_clock(result["due_at"]), result["label"])
        left = duration(int(result["seconds_left"]), language)
        label = result.get("label")
        return say["timer_set"].format(label, left) if label else say["plain_timer_set"].format(left)
    if tool == "list_timers":
        items = [_left(item, say, language) for item in result.get("timers", [])]
        return say["listed"].format(_listed(items, say)) if items else say["none"]
    if result.get("success"):
        return say["cancelled"].format(_listed([_label(item, say) for item in result.get("cancelled", [])], say))
    if result.get("choices"):
        return say["which"].format(_listed([_label(item, say) for item in result["choices"]], say))
    return say["not_found"]


def _left(item: Mapping[str, Any], say: Mapping[str, str], language: str) -> str:
    if item["kind"] == "reminder":
        return say["reminder_at"].format(item["label"], _clock(item["due_at"]))
    left = duration(int(item["seconds_left"]), language)
    return say["timer_left"].format(item["label"], left) if item["label"] else say["plain_timer_left"].format(left)


def _label(item: Mapping[str, Any], say: Mapping[str, str]) -> str:
    return str(item.get("label") or item.get("id"))


def _named(timer: Timer, zone: tzinfo, say: Mapping[str, str]) -> str:
    return say["reminder_at"].format(timer.label or timer.kind, _clock(timer.due_at.astimezone(zone).isoformat()))


def _clock(iso: str) -> str:
    """ "09:00" of a local time written in ISO 8601."""
    return datetime.fromisoformat(iso).strftime("%H:%M")


def _listed(items: Sequence[str], say: Mapping[str, str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {say['and']} " + items[-1]
