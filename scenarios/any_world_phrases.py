"""How a user asks any world for something, in en and zh, when all the generator knows is its tools.

A request is a frame around the tool's action (its docstring's first line, or the world's own words
for it: `TASK_PHRASES` beside the factory, see docs/generation.md) and its details, each a frame
around a parameter's description and the value; several paraphrases of each, drawn by the
generator's seeded RNG. Entities are named as the user knows them ("the one called 'Dune'").
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

FRAMES: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "en": ("{action}{details}", "could you {action}{details}?", "I'd like you to {action}{details}",
           "I need you to {action}{details}", "can you {action}{details}?"),
    "zh": ("帮我{action}{details}", "请{action}{details}", "我想{action}{details}", "麻烦你{action}{details}",
           "能不能{action}{details}？"),
})
DETAILS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "en": (" ({args})", ", {args}", ": {args}", " with {args}"),
    "zh": ("，{args}", "（{args}）", "：{args}"),
})
ARGUMENT: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "en": ("{noun} {value}", "{value} as {noun}", "{noun} set to {value}"),
    "zh": ("{noun}是{value}", "{noun}：{value}", "{noun}用{value}"),
})
AND: Mapping[str, tuple[str, str]] = MappingProxyType({"en": (", ", " and "), "zh": ("，", "，")})
ENTITY: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "en": ("the one called {name}", "the one named {name}", "{name}"),
    "zh": ("叫{name}的那个", "名为{name}的那个", "{name}"),
})
QUOTES: Mapping[str, tuple[str, str]] = MappingProxyType({"en": ("'", "'"), "zh": ("“", "”")})
YES_NO: Mapping[str, tuple[str, str]] = MappingProxyType({"en": ("yes", "no"), "zh": ("是", "否")})
WORDS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "en": ("groceries", "report", "meeting notes", "invoice", "holiday plans", "birthday party", "car repair",
           "budget", "reading list", "garden work", "tax return", "dentist visit", "team lunch", "gym plan",
           "book order", "flight check-in", "rent payment", "school trip", "bike service", "photo album"),
    "zh": ("买菜", "周报", "会议纪要", "发票", "假期计划", "生日聚会", "修车", "预算", "书单", "打理花园", "报税",
           "看牙", "团队午餐", "健身计划", "订书", "值机", "交房租", "春游", "自行车保养", "相册"),
})
QUALIFIERS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "en": ("for Monday", "for the team", "before Friday", "for mum", "next week", "for the office", "this weekend",
           "for the trip", "for the kids", "at home"),
    "zh": ("周一的", "团队的", "周五前的", "给妈妈的", "下周的", "办公室的", "周末的", "旅行的", "孩子们的", "家里的"),
})
# Requests no tool of an ordinary world serves, each with the words a tool serving it would be named by.
IRRELEVANT: Mapping[str, tuple[tuple[str, str], ...]] = MappingProxyType({
    "en": (("what will the weather be like tomorrow?", "weather"), ("play some music for me", "music"),
           ("call my mum", "call"), ("book me a taxi to the airport", "taxi"),
           ("translate this sentence into French", "translate"), ("take a photo", "photo")),
    "zh": (("明天天气怎么样？", "weather"), ("放点音乐", "music"), ("帮我给妈妈打个电话", "call"),
           ("帮我叫一辆去机场的出租车", "taxi"), ("把这句话翻译成法语", "translate"), ("拍张照片", "photo")),
})
IMPOSSIBLE_DAYS = ("2024-02-30", "2024-06-31", "2024-13-05", "2024-09-31", "2024-04-31")
