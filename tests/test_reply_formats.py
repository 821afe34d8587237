"""Every tool-call format models write, sent by a local chat endpoint as a model served without a tool
parser sends it: the call runs (it is in the call log) and the next request carries its result; call-shaped
text that does not read is a parse_error the model is shown; a reply cut off at max_tokens stops the
episode with stop reason `length`; the simulated user's "finish conversation" is not answered."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from scenarios.banking.family import load_tasks
from tests.fake_chat import Response, completion, serve
from toolworlds.agents import Turn
from toolworlds.episodes import Episode, run_episode
from toolworlds.llm import ChatClient, LLMAgent, LLMUser
from toolworlds.runner import AgentSpec, TaskSet, execute_run
from toolworlds.store import RunStore

pytestmark = pytest.mark.long_running  # collected first: see tests/conftest.py

TASKS = {task.id: task for task in load_tasks("en")}
RENT = TASKS["banking_multi_step_4"]
LOGIN = {"customer_id": "C001", "password": "eve2024"}
ACCOUNTS = {"customer_id": "C001"}
LOGGED_IN = "Customer C001 has logged in to the bank"


def j(value: Any) -> str:
    return json.dumps(value)


CALL = {"name": "login_bank", "arguments": LOGIN}
LIST = {"name": "list_accounts", "arguments": ACCOUNTS}
BRACKETS = "[login_bank(customer_id='C001', password='eve2024')]"
# (format, the reply's text, the tools it must run in order)
FORMATS: list[tuple[str, str, list[str]]] = [
    ("hermes", f"<tool_call>\n{j(CALL)}\n</tool_call>", ["login_bank"]),
    ("hermes_many_unclosed", f"<tool_call>\n{j(CALL)}\n<tool_call>\n{j(LIST)}", ["login_bank", "list_accounts"]),
    ("think_then_hermes", "<think>Pay the rent? [transfer(amount=1200)] Not yet: log in.</think>\n"
                          f"<tool_call>\n{j(CALL)}\n</tool_call>", ["login_bank"]),
    ("thinking_then_brackets", f"<thinking>Log in first.</thinking>\n{BRACKETS}", ["login_bank"]),
    ("bare_json", j(CALL), ["login_bank"]),
    ("python_quoted_json", str(CALL), ["login_bank"]),
    ("json_list", j([CALL, LIST]), ["login_bank", "list_accounts"]),
    ("json_lines", f"{j(CALL)}\n{j(LIST)}", ["login_bank", "list_accounts"]),
    ("json_multiline_parameters", json.dumps({"name": "login_bank", "parameters": LOGIN}, indent=2), ["login_bank"]),
    ("llama32_python_tag", f"<|python_tag|>{j({'name': 'login_bank', 'parameters': LOGIN})}<|eom_id|>", ["login_bank"]),
    ("mistral", f"[TOOL_CALLS] {j([CALL])}</s>", ["login_bank"]),
    ("mistral_v11", f"[TOOL_CALLS]login_bank[ARGS]{j(LOGIN)}", ["login_bank"]),
    ("llama31_function", f"<function=login_bank>{j(LOGIN)}</function>", ["login_bank"]),
    ("brackets_in_prose", f"Sure, let me log you in first: {BRACKETS} After that I will pay the rent.", ["login_bank"]),
    ("fence_json", f"```json\n{j(CALL)}\n```", ["login_bank"]),
    ("fence_python", f"```python\n{BRACKETS}\n```", ["login_bank"]),
    ("fence_tool_code", "```tool_code\nlogin_bank(customer_id='C001', password='eve2024')\n```", ["login_bank"]),
    ("im_end", f"{BRACKETS}<|im_end|>", ["login_bank"]),
    ("eot_id", f"{j(CALL)}<|eot_id|>", ["login_bank"]),
    ("eos", f"{BRACKETS}</s>", ["login_bank"]),
    ("invented_result", f"{j(CALL)}\nResult: {{\"status\": true, \"balance\": 1000000}}\nYou are rich.",
     ["login_bank"]),
    ("invented_turns", f"<tool_call>\n{j(CALL)}\n</tool_call><|im_end|>\n<|im_start|>user\n<tool_response>\n"
                       "{\"status\": true}\n</tool_response><|im_end|>", ["login_bank"]),
]


class Model:
    """Answers the first request with `first` (as content, or as native `tool_calls`), every later one with
    an answer; records the requests. `finish` is the first reply's finish reason."""

    def __init__(self, first: str | list[dict[str, Any]], finish: str = "stop") -> None:
        self.first, self.finish = first, finish
        self.requests: list[dict[str, Any]] = []

    def __call__(self, body: dict[str, Any]) -> Response:
        self.requests.append(body)
        if len(self.requests) > 1:
            message: dict[str, Any] = {"role": "assistant", "content": "Done."}
            finish = "stop"
        elif isinstance(self.first, str):
            message, finish = {"role": "assistant", "content": self.first}, self.finish
        else:
            message, finish = {"role": "assistant", "content": None, "tool_calls": self.first}, self.finish
        reply = completion(message, body["model"])
        reply["choices"][0]["finish_reason"] = finish
        return Response(json.dumps(reply).encode())


def run_with(model: Model, protocol: str = "native", max_tokens: int | None = None) -> Episode:
    pytest.importorskip("openai")
    with serve(model) as url:
        agent = LLMAgent.for_task(ChatClient(url + "/v1", "m", api_key="test", max_tokens=max_tokens), RENT, protocol)
        _, episode = run_episode(RENT, agent)
    return episode


def results_sent(request: dict[str, Any]) -> list[Any]:
    """The results of calls written as text, as the next request carries them (a user message each)."""
    prefix = "execution result: "
    return [json.loads(m["content"][len(prefix):]) for m in request["messages"]
            if m["role"] == "user" and isinstance(m["content"], str) and m["content"].startswith(prefix)]


@pytest.mark.parametrize(("text", "tools"), [(text, tools) for _, text, tools in FORMATS],
                         ids=[name for name, _, _ in FORMATS])
def test_a_call_in_each_format_runs_and_the_next_request_carries_its_result(text: str, tools: list[str]) -> None:
    model = Model(text)
    episode = run_with(model)
    assert [record.tool for record in episode.records] == tools
    assert all(record.ok for record in episode.records), [r.error for r in episode.records]
    assert episode.stop_reason == "agent answered" and len(model.requests) == 2
    (sent,) = results_sent(model.requests[1])
    assert sent[0] == {"status": True, "message": LOGGED_IN}
    assert model.requests[1]["messages"][2] == {"role": "assistant", "content": text}  # the reply as written
    assert episode.process == [text]


def test_the_bracket_protocol_reads_the_same_formats() -> None:
    model = Model(f"<think>Log in.</think>\n<tool_call>\n{j(CALL)}\n</tool_call><|im_end|>")
    episode = run_with(model, "bracket")
    assert [record.tool for record in episode.records] == ["login_bank"] and episode.records[0].ok
    assert results_sent(model.requests[1])[0][0]["message"] == LOGGED_IN


def test_native_tool_calls_still_run_as_sent() -> None:
    model = Model([{"id": "call_7", "type": "function", "function": {"name": "login_bank", "arguments": j(LOGIN)}}])
    episode = run_with(model)
    assert [record.tool for record in episode.records] == ["login_bank"]
    tool = [m for m in model.requests[1]["messages"] if m["role"] == "tool"]
    assert tool == [{"role": "tool", "tool_call_id": "call_7", "content": j({"status": True, "message": LOGGED_IN})}]


UNREADABLE = [
    ("hermes_cut_json", "<tool_call>\n{\"name\": \"login_bank\", \"arguments\": {\"customer_id\": \"C001\"\n"
                        "</tool_call>"),
    ("bare_word", "[login_bank(customer_id=C001, password='eve2024')]"),
    ("json_cut", "{\"name\": \"login_bank\", \"arguments\": {\"customer_id\": \"C001\", \"pass"),
    ("never_closed", "Logging in: [login_bank(customer_id='C001', password='eve2024')"),
    ("function_tag_bad_json", "<function=login_bank>{customer_id: C001}</function>"),
    ("mistral_bad", "[TOOL_CALLS] [{\"name\": \"login_bank\", \"arguments\": {]"),
]


@pytest.mark.parametrize("text", [text for _, text in UNREADABLE], ids=[name for name, _ in UNREADABLE])
def test_call_shaped_text_that_does_not_read_gets_a_parse_error_turn_never_ends_as_the_answer(text: str) -> None:
    model = Model(text)
    episode = run_with(model)
    assert len(model.requests) == 2, "the model is asked again, with the error"
    assert [r.error.type if r.error else None for r in episode.records] == ["parse_error"]
    (sent,) = results_sent(model.requests[1])
    assert sent[0]["error"] == "parse_error" and sent[0]["message"]
    assert episode.messages[1].call_text == text and episode.stop_reason == "agent answered"


def test_readable_calls_beside_an_unreadable_one_run_and_it_is_refused_in_place() -> None:
    text = (f"<tool_call>\n{j(CALL)}\n</tool_call>\n<tool_call>\n{{\"name\": \"list_accounts\", \"arguments\": {{\n"
            "</tool_call>")
    model = Model(text)
    episode = run_with(model)
    assert [(r.tool, r.error.type if r.error else None) for r in episode.records] == [("login_bank", None),
                                                                                     (None, "parse_error")]
    (sent,) = results_sent(model.requests[1])
    assert sent[0]["message"] == LOGGED_IN and sent[1]["error"] == "parse_error"


@pytest.mark.parametrize("first", [f"<tool_call>\n{j(CALL)}\n</tool_call>\n<tool_call>\n{{\"name\": \"transfer\", \"a",
                                   [{"id": "c", "type": "function",
                                     "function": {"name": "login_bank", "arguments": "{\"customer_id\": \"C0"}}]],
                         ids=["text", "native"])
def test_a_reply_cut_off_at_max_tokens_stops_the_episode_with_stop_reason_length(
        first: str | list[dict[str, Any]], tmp_path: Path) -> None:
    model = Model(first, finish="length")
    episode = run_with(model, max_tokens=20)
    assert model.requests[0]["max_tokens"] == 20
    assert len(model.requests) == 1 and episode.records == [] and episode.process == []
    assert episode.stop_reason == "length" and not episode.finished
    assert episode.messages[-1].role == "assistant" and episode.messages[-1].tool_calls == ()
    assert ("login_bank" in episode.messages[-1].content)  # kept as written, for the transcript


def test_a_truncated_reply_is_stored_and_shown_with_stop_reason_length(tmp_path: Path) -> None:
    pytest.importorskip("openai")
    from typer.testing import CliRunner

    from toolworlds.cli import app

    model = Model("<think>The user wants the rent paid, so first I", finish="length")
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with serve(model) as url:
        (stored,) = execute_run(RunStore(db), "r", [TaskSet("banking", "en", [RENT])],
                                AgentSpec("llm", model="m", base_url=url + "/v1"))
    assert stored.stop_reason == "length" and not stored.finished and stored.calls == 0
    shown = CliRunner().invoke(app, ["show", "r", RENT.id, "--db", db])
    assert shown.exit_code == 0 and "length" in shown.output and "first I" in shown.output


def user_says(words: list[str]) -> Callable[[dict[str, Any]], Response]:
    said = iter(words)

    def reply(body: dict[str, Any]) -> Response:
        return Response(json.dumps(completion({"role": "assistant", "content": next(said)}, body["model"])).encode())

    return reply


@pytest.mark.parametrize("words", [["finish conversation"], ["Check my balance, please.", "finish conversation"],
                                   ["<think>I say finish conversation once it is done.</think>Check my balance.",
                                    "<think>Done.</think>finish conversation<|im_end|>"]],
                         ids=["at once", "after a turn", "thought of, then said"])
def test_the_users_finish_conversation_ends_the_episode_without_another_agent_call(words: list[str]) -> None:
    pytest.importorskip("openai")
    task = TASKS["banking_multi_turn_2"]
    agent_model = Model("How can I help?")
    with serve(agent_model) as agent_url, serve(user_says(words)) as user_url:
        agent = LLMAgent.for_task(ChatClient(agent_url + "/v1", "m", api_key="test"), task)
        user = LLMUser(ChatClient(user_url + "/v1", "u", api_key="test"), task.question)
        _, episode = run_episode(task, agent, user=user)
    assert episode.stop_reason == "user ended" and episode.finished
    assert len(agent_model.requests) == len(words) - 1
    assert sum(m.role == "assistant" for m in episode.messages) == len(words) - 1


def test_a_scripted_turn_reads_text_calls_as_runs_do() -> None:
    class Scripted:
        def __init__(self) -> None:
            self.turns = [Turn(text=f"<tool_call>\n{j(CALL)}\n</tool_call>"), Turn(text="Done.")]

        def act(self, conversation: Any, tools: Any) -> Turn:
            return self.turns.pop(0)

    _, episode = run_episode(RENT, Scripted())
    assert [r.tool for r in episode.records] == ["login_bank"] and episode.stop_reason == "agent answered"


class OneReplyTask:
    """A task scored on the agent's first reply alone (task hook `single_reply`, as ACEBench's normal items)."""

    id = "one_reply"
    category = "normal"
    question = "Log in."
    functions: list[dict[str, Any]] = []
    single_reply = True

    def world(self, seed: int = 0) -> Any:
        return RENT.world(seed)


@pytest.mark.parametrize("truncated", [False, True])
def test_a_single_reply_cut_off_is_kept_as_the_output_with_stop_reason_length(truncated: bool) -> None:
    class Agent:
        def act(self, conversation: Any, tools: Any) -> Turn:
            return Turn(text="[login_bank(customer_id='C001', pass", truncated=truncated)

    _, episode = run_episode(OneReplyTask(), Agent())
    assert episode.process == ["[login_bank(customer_id='C001', pass"] and episode.records == []
    assert (episode.stop_reason, episode.finished) == (("length", False) if truncated else ("single reply", True))
