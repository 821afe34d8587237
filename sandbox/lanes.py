"""The one switch for the engine's speed lanes.

A speed lane is a second way to do something a library already does (pydantic validation,
the `ast` parser, a whole-container copy on write, deepdiff), kept because it is measurably
faster on the common input; each one must give exactly what the plain path gives. Tests hold
every lane to its plain path, and CI runs the engine's tests once more with every lane off
(`TOOLWORLDS_SPEED_LANES=off`), so the plain paths stay reached and correct on their own.

The switch is read once, at import, from the environment: a lane's test (`if LANES_ON`) costs
one global read on the hot path, and no module holds state that changes while a process runs.
Each lane is named in `LANES` below, with the plain path it stands in for.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

#: Every speed lane, by name, with the plain path it stands in for.
LANES: Final[Mapping[str, str]] = MappingProxyType({
    "arguments": "the tool's pydantic argument model validates and coerces every call "
                 "(lane: ArgumentPlan, sandbox.arguments; switched in ToolSpec.fast_arguments)",
    "results": "`plain` copies every dict a tool returns, key by key, instead of a reply of plain values"
               " (text keys; text, numbers, booleans, None) copied whole (sandbox.world, World.call), and every"
               " other reply, instead of an entity in a dict dumped by its serializer directly and a list of one"
               " state class by one serializer of such lists (sandbox.results, dumps.list_serializer_of)",
    "parse_brackets": "Python's `ast` and the literals-only walk read every bracket call, and a text is repaired "
                      "only after they refuse it, its apostrophes found a quote or backslash at a time (lane: "
                      "_fast_brackets and _sure_repair, sandbox.parsing.fast_lanes, switched in "
                      "sandbox.parsing.brackets; _inner_quotes, sandbox.parsing.repairs)",
    "dumps": "each model class's own pydantic serializer, its wrap serializers included, dumps every"
             " model (`model_dump(mode='json')`), instead of one built without its idle wrap serializers"
             " (sandbox.dumps)",
    "diff": "deepdiff compares the whole state (diffing.deep_diff_states) instead of the walk into"
            " the parts that differ (sandbox.diffing)",
    "claim_on_read": "the first writing call after a fork or snapshot copies every nested field (container or"
                     " model) of an app's top state up front (state.model.own), instead of each as the call"
                     " first reads it, for tops with CLAIM_ON_READ_FROM nested fields or more that do not set"
                     " claims_up_front (sandbox.state.sharing)",
    "journal_origin": "a change as a whole (delete, remove, sort) to a large container a call claimed from a"
                      " shared original saves a copy of it for undo, instead of noting the original"
                      " (sandbox.journal, ORIGIN_FROM)",
    "journal_place": "a delete from a large dict saves the dict whole for undo, instead of the key's place found"
                     " near either end (sandbox.journal, PLACE_WITHIN)",
    "build": "pydantic validates every state model a tool makes (`Message(sender_id=..., ...)`), instead of one"
             " whose values are each of its field's type exactly, given in declaration order, being made from"
             " them as they are, a list or dict of items each exactly of its item type (`Order(items=[OrderLine"
             "(...)])`) as a tracked copy holding them (sandbox.state.model, StateModel.__init__)",
    # Lanes of the layers above the engine, switched by the same switch.
    "store_sqlite": "SQLAlchemy Core writes each new episode's rows, instead of the sqlite3 connection itself with"
                    " SQLAlchemy's own column defaults and conversions (toolworlds.store, RunStore(sqlite_lane=))",
    "offered_tools": "json.loads reads the agent's copy of a task's tools from the stored text, instead of a"
                     " marshal copy of the same values (toolworlds.worker)",
    "json_text": "json's encoder builds its C encoder (and a table of the containers it is inside) for every result"
                 " and stored value, instead of one C encoder made once (toolworlds.json_text)",
    "record": "pydantic validates every EpisodeRecord a worker makes, instead of one whose values are each of its"
              " field's own type exactly being made from them as they are (toolworlds.episode_record,"
              " EpisodeRecord.of)",
    "shared_tools": "every agent gets a copy of its tools of its own, instead of the oracle and noisy agents, which"
                    " never read them, being handed the one the process keeps (toolworlds.worker, offered_tools)",
})

_OFF: Final = frozenset({"off", "0", "false", "no"})

#: True unless TOOLWORLDS_SPEED_LANES says off; fixed for the life of the process.
LANES_ON: Final[bool] = os.environ.get("TOOLWORLDS_SPEED_LANES", "on").strip().lower() not in _OFF
