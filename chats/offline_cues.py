"""The cue words of the offline summariser (`chats.offline_text`), per language: what makes a sentence
worth keeping (a date, an amount, a decision, a commitment, a preference, an open question's deferral)
and what makes it filler. English as the summariser had it; Italian, Spanish, French and German written
to the same plan, each in its everyday forms. Pure data."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

_NUMBERS_AND_UNITS = (
    r"\d\s?(?:%|k\b|kg\b|g\b|km\b|m\b|cm\b|mm\b|m2\b|m²|sqm\b|ft\b|h\b|hrs?\b|mins?\b|l\b|ml\b|°c?)"
    r"|\b\d{1,2}[:.]\d{2}\b|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b"
)
"""Clock times, dates and units written the same way in every language."""


@dataclass(frozen=True, slots=True)
class Cues:
    language: str
    """Its ISO 639-1 code."""
    month: re.Pattern[str]
    """A month's name (English and German: case-sensitive, "may" and "march" are also verbs)."""
    date_or_time: re.Pattern[str]
    relative_day: re.Pattern[str]
    money_or_unit: re.Pattern[str]
    decision: re.Pattern[str]
    commitment: re.Pattern[str]
    preference: re.Pattern[str]
    filler: re.Pattern[str]
    """Matched at a sentence's start: greetings, thanks, "ok"."""
    deferral: re.Pattern[str]
    """An answer that puts a question off ("not sure", "I'll check"): the question stays open."""
    not_names: frozenset[str]
    """Capitalised words that are no names ("I", "OK")."""


def _i(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


ENGLISH: Final = Cues(
    language="en",
    month=re.compile(
        r"\b(?:January|February|March|April|May|June|July|August|September|October|November|December"
        r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\b"
    ),
    date_or_time=_i(
        r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|o'clock|noon|midnight)\b"
        r"|\b\d{1,2}(?:st|nd|rd|th)\b|\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s?(?:am|pm|a\.m\.|p\.m\.)"
        r"|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b"
    ),
    relative_day=_i(r"\b(?:today|tonight|tomorrow|yesterday|weekend|(?:next|this|last) (?:week|month|year))\b"),
    money_or_unit=_i(
        r"[€$£¥]|\b(?:euros?|eur|dollars?|usd|pounds?|gbp|cents?|percent|budget|price|cost|costs|quote[ds]?)\b"
        r"|\d\s?(?:%|k\b|kg\b|g\b|km\b|m\b|cm\b|mm\b|m2\b|m²|sqm\b|ft\b|hours?\b|hrs?\b|minutes?\b"
        r"|mins?\b|days?\b|weeks?\b|months?\b|years?\b|litres?\b|liters?\b)"
    ),
    decision=_i(
        r"\b(?:decided|decide|decision|agreed|agree|settled on|chose|chosen|go(?:ing)? with|final|confirmed)\b"
    ),
    commitment=_i(
        r"\b(?:will|won't|shall|going to|let's|let us|promise[ds]?|plan(?:ning)? to|need to|have to|must"
        r"|remind(?:er)?|deadline|due|schedule[ds]?|book(?:ed)?|appointment)\b|\w'll\b"
    ),
    preference=_i(
        r"\b(?:prefer(?:s|red)?|i (?:really )?(?:like|love|hate|want|need)|i'd (?:like|rather|love)"
        r"|(?:don't|do not) (?:like|want)|dislike|favou?rite|rather|allergic|can't stand)\b"
    ),
    filler=_i(
        r"^(?:hi|hello|hey|thanks|thank you|ok|okay|sure|great|cool|nice|perfect|bye|yes|no|yeah|right"
        r"|good (?:morning|evening|night)|you're welcome|sounds good)\b"
    ),
    deferral=_i(
        r"\b(?:not sure|don't know|do not know|no idea|can't tell|find out|look into|get back to you"
        r"|let me check|i'll check|depends on)\b"
    ),
    not_names=frozenset({"I", "I'm", "I'll", "I've", "I'd", "OK", "AM", "PM"}),
)

ITALIAN: Final = Cues(
    language="it",
    month=_i(r"\b(?:gennaio|febbraio|marzo|aprile|maggio|giugno|luglio|agosto|settembre|ottobre|novembre|dicembre)\b"),
    date_or_time=_i(
        r"\b(?:lunedì|martedì|mercoledì|giovedì|venerdì|sabato|domenica|mezzogiorno|mezzanotte)\b"
        r"|\balle \d{1,2}\b|" + _NUMBERS_AND_UNITS
    ),
    relative_day=_i(
        r"\b(?:oggi|stasera|domani|dopodomani|ieri|fine settimana|weekend"
        r"|(?:la )?settimana (?:prossima|scorsa)|(?:il )?mese (?:prossimo|scorso)|(?:l')?anno (?:prossimo|scorso))\b"
    ),
    money_or_unit=_i(
        r"[€$£]|\b(?:euro|eur|dollari|centesimi|per cento|budget|prezzo|costo|costa|costano|preventivo|spesa)\b"
        r"|\d\s?(?:ore|ora|minuti|giorni|settimane|mesi|anni|litri|metri|chili)\b|" + _NUMBERS_AND_UNITS
    ),
    decision=_i(
        r"\b(?:deciso|decidiamo|decisione|siamo d'accordo|scelto|scegliamo|confermato|confermo"
        r"|definitivo|andiamo con|optato)\b"
    ),
    commitment=_i(
        r"\b(?:farò|faremo|devo|dobbiamo|bisogna|prometto|promesso|ho intenzione di|pensiamo di|ricordami"
        r"|scadenza|entro|appuntamento|prenotato|prenotare|prenoto|fissato)\b|\b\w+(?:erò|irò|remo)\b"
    ),
    preference=_i(
        r"\b(?:preferisco|preferiamo|preferito|preferita|mi piace|mi piacciono|non mi piace|adoro|odio|amo"
        r"|vorrei|piuttosto|allergico|allergica|non sopporto)\b"
    ),
    filler=_i(
        r"^(?:ciao|salve|grazie|ok|okay|va bene|certo|perfetto|ottimo|bene|sì|si|no|esatto|buongiorno|buonasera"
        r"|buonanotte|prego|d'accordo)\b"
    ),
    deferral=_i(
        r"\b(?:non (?:sono )?sicur[oa]|non lo so|non so|nessuna idea|scoprire|verifico|controllo|ti faccio sapere"
        r"|dipende da)\b"
    ),
    not_names=frozenset({"OK", "Ok"}),
)

SPANISH: Final = Cues(
    language="es",
    month=_i(
        r"\b(?:enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre"
        r"|diciembre)\b"
    ),
    date_or_time=_i(
        r"\b(?:lunes|martes|miércoles|jueves|viernes|sábado|domingo|mediodía|medianoche)\b"
        r"|\ba las \d{1,2}\b|" + _NUMBERS_AND_UNITS
    ),
    relative_day=_i(
        r"\b(?:hoy|esta noche|mañana|pasado mañana|ayer|fin de semana"
        r"|(?:la )?(?:próxima|pasada) semana|(?:la )?semana (?:que viene|pasada)"
        r"|(?:el )?(?:próximo|pasado) (?:mes|año))\b"
    ),
    money_or_unit=_i(
        r"[€$£]|\b(?:euros?|eur|dólares|céntimos|por ciento|presupuesto|precio|coste|costo|cuesta|cuestan)\b"
        r"|\d\s?(?:horas?|minutos?|días?|semanas?|meses|años?|litros?|metros?|kilos?)\b|" + _NUMBERS_AND_UNITS
    ),
    decision=_i(
        r"\b(?:decidido|decidimos|decisión|estamos de acuerdo|acordamos|elegido|elegimos|confirmado|confirmo|definitivo"
        r"|nos quedamos con|optamos)\b"
    ),
    commitment=_i(
        r"\b(?:voy a|vamos a|tengo que|tenemos que|hay que|debo|debemos|prometo|prometido|pienso|recuérdame"
        r"|plazo|antes del|cita|reservado|reservar|reservo)\b|\b\w+(?:aré|eré|iré|aremos|eremos|iremos)\b"
    ),
    preference=_i(
        r"\b(?:prefiero|preferimos|preferido|favorit[oa]|me gusta|me gustan|no me gusta|me encanta|odio"
        r"|quisiera|me gustaría|más bien|alérgic[oa]|no soporto)\b"
    ),
    filler=_i(
        r"^[¡¿]?(?:hola|gracias|ok|vale|claro|perfecto|genial|bien|sí|no|exacto|buenos días|buenas tardes"
        r"|buenas noches|de nada|de acuerdo)\b"
    ),
    deferral=_i(
        r"\b(?:no estoy segur[oa]|no lo sé|no sé|ni idea|averiguar|lo compruebo|lo miro|te digo algo"
        r"|depende de)\b"
    ),
    not_names=frozenset({"OK", "Ok"}),
)

FRENCH: Final = Cues(
    language="fr",
    month=_i(r"\b(?:janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre)\b"),
    date_or_time=_i(
        r"\b(?:lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|midi|minuit)\b|\b\d{1,2}\s?h(?:\d{2})?\b|"
        + _NUMBERS_AND_UNITS
    ),
    relative_day=_i(
        r"\b(?:aujourd'hui|ce soir|demain|après-demain|hier|week-end|weekend"
        r"|la semaine (?:prochaine|dernière)|le mois (?:prochain|dernier)|l'année (?:prochaine|dernière))\b"
    ),
    money_or_unit=_i(
        r"[€$£]|\b(?:euros?|eur|dollars?|centimes|pour cent|budget|prix|coût|coûte|coûtent|devis)\b"
        r"|\d\s?(?:heures?|minutes?|jours?|semaines?|mois|ans|années?|litres?|mètres?|kilos?)\b|" + _NUMBERS_AND_UNITS
    ),
    decision=_i(
        r"\b(?:décidé|décidons|décision|on est d'accord|sommes d'accord|convenu|choisi|choisissons|confirmé"
        r"|confirme|définitif|on part sur|opté)\b"
    ),
    commitment=_i(
        r"\b(?:je vais|on va|nous allons|je dois|il faut|nous devons|promets|promis|compte|prévois|rappelle-moi"
        r"|rappelle|rappeler"
        r"|échéance|avant le|rendez-vous|réservé|réserver|réserve)\b|\b\w+(?:erai|irai|rons)\b"
    ),
    preference=_i(
        r"\b(?:préfère|préférons|préféré|préférée|j'aime|je n'aime pas|j'adore|je déteste|je voudrais"
        r"|plutôt|allergique|je ne supporte pas)\b"
    ),
    filler=_i(
        r"^(?:salut|bonjour|bonsoir|merci|ok|d'accord|bien sûr|parfait|super|génial|oui|non|exactement"
        r"|bonne nuit|de rien)\b"
    ),
    deferral=_i(
        r"\b(?:pas sûr|pas sûre|je ne sais pas|je sais pas|aucune idée|découvrir|je vérifie|je regarde"
        r"|je te redis|ça dépend)\b"
    ),
    not_names=frozenset({"OK", "Ok"}),
)

GERMAN: Final = Cues(
    language="de",
    month=re.compile(
        r"\b(?:Januar|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember"
        r"|Jan|Feb|Apr|Jun|Jul|Aug|Sept?|Okt|Nov|Dez)\b"
    ),
    date_or_time=_i(
        r"\b(?:montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|mittag|mitternacht)\b"
        r"|\b\d{1,2}\s?uhr\b|\b\d{1,2}\.\b|" + _NUMBERS_AND_UNITS
    ),
    relative_day=_i(
        r"\b(?:heute|heute abend|morgen|übermorgen|gestern|wochenende"
        r"|nächste(?:n)? woche|letzte(?:n)? woche|nächste(?:n)? monat|letzte(?:n)? monat|nächstes jahr|letztes jahr)\b"
    ),
    money_or_unit=_i(
        r"[€$£]|\b(?:euro|eur|dollar|cent|prozent|budget|preis|kosten|kostet|angebot)\b"
        r"|\d\s?(?:stunden?|minuten?|tage?n?|wochen?|monate?n?|jahre?n?|liter|meter|kilo)\b|" + _NUMBERS_AND_UNITS
    ),
    decision=_i(
        r"\b(?:entschieden|entscheiden|entscheidung|einig|vereinbart|gewählt|wählen|bestätigt|bestätige"
        r"|endgültig|nehmen wir)\b"
    ),
    commitment=_i(
        r"\b(?:werde|werden|wir werden|muss|müssen|versprochen|verspreche|habe vor|planen|erinnere mich"
        r"|frist|bis zum|termin|gebucht|buchen|reserviert|reservieren)\b"
    ),
    preference=_i(
        r"\b(?:bevorzuge|lieber|am liebsten|mag|mag ich|mag keine?n?|liebe|hasse|möchte|hätte gern|allergisch"
        r"|kann nicht ausstehen|lieblings\w*)\b"
    ),
    filler=_i(
        r"^(?:hallo|hi|danke|ok|okay|alles klar|klar|super|prima|gut|ja|nein|genau|guten morgen|guten abend"
        r"|gute nacht|bitte|gerne)\b"
    ),
    deferral=_i(
        r"\b(?:nicht sicher|weiß nicht|keine ahnung|herausfinden|ich prüfe|ich schaue nach|melde mich"
        r"|kommt darauf an|hängt davon ab)\b"
    ),
    not_names=frozenset({"OK", "Ok", "Ich"}),
)

CUES: Final[dict[str, Cues]] = {"en": ENGLISH, "it": ITALIAN, "es": SPANISH, "fr": FRENCH, "de": GERMAN}
"""Language code -> its cues."""
