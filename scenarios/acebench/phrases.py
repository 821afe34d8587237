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
        "order_cheap": ("order the cheapest thing on the {shop} menu, quantity {qty} (food app password {pw})",
                        "get me {qty} of whatever is cheapest at {shop}; my food platform password is {pw}"),
        "book": ("book flight {flight} in {cabin} with {bags}, paid by {pay} (user id {uid}, "
                 "password {pw})",
                 "reserve {a} {cabin} seat on {flight} for me with {bags}, paying by {pay}; my user id is {uid} "
                 "and password {pw}"),
        "book_route": ("book me {a} {cabin} seat from {origin} to {dest} on {day} with {bags}, paid "
                       "by {pay} (user id {uid}, password {pw})",
                       "I need to fly from {origin} to {dest} on {day}: {cabin}, {bags}, pay by {pay}; user "
                       "id {uid}, password {pw}"),
        "cancel": ("cancel my flight from {origin} to {dest} on {day} (user id {uid}): {reason}",
                   "I won't be taking my {day} flight from {origin} to {dest} after all, {reason}, so cancel it; my "
                   "user id is {uid}",
                   "please call off my {origin} to {dest} trip on {day}, {reason} (user id {uid})"),
        "change_flight": ("move my {day} flight from {origin} to {dest} to the one leaving {new_day} at {new_time} "
                          "(user id {uid})",
                          "I'd rather fly from {origin} to {dest} {new_day} at {new_time} instead of {day}, change my "
                          "booking; user id {uid}",
                          "switch my {origin} to {dest} flight on {day} to the {new_time} flight on {new_day} (my user "
                          "id is {uid})"),
        "change_cabin": ("change my {day} flight from {origin} to {dest} to {cabin} (user id {uid})",
                         "I'd like {cabin} instead on my {origin} to {dest} flight on {day}; user id {uid}",
                         "switch my seat on the {day} flight from {origin} to {dest} to {cabin} (user id {uid})"),
        "change_cabin_pay": ("change my {day} flight from {origin} to {dest} to {cabin} and pay the difference by "
                             "{pay} (user id {uid})",
                             "I'd like {cabin} on my {origin} to {dest} flight on {day}, paying any difference by "
                             "{pay}; user id {uid}"),
        "reasons": ("my plans changed", "the meeting was called off", "I'm not feeling well",
                    "something came up at home"),
        # Levels 4 and 5: the accounts are said once, after the name (`creds_*`), and the requests say no more.
        "creds_both": ("My flight account is {uid}, and {pw} is my password there and on the food app.",
                       "For flights I'm {uid}; the password for that and for the food app is {pw}."),
        "creds_travel": ("My flight account is {uid}, password {pw}.", "For flights I'm {uid} (password {pw})."),
        "creds_food": ("My food app password is {pw}.", "The food app password is {pw}."),
        "order_short": ("order {items} from {shop}", "get me {items} from {shop}", "I'd like {items} from {shop}"),
        "order_cheap_short": ("get {qty} of the cheapest thing on the {shop} menu",
                              "order {qty} of whatever is cheapest at {shop}"),
        "book_short": ("book flight {flight} in {cabin} with {bags}, paid by {pay}",
                       "get me {a} {cabin} seat on {flight} with {bags}, paying by {pay}"),
        "book_route_short": ("book me {a} {cabin} seat from {origin} to {dest} on {day} with {bags}, "
                             "paid by {pay}",
                             "I need to fly from {origin} to {dest} on {day}: {cabin}, {bags}, pay by {pay}"),
        "cancel_short": ("cancel my flight from {origin} to {dest} on {day}: {reason}",
                         "I won't be taking my {day} flight from {origin} to {dest} after all, {reason}, so cancel it"),
        "change_flight_short": ("move my {day} flight from {origin} to {dest} to the one leaving {new_day} at "
                                "{new_time}",
                                "I'd rather fly from {origin} to {dest} {new_day} at {new_time} instead of {day}"),
        "change_cabin_short": ("change my {day} flight from {origin} to {dest} to {cabin}",
                               "I'd like {cabin} instead on my {origin} to {dest} flight on {day}"),
        "change_cabin_pay_short": ("change my {day} flight from {origin} to {dest} to {cabin}, paying the "
                                   "difference by {pay}",),
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
        "book": ("帮我订{flight}航班的{cabin}，{bags}，用{pay}支付（用户ID {uid}，密码{pw}）",
                 "给我预订一个{flight}的{cabin}座位，{bags}，{pay}付款；我的用户ID是{uid}，密码{pw}"),
        "book_route": ("帮我订{day}从{origin}到{dest}的{cabin}，{bags}，"
                       "用{pay}支付（用户ID {uid}，密码{pw}）",
                       "我要{day}从{origin}飞{dest}：{cabin}，{bags}，{pay}付款；用户ID {uid}，密码{pw}"),
        "cancel": ("帮我取消{day}从{origin}到{dest}的航班（用户ID {uid}），原因是{reason}",
                   "{day}从{origin}飞{dest}的航班我不坐了，{reason}，帮我取消；用户ID {uid}",
                   "把我{day}{origin}到{dest}的行程取消掉，{reason}（用户ID {uid}）"),
        "change_flight": ("把我{day}从{origin}到{dest}的航班改成{new_day}{new_time}起飞的那班（用户ID {uid}）",
                          "我想改签：{day}{origin}飞{dest}的航班换成{new_day}{new_time}的那班，用户ID {uid}",
                          "{day}从{origin}到{dest}的航班帮我改到{new_day}{new_time}出发的那一班（我的用户ID是{uid}）"),
        "change_cabin": ("把我{day}从{origin}飞{dest}的航班换成{cabin}（用户ID {uid}）",
                         "{day}{origin}到{dest}那趟航班我想改坐{cabin}，用户ID {uid}",
                         "帮我把{day}从{origin}到{dest}航班的座位改成{cabin}（用户ID {uid}）"),
        "change_cabin_pay": ("把我{day}从{origin}飞{dest}的航班换成{cabin}，差价用{pay}付（用户ID {uid}）",
                             "{day}{origin}到{dest}那趟航班我想改坐{cabin}，有差价就用{pay}支付；用户ID {uid}"),
        "reasons": ("行程有变", "会议取消了", "身体不舒服", "家里有事"),
        "creds_both": ("我的航旅账号是{uid}，航旅和外卖的密码都是{pw}。",
                       "航旅用户ID {uid}，它和外卖平台的密码都是{pw}。"),
        "creds_travel": ("我的航旅账号是{uid}，密码{pw}。", "航旅用户ID {uid}，密码{pw}。"),
        "creds_food": ("我的外卖平台密码是{pw}。", "外卖密码是{pw}。"),
        "order_short": ("在{shop}点{items}", "帮我在{shop}订{items}外卖", "从{shop}买{items}"),
        "order_cheap_short": ("在{shop}点{qty}份菜单上最便宜的", "帮我在{shop}买{qty}份最便宜的"),
        "book_short": ("帮我订{flight}航班的{cabin}，{bags}，用{pay}支付",
                       "订一个{flight}的{cabin}座位，{bags}，{pay}付款"),
        "book_route_short": ("帮我订{day}从{origin}到{dest}的{cabin}，{bags}，用{pay}支付",
                             "我要{day}从{origin}飞{dest}：{cabin}，{bags}，{pay}付款"),
        "cancel_short": ("取消我{day}从{origin}到{dest}的航班，{reason}",
                         "{day}从{origin}飞{dest}的航班我不坐了，{reason}，帮我取消"),
        "change_flight_short": ("把我{day}从{origin}到{dest}的航班改成{new_day}{new_time}起飞的那班",
                                "{day}{origin}飞{dest}的航班改签到{new_day}{new_time}那班"),
        "change_cabin_short": ("把我{day}从{origin}飞{dest}的航班换成{cabin}",
                               "{day}{origin}到{dest}那趟航班我想改坐{cabin}"),
        "change_cabin_pay_short": ("把我{day}从{origin}飞{dest}的航班换成{cabin}，差价用{pay}付",),
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

# Checked bags as a request says them, by count.
BAGS_EN: tuple[str, ...] = ("no checked bags", "one checked bag", "two checked bags", "three checked bags")
BAGS_ZH: tuple[str, ...] = ("不托运行李", "托运1件行李", "托运2件行李", "托运3件行李")

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
