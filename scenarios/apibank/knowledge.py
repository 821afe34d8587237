"""Knowledge and utility APIs, all offline.

History, Wiki, image captions, speech and document QA answer from their databases.
Dictionary and Translate (network in the reference) answer from a cassette of recorded
responses, else with "no answer for this query". SearchEngine and ToolSearcher rank with
BM25 (no downloaded tokenizer or model; `toolsearch.py`); a cassette entry for the exact
query wins. Keyword searches refuse input past `base.MAX_KEYWORDS` characters.
GetToday reads the world's simulated clock, which API-Bank worlds start at 2023-03-31.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, Any, TypeVar, cast

from typing_extensions import TypedDict

from sandbox import App, Ref, StateModel

from .api_common import ApiError, api, bounded, pad_year
from .calculator import calculate
from .references import Email
from .toolsearch import ApiRecord, Bm25Ranker, ToolRanker, search_tools

_WORD = re.compile(r"\w+|[^\w\s]")
# The reference's address rule, ^[a-z0-9]+[._]?[a-z0-9]+@\w+[.]\w{2,3}$, written so that no two
# parts can match the same characters: the reference's form backtracks in quadratic time
# (a second on 20,000 letters), this one in linear time, and both accept the same addresses.
_EMAIL = re.compile(r"^[a-z0-9](?:[a-z0-9]*[._])?[a-z0-9]+@\w+[.]\w{2,3}$")


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


# What the knowledge APIs answer (API-Bank's shapes; Dictionary's is the recorded dictionary API's).
class WikiEntry(TypedDict):
    url: str
    summary: str


class SearchResult(TypedDict):
    title: str
    url: str
    abstract: str


class Definition(TypedDict):
    definition: str
    synonyms: list[str]
    antonyms: list[str]


class DictionaryMeaning(TypedDict):
    partOfSpeech: str
    definitions: list[Definition]
    synonyms: list[str]
    antonyms: list[str]


class Cassette:
    """Recorded responses by (API, input), built from dialogues (see `replay.build_cassette`)."""

    def __init__(self, entries: Mapping[tuple[str, str], tuple[Any, str | None]] | None = None) -> None:
        self._entries = MappingProxyType(dict(entries or {}))

    @staticmethod
    def key(api_name: str, arguments: Mapping[str, Any]) -> tuple[str, str]:
        return api_name, json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)

    def lookup(self, api_name: str, arguments: Mapping[str, Any]) -> tuple[Any, str | None] | None:
        return self._entries.get(self.key(api_name, arguments))

    def answer(self, api_name: str, arguments: Mapping[str, Any]) -> Any:
        """The recorded output (None when nothing is recorded); a recorded exception is raised."""
        found = self.lookup(api_name, arguments)
        if found is None:
            return None
        output, exception = found
        if exception:
            raise ApiError(exception)
        return output

    def __len__(self) -> int:
        return len(self._entries)


S = TypeVar("S", bound=StateModel)


class Recorded(App[S]):
    """An app that answers some APIs from a cassette of recorded responses.

    The cassette is recorded data, fixed for the app's life: it comes through the
    constructor, and is shared (not copied) by forks.
    """

    def __init__(self, state: S | Mapping[str, Any] | None = None, *, name: str | None = None,
                 cassette: Cassette | None = None) -> None:
        super().__init__(state, name=name)
        self.cassette = cassette if cassette is not None else Cassette()


class KnowledgeState(StateModel):
    history: dict[str, Any] = {}  # "MM-DD" -> list of {Title, Date, Description}
    wiki: dict[str, Any] = {}  # keyword -> {url, summary}
    search: dict[str, Any] = {}  # raw_documents, tokenized_documents
    images: list[Any] = []  # {url, caption}
    speech: dict[str, Any] = {}  # url -> transcript
    documents: dict[str, Any] = {}  # url -> list of {question, answer}


class Knowledge(Recorded[KnowledgeState]):
    """Look-ups that the reference backs with databases, the network or models."""

    def __init__(self, state: KnowledgeState | Mapping[str, Any] | None = None, *, name: str | None = None,
                 cassette: Cassette | None = None) -> None:
        super().__init__(state, name=name, cassette=cassette)
        # rank_bm25 brings numpy (about 0.25 s to import): paid once per process when the
        # first world is built, so no SearchEngine call ever carries it.
        import rank_bm25  # noqa: F401

    app_name = "Knowledge"

    @api("QueryHistoryToday", mutates=False)
    def query_history_today(self, date: Annotated[str, Ref("Knowledge", "history")]) -> list[str]:
        text = pad_year(date)
        try:
            key = dt.datetime.strptime(text, "%Y-%m-%d").strftime("%m-%d")
        except ValueError:
            try:
                key = dt.datetime.strptime(text, "%m-%d").strftime("%m-%d")
            except ValueError as exc:
                raise ApiError(str(exc)) from None
        if key not in self.state.history:
            raise ApiError("The date is not in the database.")
        return [f"Title: {e['Title'].strip()}, Date: {e['Date'].strip()}, Description: {e['Description'].strip()}"
                for e in self.state.history[key]]

    @api("Wiki", mutates=False)
    def wiki(self, keyword: Annotated[str, Ref("Knowledge", "wiki")]) -> WikiEntry:
        key = bounded(keyword, "keyword").replace("_", " ").strip().lower()
        entry = self.state.wiki.get(key)
        if entry is None:
            raise ApiError("Keyword not found.")
        return {"url": entry["url"], "summary": entry["summary"]}

    @api("SearchEngine", mutates=False)
    def search_engine(self, keyword: str) -> list[SearchResult]:
        recorded = self.cassette.answer("SearchEngine", {"keyword": bounded(keyword, "keyword")})
        if recorded is not None:
            return cast(list[SearchResult], recorded)
        documents = self.state.search.get("raw_documents") or []
        if not documents:
            raise ApiError("No documents to search.")
        from rank_bm25 import BM25Okapi

        tokenized = self.state.search.get("tokenized_documents") or [_tokens(json.dumps(d)) for d in documents]
        scores = BM25Okapi(tokenized).get_scores(_tokens(keyword.lower().strip()))
        ranking = sorted(range(len(documents)), key=lambda i: -scores[i])[:2]
        return [cast(SearchResult, documents[i]) for i in ranking]

    @api("ImageCaption", mutates=False)
    def image_caption(self, url: Annotated[str, Ref("Knowledge", "images", "url")]) -> str:
        address = url.strip()
        if not address.endswith((".jpg", ".jpeg", ".png")):
            raise ApiError("The url should end with .jpg, .jpeg or .png.")
        for item in self.state.images:
            if item.get("url") == address:
                return item["caption"]
        raise ApiError("The image of this url failed to be processed.")

    @api("SpeechRecognition", mutates=False)
    def speech_recognition(self, url: Annotated[str, Ref("Knowledge", "speech")]) -> str:
        address = url.strip()
        if not address.endswith(".wav"):
            raise ApiError("The url should end with .wav.")
        if address not in self.state.speech:
            raise ApiError("The audio of this url failed to be processed.")
        return self.state.speech[address]

    @api("DocumentQA", mutates=False)
    def document_qa(self, url: Annotated[str, Ref("Knowledge", "documents")], question: str) -> str:
        address, asked = url.strip(), question.strip()
        if not asked:
            raise ApiError("The question is empty.")
        if address not in self.state.documents:
            raise ApiError("The document of this url failed to be processed.")
        # Kept from the reference (its ground truths encode it): the stored answers are
        # never consulted, every known document answers the same.
        return "The question is too difficult to answer."

    @api("Dictionary", mutates=False)
    def dictionary(self, keyword: str) -> list[DictionaryMeaning]:
        recorded = self.cassette.answer("Dictionary", {"keyword": bounded(keyword, "keyword")})
        if recorded is None:
            raise ApiError(f"No offline answer for the keyword {keyword!r}.")
        return cast(list[DictionaryMeaning], recorded)

    @api("Translate", mutates=False, echo="given")
    def translate(self, src: str, src_lang: str | None = None, tgt_lang: str | None = None) -> str:
        recorded = self.cassette.answer("Translate", {"src": src, "src_lang": src_lang, "tgt_lang": tgt_lang})
        if recorded is None:
            raise ApiError("No offline translation for this text.")
        return cast(str, recorded)


class Utilities(Recorded[StateModel]):
    """Stateless helpers: calculator, date, music, e-mail, and the API catalogue search."""

    app_name = "Utilities"

    def __init__(self, state: StateModel | Mapping[str, Any] | None = None, *, name: str | None = None,
                 cassette: Cassette | None = None, ranker: ToolRanker | None = None) -> None:
        super().__init__(state, name=name, cassette=cassette)
        if ranker is None:
            ranker = Bm25Ranker()
            ranker.prepare(1)
        self.ranker: ToolRanker = ranker

    @api("Calculator", mutates=False)
    def calculator(self, formula: str) -> float:
        return calculate(formula)

    @api("GetToday", mutates=False, echo="none")
    def get_today(self) -> str:
        return self.world.clock.today().isoformat()

    @api("PlayMusic", mutates=False)
    def play_music(self, music_name: str) -> str:
        name = music_name.lower().strip()
        if not name:
            raise ApiError("The music name cannot be empty.")
        return f"music://{name}"

    @api("SendEmail", mutates=False)
    def send_email(self, receiver: Email, subject: str, content: str) -> str:
        if not _EMAIL.match(receiver.strip()):
            raise ApiError("Email address of the receiver is invalid.")
        if not subject.strip():
            raise ApiError("Subject cannot be empty.")
        if not content.strip():
            raise ApiError("Content cannot be empty.")
        return "success"

    @api("ToolSearcher", mutates=False)
    def tool_searcher(self, keywords: str) -> ApiRecord | list[ApiRecord]:
        recorded = self.cassette.answer("ToolSearcher", {"keywords": bounded(keywords, "keywords")})
        return cast(ApiRecord | list[ApiRecord], recorded) if recorded is not None else search_tools(keywords, 1,
                                                                                                     self.ranker)

