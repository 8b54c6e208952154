"""What the offline title maker (`chats.offline_title`) knows of each language: a word's lemma and what
it can be (noun, adjective, verb), and the small words its rules look for.

- English: lemminflect's lexicon, which lists every reading of a word ("plan" is a noun and a verb).
- Italian, Spanish, French, German: simplemma's lemmatiser (dictionaries for 50 languages, no model, no
  dependency), which gives one lemma per word. A word whose lemma is an infinitive other than itself
  ("parlato" -> "parlare", "hablamos" -> "hablar", "gesprochen" -> "sprechen"), or an infinitive, is read
  as a verb; any other word as a noun or an adjective: in these languages the lemmatiser's choice already
  tells a noun's form ("lavoro", "viaggio") from the verb's. German writes every noun with a capital,
  which the title maker reads itself (`capital_nouns`).
- The noun phrases of Italian, Spanish, French and German put what a thing is for or of after it, joined
  by a preposition ("piastrelle per la cucina", "viaje a Lisboa", "Reise nach Lissabon"): `links` keep
  the phrase in that order, where English turns it into a compound ("kitchen tiles", "Lisbon trip").

Pure apart from loading the lexicons once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Final

import lemminflect
import simplemma

from chats.offline_words import stopwords

NOUN, ADJ, VERB = "NOUN", "ADJ", "VERB"


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


@dataclass(frozen=True, slots=True)
class Grammar:
    language: str
    stopwords: frozenset[str]
    not_names: frozenset[str]
    """Capitalised words that are no names ("Ciao", "Grazie", the days and months)."""
    weak: frozenset[str]
    """Words that never say what a chat is about ("idea", "cosa", "bene"): they end a noun phrase."""
    greetings: frozenset[str]
    """Before a name, these make it the one spoken to ("Ciao Marta")."""
    determiners: frozenset[str]
    """Between a link and the phrase it joins ("per *la* cucina")."""
    links: frozenset[str]
    """Prepositions that join two noun phrases into one subject. English: turned into a compound
    ("tiles for the kitchen wall" -> "kitchen wall tiles"); others: kept in order ("piastrelle per la cucina")."""
    place_links: frozenset[str]
    """The same when the second phrase is a name: "trip to Lisbon", "viaggio a Lisbona"."""
    with_word: str
    """Said before a companion: "with Ana", "con Ana"."""
    and_word: str
    me_words: frozenset[str]
    """"Ana and *I*": the words for the speaker after "and"."""
    about_chat: tuple[str, str]
    """A lone word made a title: "X chat" in English, "Chat su X" in Italian (words before, after)."""
    compounds_reversed: bool = False
    """English: "A for B" reads "B A"."""
    capital_nouns: bool = False
    """German: a capital mid-sentence marks a noun, not a name."""
    verb_cues: frozenset[str] = field(default_factory=frozenset)
    """After these a word that can be a verb is one (English: "we want to *migrate*")."""


_EN_NOT_NAMES = _set(
    """i i'm i'll i've i'd ok okay hi hey hello thanks yes no yeah user assistant monday tuesday wednesday
    thursday friday saturday sunday january february march april may june july august september october
    november december mon tue tues wed thu thur thurs fri sat sun congrats congratulations bye"""
)
_EN_WEAK = _set(
    """again already also actually basically currently definitely eventually finally honestly hopefully
    just maybe probably quickly really recently soon still today tonight tomorrow yesterday now here there
    back lot lots bit thing things stuff kind sort idea ideas question questions advice tip tips help way
    ways time times long day days week weeks month months year years minute minutes hour hours morning evening
    night weekend people person guys everyone good great nice fine bad big small little new old best
    better worse awesome amazing wonderful hard easy sure glad happy pleased fun love ok okay yeah hey
    hi hello thanks thank please sorry wow cool percent euro euros dollar dollars pound pounds make made
    take took give gave feel felt find found sounds hope congrats congratulations super"""
)
_EN_VERB_CUES = _set(
    """i you we they he she it i'm you're we're they're he's she's it's i'd you'd we'd they'd i'll you'll
    we'll they'll i've you've we've they've to can could would will should must might may shall don't
    doesn't didn't can't cannot won't wouldn't shouldn't couldn't let's lets please not also just
    never always still"""
)
_COMMON_WEAK = _set("ok okay super chat user assistant utente usuario utilisateur nutzer euro euros dollar dollars")
_ELIDED_FORMS = _set(
    """l' d' j' m' n' s' t' c' qu' un' dell' all' sull' nell' dall' quell' quest' bell' sant' lorsqu' puisqu'
    jusqu' quoiqu'"""
)
"""Italian and French elided words, as the title maker cuts them off the next word ("dell'isola")."""
_CALENDAR = {
    "it": "lunedì martedì mercoledì giovedì venerdì sabato domenica gennaio febbraio marzo aprile maggio giugno "
    "luglio agosto settembre ottobre novembre dicembre",
    "es": "lunes martes miércoles jueves viernes sábado domingo enero febrero marzo abril mayo junio julio agosto "
    "septiembre octubre noviembre diciembre",
    "fr": "lundi mardi mercredi jeudi vendredi samedi dimanche janvier février mars avril mai juin juillet août "
    "septembre octobre novembre décembre",
    "de": "montag dienstag mittwoch donnerstag freitag samstag sonntag januar februar märz april mai juni juli "
    "august september oktober november dezember",
}
"""Days and months: when a chat happens, never what it is about."""
_NUMBER_WORDS = _set(
    """due tre quattro cinque sei sette otto nove dieci venti trenta cento mille dos tres cuatro cinco seis siete
    ocho nueve diez veinte treinta cien mil deux trois quatre cinq six sept huit neuf dix vingt trente cent mille
    zwei drei vier fünf sechs sieben acht neun zehn zwanzig dreißig vierzig fünfzig sechzig siebzig achtzig
    hundert tausend"""
)
"""Counts are details, not subjects ("fünfzig bis siebzig Kilometer")."""
POSSESSIVES = _set("mio mia miei mie mi mis mon ma mes mein meine meinen meinem meiner my our nostro nostra")
"""Dropped from the middle of a title: "Foglie delle mie piante" -> "Foglie delle piante"."""

GRAMMARS: Final[dict[str, Grammar]] = {
    "en": Grammar(
        language="en",
        stopwords=stopwords("en"),
        not_names=_EN_NOT_NAMES,
        weak=_EN_WEAK,
        greetings=_set("hi hey hello thanks thank bye oh wow yeah yes congrats congratulations sorry dear"),
        determiners=_set("the a an my our your his her their its this that these those some"),
        links=_set("for of on about in"),
        place_links=_set("to at around"),
        with_word="with",
        and_word="and",
        me_words=_set("i me"),
        about_chat=("", "chat"),
        compounds_reversed=True,
        verb_cues=_EN_VERB_CUES,
    ),
    "it": Grammar(
        language="it",
        stopwords=stopwords("it") | _ELIDED_FORMS,
        not_names=_set(
            """ciao grazie sì no ok okay salve buongiorno buonasera lunedì martedì mercoledì giovedì venerdì
            sabato domenica gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre
            novembre dicembre io tu lui lei noi voi loro"""
        ),
        weak=_COMMON_WEAK
        | _NUMBER_WORDS
        | _set(_CALENDAR["it"])
        | _set(
            """cosa cose modo volta volte tempo giorno giorni settimana settimane mese mesi anno anni ora ore minuto
            minuti idea idee consiglio consigli domanda domande aiuto grazie ciao bene buono buona buoni buone
            bello bella grande grandi piccolo piccola nuovo nuova vecchio meglio peggio migliore tanto tanta
            molto molta poco poca sempre già ancora oggi domani ieri adesso subito qui là lì sì certo davvero
            proprio forse magari solo anche ottimo ottima perfetto perfetta giusto giusta facile difficile
            parte esempio punto problema caso persona persone gente sera mattina notte weekend basso alto male"""
        ),
        greetings=_set("ciao grazie salve ehi buongiorno buonasera caro cara"),
        determiners=_set("il lo la l' i gli le un uno una un' mio mia miei mie nostro nostra questo questa"),
        links=_set(
            "di del dello della dell' dei degli delle per su sul sullo sulla sull' sui sugli sulle in nel nello "
            "nella nell' nei negli nelle"
        ),
        place_links=_set("a ad al allo alla all' ai agli alle da"),
        with_word="con",
        and_word="e",
        me_words=_set("io me"),
        about_chat=("chat su", ""),
    ),
    "es": Grammar(
        language="es",
        stopwords=stopwords("es"),
        not_names=_set(
            """hola gracias sí no ok vale buenos buenas lunes martes miércoles jueves viernes sábado domingo enero
            febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre yo tú él ella"""
        ),
        weak=_COMMON_WEAK
        | _NUMBER_WORDS
        | _set(_CALENDAR["es"])
        | _set(
            """cosa cosas forma vez veces tiempo día días semana semanas mes meses año años hora horas minuto
            minutos idea ideas consejo consejos pregunta preguntas ayuda gracias hola bien bueno buena buenos
            buenas bonito bonita grande grandes pequeño pequeña nuevo nueva viejo mejor peor mucho mucha poco
            poca siempre ya todavía hoy mañana ayer ahora aquí allí sí claro verdad quizás solo también
            perfecto perfecta genial fácil difícil parte ejemplo punto problema caso persona personas gente
            tarde noche fin"""
        ),
        greetings=_set("hola gracias oye buenas querido querida"),
        determiners=_set("el la los las lo un una unos unas mi mis tu tus su sus nuestro nuestra este esta"),
        links=_set("de del para sobre en"),
        place_links=_set("a al"),
        with_word="con",
        and_word="y",
        me_words=_set("yo"),
        about_chat=("chat sobre", ""),
    ),
    "fr": Grammar(
        language="fr",
        stopwords=stopwords("fr") | _ELIDED_FORMS,
        not_names=_set(
            """salut bonjour bonsoir merci oui non ok d'accord lundi mardi mercredi jeudi vendredi samedi dimanche
            janvier février mars avril mai juin juillet août septembre octobre novembre décembre je tu il elle"""
        ),
        weak=_COMMON_WEAK
        | _NUMBER_WORDS
        | _set(_CALENDAR["fr"])
        | _set(
            """chose choses façon fois temps jour jours semaine semaines mois an ans année années heure heures minute
            minutes idée idées conseil conseils question questions aide merci salut bien bon bonne bons bonnes
            beau belle grand grande grands petit petite nouveau nouvelle vieux mieux pire meilleur beaucoup
            peu toujours déjà encore aujourd'hui demain hier maintenant ici là oui vraiment peut-être
            seulement aussi parfait parfaite super génial facile difficile partie exemple point problème cas
            personne personnes gens soir matin nuit week-end truc trucs mal bas haut côté enfin vraiment souvent
            jamais"""
        ),
        greetings=_set("salut bonjour bonsoir merci coucou cher chère"),
        determiners=_set("le la l' les un une des mon ma mes ton ta tes son sa ses notre nos ce cette ces"),
        links=_set("de du des d' pour sur en"),
        place_links=_set("à au aux"),
        with_word="avec",
        and_word="et",
        me_words=_set("moi je"),
        about_chat=("discussion sur", ""),
    ),
    "de": Grammar(
        language="de",
        stopwords=stopwords("de"),
        not_names=_set(
            """hallo danke ja nein ok okay montag dienstag mittwoch donnerstag freitag samstag sonntag januar
            februar märz april mai juni juli august september oktober november dezember ich du er sie wir"""
        ),
        weak=_COMMON_WEAK
        | _NUMBER_WORDS
        | _set(_CALENDAR["de"])
        | _set(
            """sache sachen ding dinge art weise mal zeit tag tage woche wochen monat monate jahr jahre stunde
            stunden minute minuten idee ideen tipp tipps rat frage fragen hilfe danke hallo gut gute guten
            guter schön schöne groß große klein kleine neu neue alt besser schlechter viel viele wenig immer
            schon noch heute morgen gestern jetzt hier dort ja wirklich vielleicht nur auch perfekt super
            toll einfach schwer teil beispiel punkt problem fall person personen leute abend nacht wochenende"""
        ),
        greetings=_set("hallo hi hey danke liebe lieber servus moin"),
        determiners=_set("der die das den dem des ein eine einen einem einer mein meine unser unsere diese dieser"),
        links=_set("für von vom über zum zur im nach in an am auf der des"),  # "der des": a genitive
        place_links=_set("nach in"),
        with_word="mit",
        and_word="und",
        me_words=_set("ich mir mich"),
        about_chat=("chat über", ""),
        capital_nouns=True,
    ),
}

_INFINITIVES: Final[dict[str, tuple[str, ...]]] = {
    "it": ("are", "ere", "ire", "rre"),
    "es": ("ar", "er", "ir"),
    "fr": ("er", "ir", "re"),
    "de": ("en", "ern", "eln"),
}


def grammar(language: str) -> Grammar:
    """The grammar of `language` (a code); English for a language it has none of."""
    return GRAMMARS.get(language, GRAMMARS["en"])


@cache
def lexicon(word: str, language: str) -> tuple[str, frozenset[str]]:
    """(lemma, readings) of a word: what it can be among NOUN, ADJ and VERB; no readings when the lexicon
    does not know it (a rare noun, a name). German words are looked up as written (its lexicon tells
    "Fliesen", the noun, from "fliesen"); the others in lower case."""
    lower = word.lower()
    if language not in _INFINITIVES:
        readings = lemminflect.getAllLemmas(lower)
        lemma = next(iter(readings.get(NOUN, ())), lower)
        return str(lemma).lower(), frozenset(readings)
    looked_up = word if language == "de" else lower
    if not simplemma.is_known(looked_up, lang=language):
        return lower, frozenset()
    lemma = str(simplemma.lemmatize(looked_up, lang=language)).lower()
    if lemma.endswith(_INFINITIVES[language]) and len(lemma) >= 4:
        return lemma, frozenset({VERB})
    return lemma, frozenset({NOUN, ADJ})
