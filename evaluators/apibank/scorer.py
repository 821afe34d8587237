"""API-Bank scoring: API-call correctness (stateful) and ROUGE-L of responses.

Each recorded API call of a level-1 or level-2 dialogue is one sample: the model sees the
dialogue up to that call and writes one call, e.g. `[AddAgenda(token='...', ...)]`. The
reference scores that call in a fresh ToolManager, so calls that depend on earlier ones
(the second step of ForgotPassword, a log-in after a password change) can never be
correct; here the dialogue's gold calls before it are replayed in a fresh world first, and
then the model's call runs there. The call is the first `[Name(...)]` of the reply, as the
reference reads it (`API-Request: [...]` and words around the call are fine;
`scenarios.apibank.extraction`). The per-API check (`scenarios.apibank.checks`) decides,
and never raises. Each AI turn is one response sample, scored by ROUGE-L F1; the reference
scores only the replies that directly follow an API call (478 of 1,210), which is the
reported `rouge_l`; the mean over every AI turn is our extension (`rouge_l_all_turns`).

Predictions are JSON lines: `{"file": <dialogue file>, "kind": "api" | "response",
"index": <n-th API call, or n-th AI turn, of the dialogue>, "pred": <model text>}`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandbox import Call, ParseError, World
from sandbox.input_limits import DEFAULT_LIMITS
from sandbox.parsing import render_calls
from scenarios.apibank.checks import check_call
from scenarios.apibank.dialogues import ApiCall, Dialogue
from scenarios.apibank.extraction import first_call
from scenarios.apibank.family import FAMILY
from scenarios.apibank.replay import (
    apibank_folder,
    envelope,
    queue_recorded_random,
    recorded_dialogues,
    recording_world,
    replay_calls,
)
from scenarios.jsonlines import decoded_lines

from ..results import ResultsRequest, ScoreTable
from ..versions import Checker
from .strict import strict_input


@dataclass(frozen=True)
class SampleScore:
    file: str
    kind: str
    index: int
    correct: bool | None  # api samples
    rouge_l: float | None  # response samples
    error: str = ""
    after_call: bool = False  # a response sample that directly follows an API call (the reference's set)

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "kind": self.kind, "index": self.index, "correct": self.correct,
                "rouge_l": self.rouge_l, "error": self.error, "after_call": self.after_call}


@dataclass
class ApiBankScores:
    samples: list[SampleScore] = field(default_factory=list)

    def accuracy(self, level: int | None = None, levels: Mapping[str, int] | None = None) -> float:
        api = [s for s in self.samples if s.kind == "api"
               and (level is None or (levels or {}).get(s.file) == level)]
        return round(sum(bool(s.correct) for s in api) / len(api), 4) if api else 0.0

    def rouge(self, compat_only: bool = False) -> float:
        """Mean ROUGE-L over the response samples: all of them, or only the reference's set
        (replies that directly follow an API call)."""
        responses = [s.rouge_l for s in self.responses(compat_only) if s.rouge_l is not None]
        return round(sum(responses) / len(responses), 4) if responses else 0.0

    def responses(self, compat_only: bool = False) -> list[SampleScore]:
        return [s for s in self.samples if s.kind == "response" and (s.after_call or not compat_only)]


def render_call(api_name: str, param_dict: Mapping[str, Any]) -> str:
    """A recorded call written as a model would write it."""
    return render_calls([Call(api_name, dict(param_dict))])


def judge_call(world: World, gold: ApiCall, prediction: Any, *, checker: Checker = "compat") -> tuple[bool, str]:
    """Whether a reply's call, run in `world` (the dialogue's gold calls before it replayed),
    passes the gold call's check (`compat`: the reference's per-API check; `strict`: `strict_input`);
    and if not, why. Never raises."""
    try:
        call = first_call(prediction if isinstance(prediction, str) else json.dumps(prediction))
    except ParseError as exc:
        return False, f"failed to parse the API call: {exc.message}"
    if call.name != gold.api_name:
        return False, f"API name mismatch: {call.name} vs {gold.api_name}"
    queue_recorded_random(world, gold.api_name, gold.result or {})
    record = world.call(call.name, call.arguments)
    produced = json.loads(json.dumps(envelope(world, record), default=str))
    expected = json.loads(json.dumps(gold.result or {}, default=str))
    if checker == "strict":
        # What the model chose is the call: its arguments as written (not as the world coerced them, which
        # would let "5" pass for 5), against the gold's; the output is the world's answer (ToolSearcher's
        # ranking, say, is ours, not the recording's). The call must also fare as the gold's did: accepted
        # where the gold's was, refused where it was refused.
        correct = (strict_input({"input": call.arguments}, {"input": dict(gold.param_dict)})
                   and (record.error is None) == (expected.get("exception") is None))
        return correct, "" if correct else "strict: the call's arguments are not the gold's"
    correct = check_call(gold.api_name, produced, expected)
    return correct, "" if correct else "the check failed"


class Scorer:
    """Scores predictions against API-Bank's dialogues; build once, score many predictions."""

    def __init__(self, data: str | Path, levels: tuple[int, ...] = (1, 2)) -> None:
        dialogues = recorded_dialogues(data, levels)
        self.dialogues = {d.file: d for d in dialogues}
        self.world = recording_world(data, dialogues)
        self._rouge = _rouge_scorer()

    def levels(self) -> dict[str, int]:
        return {name: dialogue.level for name, dialogue in self.dialogues.items()}

    def _prefix_world(self, dialogue: Dialogue, index: int) -> World:
        return replay_calls(self.world.fork(), dialogue.api_calls[:index])

    def score_api(self, file: str, index: int, prediction: Any) -> SampleScore:
        dialogue = self.dialogues.get(file)
        if dialogue is None or not 0 <= index < len(dialogue.api_calls):
            return SampleScore(file, "api", index, False, None, "no such API sample")
        correct, error = judge_call(self._prefix_world(dialogue, index), dialogue.api_calls[index], prediction)
        return SampleScore(file, "api", index, correct, None, error)

    def score_response(self, file: str, index: int, prediction: Any) -> SampleScore:
        dialogue = self.dialogues.get(file)
        answers = dialogue.replies if dialogue else []
        if not 0 <= index < len(answers):
            return SampleScore(file, "response", index, None, 0.0, "no such response sample")
        after_call = dialogue is not None and index in dialogue.replies_after_calls
        error = reply_too_long(prediction) if isinstance(prediction, str) else ""
        return SampleScore(file, "response", index, None, rouge_l(answers[index], prediction, self._rouge),
                           error, after_call)

    def score(self, predictions: Iterable[Mapping[str, Any]]) -> ApiBankScores:
        scores = ApiBankScores()
        for row in predictions:
            file, index = str(row.get("file", "")), row.get("index")
            if not isinstance(index, int):
                scores.samples.append(SampleScore(file, str(row.get("kind", "api")), -1, False, None, "no index"))
                continue
            if row.get("kind", "api") == "response":
                scores.samples.append(self.score_response(file, index, row.get("pred", "")))
            else:
                scores.samples.append(self.score_api(file, index, row.get("pred", "")))
        return scores

    def gold_predictions(self) -> list[dict[str, Any]]:
        """Every sample answered with the recorded call or reply (a perfect model)."""
        rows: list[dict[str, Any]] = []
        for file, dialogue in self.dialogues.items():
            for index, call in enumerate(dialogue.api_calls):
                rows.append({"file": file, "kind": "api", "index": index,
                             "pred": render_call(call.api_name, call.param_dict)})
            rows.extend({"file": file, "kind": "response", "index": i, "pred": text}
                        for i, text in enumerate(dialogue.replies))
        return rows


def _rouge_scorer() -> Any:
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"])


def rouge_l(reference: str, prediction: Any, scorer: Any = None) -> float:
    """ROUGE-L F1; empty or unreadable predictions score 0 (the reference's `rouge` crashed on some).

    A prediction past `reply_too_long` scores 0 without being run: rouge-score's LCS is a pure-Python
    table of reference x prediction tokens, so its time and memory grow with the prediction
    (a 1 MB reply took 17 s and 429 MB). Pass a `scorer` (from one `Scorer`) when scoring many
    responses, so it is built once.
    """
    if not isinstance(prediction, str) or reply_too_long(prediction):
        return 0.0
    if not prediction.strip() or not reference.strip():
        return 0.0
    scorer = scorer or _rouge_scorer()
    return round(scorer.score(reference, prediction)["rougeL"].fmeasure, 4)


def reply_too_long(prediction: str) -> str:
    """Why a reply is too long to score ("" when it is not): past the engine's message limit,
    the bound call text has too. No recorded reply comes near it (the longest has 1,335
    characters); the reference would score it anyway (docs/compatibility.md)."""
    limit = DEFAULT_LIMITS.max_message_chars
    if len(prediction) <= limit:
        return ""
    return f"the reply has {len(prediction)} characters, more than the {limit} a reply may have; not scored"


def read_predictions(path: Path) -> list[dict[str, Any]]:
    """Prediction rows from a JSON-lines file; `ValueError` names the first bad line, whichever way
    it fails to read (`scenarios.jsonlines.decoded_lines`: not UTF-8, not JSON, an integer past
    Python's conversion limit, nesting past the stack)."""
    if not path.is_file():
        raise ValueError(f"{path} is not a file of predictions (JSON lines)")
    rows = []
    for number, value, reason in decoded_lines(path.read_bytes()):
        if reason:
            raise ValueError(f"{path.name}:{number}: {reason}")
        rows.append(value if isinstance(value, dict) else {})
    return rows


def score_results(request: ResultsRequest) -> ScoreTable:
    """`toolworlds score apibank`: API-call accuracy per level and ROUGE-L of responses."""
    source = apibank_folder(FAMILY.data_source(request.data))
    scorer = Scorer(source)
    return scores_table(scorer.score(read_predictions(request.results)), scorer.levels(), (1, 2))


def scores_table(scores: ApiBankScores, levels: Mapping[str, int], shown: tuple[int, ...]) -> ScoreTable:
    """Call accuracy for each level in `shown` and overall, ROUGE-L over the reference's replies
    and over every AI turn; the payload holds every sample's verdict."""
    api = [s for s in scores.samples if s.kind == "api"]
    table = []
    for level in shown:
        count = sum(1 for s in api if levels.get(s.file) == level)
        table.append((f"API call accuracy, level {level}", f"{scores.accuracy(level, levels):.4f}", str(count)))
    table.append(("API call accuracy", f"{scores.accuracy():.4f}", str(len(api))))
    compat = scores.responses(compat_only=True)
    table.append(("response ROUGE-L (replies after an API call, as the reference)",
                  f"{scores.rouge(compat_only=True):.4f}", str(len(compat))))
    table.append(("response ROUGE-L (every AI turn, extension)", f"{scores.rouge():.4f}",
                  str(len(scores.responses()))))
    payload = {"accuracy": scores.accuracy(), "rouge_l": scores.rouge(compat_only=True),
               "rouge_l_all_turns": scores.rouge(),
               "samples": [s.to_dict() for s in scores.samples]}
    return ScoreTable("API-Bank", ("metric", "value", "samples"), (tuple(table),), payload)
