"""What Gemini's `groundingMetadata` says about an answer drawn from Google Search, in our values: the web
pages it drew on (`groundingChunks[].web.{uri,title}`; Google's grounding redirects, titled by their site's
domain) and what the model searched for (`webSearchQueries`). `groundingSupports`, which ties stretches of
the answer's text to pages, is not used: a spoken answer is shown whole, its sources under it."""

from __future__ import annotations

from google.genai import types

from voice.live.connection import WebSource


def web_sources(grounding: types.GroundingMetadata | None) -> tuple[WebSource, ...]:
    """The web pages in `grounding`, once each, in order; only http(s) links (they are opened in a browser)."""
    found: dict[str, WebSource] = {}
    for chunk in (grounding.grounding_chunks or ()) if grounding is not None else ():
        web = chunk.web
        uri = (web.uri or "").strip() if web is not None else ""
        if web is not None and uri.lower().startswith(("https://", "http://")) and uri not in found:
            found[uri] = WebSource(title=(web.title or web.domain or uri).strip(), uri=uri)
    return tuple(found.values())


def web_queries(grounding: types.GroundingMetadata | None) -> tuple[str, ...]:
    """What the model searched the web for, once each, in order."""
    queries = (grounding.web_search_queries or ()) if grounding is not None else ()
    return tuple(dict.fromkeys(query.strip() for query in queries if query.strip()))
