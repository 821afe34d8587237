"""API-Bank's prompts, in our words, with the reference's content and output contract.

What a model is shown decides what it can score, so every instruction of the reference's
prompts is kept: for a call sample, write the AI's next request as
`[ApiName(key1='value1', ...)]`, starting with "[" and ending with "]", nothing else, and
"This year is 2023."; for a response sample, write the AI's next reply after the API call.
Both end with the API descriptions, one JSON object per line (name, description, input and
output parameters), as the reference's ToolManager writes them. Level 3 follows the
reference's simulator prompt: tools are found with ToolSearcher, parameters the model does
not know are asked of the user, one request per reply. The conversation so far is the
reference's chat: User and AI turns as user and assistant messages, each API row a system
message `[Name(k='v', ...)] Response: <output>`, the output written as Python prints it.

Those are the compat prompts, kept as the reference wrote them. In the native protocol (a model
given tools and answering with `tool_calls`), the same content goes the way chat APIs carry it: the
APIs as tools (`api_functions`), each API row of the history as the AI's tool call and a `tool`
message with its output as JSON (`native_history`), and the one system message first; chat
templates of the Qwen family refuse a system message after the first (DAMO-ConvAI PR #229).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from types import MappingProxyType
from typing import Any

from .api_common import CATALOG
from .dialogues import ApiCall, DialogueTurn

CALL_FORMAT = "[ApiName(key1='value1', key2='value2', ...)]"

CALL_PROMPT = f"""Read the API descriptions below and the conversation history 1..t, and write the API request the AI makes at step t+1, in the form {CALL_FORMAT}: ApiName is the API's real name, key1, key2, ... its real parameter names and value1, value2, ... their values.
Your reply starts with "[" and ends with "]". Write nothing else: no explanation, no prompt, no result of the call.
This year is 2023.
Input:
User: [what the user said]
AI: [what the AI said]

Expected output:
{CALL_FORMAT}

API descriptions:
"""

RESPONSE_PROMPT = f"""Read the API descriptions below and the conversation history 1..t, and write what the AI says next, after the API call at step t.
This year is 2023.
Input:
User: [what the user said]
AI: [what the AI said]
{CALL_FORMAT}

Expected output:
AI: [what the AI says]

API descriptions:
"""

LEVEL3_PROMPT = f"""You have a box of APIs (a calculator, a translator, a wiki search, and many more), but you do not see them: to use one, you first find it with the API search engine, giving it keywords that describe what you need: [ToolSearcher(keywords='keyword1 keyword2 ...')]. The search engine answers with the best matching API: its name, description, and input and output parameters. Read it, then use the API as it describes.
You talk with a user, and you call APIs; the user does not see your searches or your calls. A reply that holds a request, written as {CALL_FORMAT}, goes to the APIs, and its result comes back to you; any other reply goes to the user. Make one request per reply.
Whenever the user needs information beyond what you know, search for an API that can give it and call it.
When an API needs a parameter whose value you have not been told, ask the user for it before calling; never make a value up.
For example:
User: Can you work something out for me?
You: [ToolSearcher(keywords='calculator')]
Result: {{"name": "Calculator", "description": "This API provides basic arithmetic operations: addition, subtraction, multiplication, and division.", "input_parameters": {{"formula": {{"type": "str", "description": "The formula that needs to be calculated."}}}}, "output_parameters": {{"result": {{"type": "float", "description": "The result of the formula."}}}}}}
You: What would you like me to calculate?
User: (5+3)*6
You: [Calculator(formula='(5+3)*6')]
Result: 48.0
You: (5+3)*6 is 48.
User: Thanks.

The API search engine:
"""

LEVEL3_USER_PROMPT = """You are a user talking to an AI assistant that can use tools. The scene: {scene}.
Open the conversation with exactly this message: {first_utterance}
What you know, to give the assistant when it asks for it (do not recite it all at once):
{key_info}
Reply as the user, in one or two sentences. When the assistant has done everything you came for, reply exactly 'finish conversation'."""

LEVEL3_OPENER = "Hello! What can I do for you today?"


NATIVE_CALL_PROMPT = """Read the conversation history 1..t, and make the API request the AI makes at step t+1 as a tool call: the API's real name, its real parameter names and their values. Make the call and write nothing else.
This year is 2023."""

NATIVE_SEARCH_PROMPT = """Read the conversation history 1..t, and make the API request the AI makes at step t+1 as a tool call: the API's real name, its real parameter names and their values. Make the call and write nothing else.
Besides the APIs the history has found, you have the API search engine, ToolSearcher: to find an API, call it with keywords describing what you need.
This year is 2023."""

NATIVE_RESPONSE_PROMPT = """Read the conversation history 1..t, and write what the AI says next, after the API call at step t. Write the reply only.
This year is 2023."""

# The catalog's parameter types as JSON Schema.
_JSON_TYPES = MappingProxyType({"str": "string", "int": "integer", "float": "number", "bool": "boolean",
                                "list": "array", "list(str)": "array", "dict": "object"})


def api_function(name: str) -> dict[str, Any]:
    """One API as a tool: its name, description and input parameters as JSON Schema (the catalog
    marks none as required, so none is)."""
    entry = CATALOG[(name, 1)]
    properties: dict[str, Any] = {}
    for key, info in entry.input_parameters.items():
        schema: dict[str, Any] = {"type": _JSON_TYPES.get(info.get("type", "str"), "string")}
        if info.get("type") == "list(str)":
            schema["items"] = {"type": "string"}
        if info.get("description"):
            schema["description"] = info["description"]
        properties[key] = schema
    return {"name": entry.name, "description": entry.description,
            "parameters": {"type": "object", "properties": properties}}


def api_functions(names: Iterable[str]) -> list[dict[str, Any]]:
    return [api_function(name) for name in dict.fromkeys(names) if (name, 1) in CATALOG]


def found_apis(turns: Iterable[DialogueTurn]) -> list[str]:
    """The APIs ToolSearcher's answers in the history named, in order (level 2: what the model has found)."""
    names: list[str] = []
    for turn in turns:
        if turn.call is None or turn.call.api_name != "ToolSearcher":
            continue
        output = (turn.call.result or {}).get("output")
        for found in output if isinstance(output, list) else [output]:
            if isinstance(found, dict) and isinstance(found.get("name"), str):
                names.append(found["name"])
    return names


def native_history(turns: Iterable[DialogueTurn]) -> tuple[dict[str, Any], ...]:
    """The dialogue so far as chat messages of the native protocol: User and AI turns as user and assistant
    messages, each API row as a tool call of the AI (joined to the AI's words just before it) answered by a
    `tool` message holding the output (text as it is, anything else as JSON, as a run answers a call). Call ids are the row's place among the calls (`call_0`, ...)."""
    messages: list[dict[str, Any]] = []
    calls = 0
    for turn in turns:
        if turn.call is None:
            messages.append({"role": "user" if turn.role == "User" else "assistant", "content": turn.text})
            continue
        call_id = f"call_{calls}"
        calls += 1
        use = {"id": call_id, "type": "function", "function": {
            "name": turn.call.api_name, "arguments": json.dumps(turn.call.param_dict, ensure_ascii=False, default=str)}}
        last = messages[-1] if messages else None
        if last is not None and last["role"] == "assistant" and "tool_calls" not in last:
            last["tool_calls"] = [use]
        else:
            messages.append({"role": "assistant", "content": "", "tool_calls": [use]})
        output: Any = (turn.call.result or {}).get("output")
        messages.append({"role": "tool", "tool_call_id": call_id, "content": output if isinstance(output, str)
                         else json.dumps(output, ensure_ascii=False, default=str)})
    return tuple(messages)


def api_description(name: str) -> str:
    """One API as the reference describes it to a model: a JSON object of its name,
    description, input and output parameters."""
    entry = CATALOG[(name, 1)]
    return json.dumps({"name": entry.name, "description": entry.description,
                       "input_parameters": {k: dict(v) for k, v in entry.input_parameters.items()},
                       "output_parameters": {k: dict(v) for k, v in entry.output_parameters.items()}})


def api_descriptions(names: Iterable[str]) -> str:
    return "\n".join(api_description(name) for name in names if (name, 1) in CATALOG)


def call_prompt(level: int, apis: Sequence[str]) -> str:
    """A call sample's system message: level 1 describes the dialogue's APIs, level 2 only
    ToolSearcher (the model has to find the others)."""
    return CALL_PROMPT + api_descriptions(("ToolSearcher",) if level == 2 else apis)


def response_prompt(apis: Sequence[str]) -> str:
    """A response sample's system message, at both levels: the dialogue's APIs."""
    return RESPONSE_PROMPT + api_descriptions(apis)


def level3_prompt() -> str:
    return LEVEL3_PROMPT + api_description("ToolSearcher")


def api_row(call: ApiCall) -> str:
    """An API row of the history, as the reference shows it: the call as recorded (every
    value quoted as text) and the output as Python prints it."""
    arguments = ", ".join(f"{key}='{value}'" for key, value in call.param_dict.items())
    output: Any = (call.result or {}).get("output")
    return f"[{call.api_name}({arguments})] Response: {output}"


def history_messages(turns: Iterable[DialogueTurn]) -> tuple[tuple[str, str], ...]:
    """The dialogue so far as chat messages (role, content)."""
    messages = []
    for turn in turns:
        if turn.call is not None:
            messages.append(("system", api_row(turn.call)))
        else:
            messages.append(("user" if turn.role == "User" else "assistant", turn.text))
    return tuple(messages)
