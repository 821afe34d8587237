"""The words that join a user's requests into one message (`scenarios.generation.one_request`), en and zh."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

JOINERS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "en": (", and ", " and then ", ", then ", " and "), "zh": ("，再", "，随后", "，并且"),
})
IN_ORDER: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "en": ("Then", "After that,", "Once that's done,", "Next,"), "zh": ("然后", "之后", "接下来", "接着"),
})
OPENERS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "en": IN_ORDER["en"] + ("Also,", "Oh, and", "And", "Besides that,", "On top of that,"),
    "zh": IN_ORDER["zh"] + ("另外", "还有，", "顺便", "对了，"),
})
LAST: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "en": ("Finally,", "Last of all,", "And lastly,", "One more thing:"),
    "zh": ("最后", "最后还有，", "还有最后一件事："),
})
ASKS = ("?", "？")
ZH_ENDS = ("？", "！")
ZH_QUOTE = "“"
ZH_NOT_AFTER_AGAIN = ("我", "再", "也", "“")  # what reads wrong after 再 (ZH_AGAIN): ZH_AFTER joins those
ZH_AGAIN, ZH_AFTER = "，再", "，随后"
NOT_VERBS = ("the ", "my ", "a ", "an ", "i ", "'")  # a request opening so takes no "please"
