"""What a phone's owner asks of ACEBench's apps (messages, reminders, food delivery, flights), en and zh.

Templates with several paraphrases each; the generator picks with its seeded RNG. Placeholders are
filled with names and things as the user knows them: a contact's name, a dish and its restaurant,
a route and a day, a reminder's title.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

PHRASES: Mapping[str, Mapping[str, tuple[str, ...]]] = MappingProxyType({
    "en": MappingProxyType({
        "identity": ("I'm {name}.", "This is {name}.", "Hi, {name} here."),
        "send": ("text {to} '{text}'", "send {to} a message saying '{text}'", "message {to}: '{text}'"),
        "send_full": ("text {to} '{text}'; if my inbox is full, delete the oldest message first",
                      "send {to} the message '{text}' (clear out the earliest message if there is no room)"),
        "remind": ("remind me {when} about '{title}': {desc}", "add a reminder '{title}' {when} ({desc})",
                   "set a reminder titled '{title}' {when}, saying '{desc}'"),
        "unremind": ("delete my '{title}' reminder", "remove the reminder called '{title}'",
                     "I don't need the '{title}' reminder any more, delete it"),
        "order": ("order {items} from {shop} on the food app (my password is {pw})",
                  "get me {items} from {shop} for delivery; my food platform password is {pw}",
                  "use my food delivery account (password {pw}) to order {items} from {shop}"),
        "order_more": ("also order {items} from {shop}", "get {items} from {shop} too"),
        "order_cheap_more": ("get {qty} of the cheapest thing at {shop} as well",),
        "order_cheap": ("order the cheapest thing on {shop}'s menu, {qty} of it (food app password {pw})",
                        "get me {qty} of whatever is cheapest at {shop}; my food platform password is {pw}"),
        "book": ("book flight {flight} in {cabin} with {bags} checked bags, paid by {pay} (user id {uid}, "
                 "password {pw})",
                 "reserve {a} {cabin} seat on {flight} for me with {bags} bags, paying by {pay}; my user id is {uid} "
                 "and password {pw}"),
        "book_route": ("book me {a} {cabin} seat from {origin} to {dest} on {day} with {bags} checked bags, paid "
                       "by {pay} (user id {uid}, password {pw})",
                       "I need to fly from {origin} to {dest} on {day}: {cabin}, {bags} bags, pay by {pay}; user "
                       "id {uid}, password {pw}"),
        "then": (" Then ", " After that, ", " Also, ", " Next, "),
        "texts": ("I'll be ten minutes late", "See you at the cinema at seven", "Happy birthday!",
                  "Can you call me back?", "The meeting moved to Friday", "Dinner is on me tonight",
                  "Don't forget the keys", "Landed safely", "Thanks for yesterday", "Running late, start without me"),
        "irrelevant": ("call Frank for me", "take a photo with the camera", "book a hotel in Shanghai",
                       "what will the weather be tomorrow?", "play some music", "set an alarm for 6 am"),
        "incomplete_send": ("send a message to {to}", "text {to} for me"),
        "incomplete_remind": ("add a reminder {when}", "remind me {when}"),
        "error_remind": ("add a reminder '{title}' for {bad}", "remind me about '{title}' at {bad}"),
    }),
    "zh": MappingProxyType({
        "identity": ("我是{name}。", "你好，我是{name}。", "{name}在此。"),
        "send": ("给{to}发短信说“{text}”", "发消息告诉{to}：“{text}”", "帮我给{to}发一条“{text}”"),
        "send_full": ("给{to}发短信说“{text}”，如果收件箱满了先删掉最早的一条",
                      "发消息告诉{to}：“{text}”（没空间的话先删除最早的短信）"),
        "remind": ("{when}提醒我“{title}”：{desc}", "添加一个提醒“{title}”，时间{when}，内容是{desc}",
                   "设置一个标题为“{title}”的提醒，{when}，内容“{desc}”"),
        "unremind": ("删除我的“{title}”提醒", "把标题为“{title}”的提醒删掉", "“{title}”这个提醒不需要了，删了吧"),
        "order": ("在外卖平台上从{shop}点{items}（我的密码是{pw}）", "帮我在{shop}订{items}外卖，外卖平台密码{pw}",
                  "用我的外卖账号（密码{pw}）在{shop}买{items}"),
        "order_more": ("再从{shop}点{items}", "也在{shop}买{items}"),
        "order_cheap_more": ("再在{shop}买{qty}份最便宜的",),
        "order_cheap": ("在{shop}点菜单上最便宜的东西，{qty}份（外卖密码{pw}）",
                        "帮我在{shop}买{qty}份最便宜的，外卖平台密码{pw}"),
        "book": ("帮我订{flight}航班的{cabin}，托运{bags}件行李，用{pay}支付（用户ID {uid}，密码{pw}）",
                 "给我预订一个{flight}的{cabin}座位，{bags}件行李，{pay}付款；我的用户ID是{uid}，密码{pw}"),
        "book_route": ("帮我订{day}从{origin}到{dest}的{cabin}，托运{bags}件行李，"
                       "用{pay}支付（用户ID {uid}，密码{pw}）",
                       "我要{day}从{origin}飞{dest}：{cabin}，{bags}件行李，{pay}付款；用户ID {uid}，密码{pw}"),
        "then": ("然后", "接着", "另外", "之后"),
        "texts": ("我晚十分钟到", "晚上七点电影院见", "生日快乐！", "方便回个电话吗？", "会议改到周五了",
                  "今晚我请客", "别忘了带钥匙", "已安全落地", "谢谢你昨天的帮忙", "我要迟到了，你们先开始"),
        "irrelevant": ("帮我给Frank打个电话", "用相机拍张照片", "帮我订一间上海的酒店", "明天天气怎么样？",
                       "放点音乐", "设一个早上六点的闹钟"),
        "incomplete_send": ("给{to}发一条短信", "帮我给{to}发个消息"),
        "incomplete_remind": ("{when}提醒我一下", "添加一个{when}的提醒"),
        "error_remind": ("添加一个提醒“{title}”，时间是{bad}", "在{bad}提醒我“{title}”"),
    }),
})

QUANTITIES: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "en": ("", "one", "two", "three"), "zh": ("", "一份", "两份", "三份"),
})

PAYMENT: Mapping[str, Mapping[str, str]] = MappingProxyType({
    "en": MappingProxyType({"cash": "cash", "bank": "bank transfer"}),
    "zh": MappingProxyType({"cash": "现金", "bank": "银行卡"}),
})

ZH_COMMA, ZH_STOP, ZH_QUESTION = "，", "。", "？"

# Reminders people set: (title, description).
REMINDERS: Mapping[str, tuple[tuple[str, str], ...]] = MappingProxyType({
    "en": (("Dentist", "Check-up with Dr. Lee"), ("Gym", "Leg day"), ("Rent", "Pay the rent"),
           ("Call Mom", "Weekly call"), ("Car service", "Oil change at the garage"),
           ("Passport", "Renew the passport"), ("Library", "Return the books")),
    "zh": (("看牙", "找李医生复查"), ("健身", "练腿日"), ("交房租", "把房租转给房东"),
           ("给妈妈打电话", "每周例行电话"), ("保养汽车", "去修车厂换机油"), ("护照", "续签护照"),
           ("图书馆", "还书")),
})
