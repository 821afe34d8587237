"""What API-Bank's users say, in English and Chinese: several paraphrases per request, and the things
their records hold (agenda items, reminders, meeting topics, scenes, hotels, doctors).

Each entry of `PHRASES` is a tuple of templates; the generator picks one with its seeded RNG.
Placeholders: `{when}`/`{new}` a time as the user says it, `{day}`/`{until}` a date, `{content}`
an agenda item or reminder, `{topic}`, `{room}`, `{people}` a meeting's, `{scene}`, `{device}` (`{whose}`
its possessive: "blinds'", "lamp's"), `{hotel}`, `{doctor}`, `{patient}` things by the names the user knows
them by.
Records are English in English tasks and Chinese in Chinese ones (the user wrote them); user
names, e-mail addresses, doctors' and hotels' names are the same in both.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

Phrases = Mapping[str, Mapping[str, tuple[str, ...]]]

PHRASES: Phrases = MappingProxyType({
    "en": MappingProxyType({
        "identity": ("My username is {user} and my password is {pw}.", "I'm {user} (password {pw}).",
                     "Log in as {user}, password {pw}.", "Hi, {user} here; my password is {pw}."),
        "newcomer": ("I'm new here: please sign me up as {user} with the password {pw} and the e-mail {email}.",
                     "Register an account for me: username {user}, password {pw}, e-mail {email}.",
                     "Create a new account, {user}, password {pw}, e-mail {email}, and use it for the rest."),
        "forgot": ("I'm {user} and I forgot my password; my e-mail is {email}. Reset it to {new}.",
                   "I can't remember my password. Username {user}, e-mail {email}; please set a new one: {new}.",
                   "Please reset the password of {user} (e-mail {email}) to {new}, I lost the old one."),
        "add_agenda": ("put '{content}' at {location} on my agenda {when}",
                       "add {content} ({location}) to my agenda {when}",
                       "schedule '{content}' at {location} {when} in my agenda"),
        "delete_agenda": ("remove '{content}' from my agenda", "take {content} off my agenda",
                          "delete the agenda item '{content}'"),
        "delete_agenda_full": ("remove '{content}' at {location} {when} from my agenda",
                               "delete the agenda item '{content}' at {location} {when}"),
        "move_agenda": ("move '{content}' on my agenda to {new}", "reschedule {content} in my agenda to {new}",
                        "change the time of my agenda item '{content}' to {new}"),
        "move_agenda_full": ("move '{content}' at {location} on my agenda to {new}, same place",
                             "reschedule {content} ({location}) in my agenda to {new}"),
        "add_alarm": ("set an alarm {when}", "wake me up {when}", "I need an alarm {when}"),
        "delete_alarm": ("delete my alarm {when}", "cancel the alarm I set {when}",
                         "I don't need my alarm {when} any more, remove it"),
        "move_alarm": ("move my alarm {when} to {new}", "change my alarm {when} to {new}",
                       "push my alarm {when} to {new}"),
        "add_reminder": ("remind me to {content_lower} {when}", "add a reminder '{content}' {when}",
                         "set a reminder, '{content}', {when}"),
        "delete_reminder": ("delete my reminder '{content}' {when}", "remove the reminder to {content_lower} "
                            "{when}", "cancel the '{content}' reminder {when}"),
        "move_reminder": ("move my reminder '{content}' to {new}", "change the reminder to {content_lower} to {new}",
                          "I'd like the '{content}' reminder moved to {new}"),
        "add_meeting": ("book a meeting '{topic}' in {room} {when} until {end} with {people}",
                        "set up '{topic}' with {people} in {room}, {when} to {end}",
                        "schedule a meeting called '{topic}' {when} until {end} in {room}; invite {people}"),
        "delete_meeting": ("cancel my meeting '{topic}'", "call off the '{topic}' meeting",
                           "delete the meeting about {topic}"),
        "move_meeting": ("move my meeting '{topic}' to {new} until {end}",
                         "reschedule '{topic}' to {new}, ending at {end}",
                         "have the '{topic}' meeting run from {new} to {end} instead"),
        "password": ("change my password to {new}", "I'd like a new password: {new}", "update my password to {new}"),
        "delete_account": ("delete my account for good", "close my account completely",
                           "I want my account deleted"),
        "book_hotel": ("book {rooms} at {hotel} from {day} to {until} for {adults}{children}",
                       "I need {rooms} at {hotel}, checking in {day} and out {until}, for {adults}{children}",
                       "reserve {hotel} for {adults}{children}: {rooms}, {day} to {until}"),
        "register_appointment": ("book me an appointment with {doctor} on {day}; I'm {patient}",
                                 "register {patient} to see {doctor} on {day}",
                                 "make a doctor's appointment for {patient} with {doctor} on {day}"),
        "cancel_appointment": ("cancel {patient}'s appointment on {day}",
                               "cancel the appointment of {patient} on {day}, they can't make it",
                               "call off the appointment of {patient} on {day}"),
        "move_appointment": ("move {patient}'s appointment on {day} to {until}",
                             "change {patient}'s appointment on {day} to {until}",
                             "change the date of {patient}'s appointment from {day} to {until}"),
        "health": ("record my health data, patient ID {pid}: {data} {when}",
                   "log {data} for patient {pid}, measured {when}",
                   "save these readings for {pid} {when}: {data}"),
        "add_scene": ("create a '{scene}' scene with {devices}", "add a smart-home scene '{scene}': {devices}",
                      "set up the scene '{scene}' using {devices}"),
        "extend_scene": ("add {device} to my '{scene}' scene", "put {device} into the '{scene}' scene too",
                         "include {device} in the scene '{scene}'"),
        "delete_scene": ("delete the '{scene}' scene", "remove my smart-home scene '{scene}'",
                         "I don't use the '{scene}' scene any more, delete it"),
        "switch": ("switch {state} the {device} {when}", "turn {state} the {device} {when}",
                   "set a timer to turn {state} the {device} {when}"),
        "cancel_switch": ("cancel the {whose} timer {when}", "remove the timed switch of the {device} {when}",
                          "cancel the {whose} timed switch {when}, I won't need it"),
        "open_bank": ("open a bank account named {account} with the password {pw} for {name}",
                      "I'd like a new bank account: account {account}, password {pw}, holder {name}",
                      "set up bank account {account} (password {pw}) in the name of {name}"),
        "then": ("Then", "Also", "After that", "Next"),
        "and": (" and ",),
        "device": ("the {name} ({description})",),
        "reading": ("{word} {value}{unit}",),
        "on": ("on",), "off": ("off",),
        "rooms": ("one room", "two rooms"),
        "adults": ("one adult", "two adults", "three adults", "four adults"),
        "children": ("", " and one child", " and two children"),
        # Requests no tool serves (ACEBench's irrelevant special case).
        "irrelevant": ("what will the weather be in Lisbon tomorrow?", "order me a large pepperoni pizza",
                       "transfer 200 dollars from my bank account to bob", "book me a taxi to the airport",
                       "how many steps did I walk last week?", "buy 10 shares of TWRL for me"),
        # Requests missing a detail a tool needs (ACEBench's incomplete special case).
        "incomplete_alarm": ("set an alarm for me", "I need an alarm, please"),
        "incomplete_reminder": ("remind me to {content_lower}", "add a reminder '{content}'"),
        "incomplete_hotel": ("book {rooms} at {hotel} from {day} for {adults}",
                             "I need {rooms} at {hotel}, checking in on {day}, for {adults}"),
        "incomplete_appointment": ("book me an appointment with {doctor}; I'm {patient}",
                                   "register {patient} to see {doctor}"),
        # Requests with a value that cannot be right (ACEBench's error special case).
        "error_hotel": ("book {rooms} at {hotel} from {bad} to {until} for {adults}",
                        "reserve {hotel} for {adults}, {rooms}, checking in {bad} and out {until}"),
        "error_appointment": ("book me an appointment with {doctor} on {bad}; I'm {patient}",
                              "register {patient} to see {doctor} on {bad}"),
    }),
    "zh": MappingProxyType({
        "identity": ("我的用户名是{user}，密码是{pw}。", "我是{user}（密码{pw}）。", "用{user}登录，密码{pw}。",
                     "你好，我是{user}，密码是{pw}。"),
        "newcomer": ("我是新用户：请帮我注册账号{user}，密码{pw}，邮箱{email}。",
                     "帮我注册一个账号：用户名{user}，密码{pw}，邮箱{email}。",
                     "新建一个账号{user}，密码{pw}，邮箱{email}，后面的事都用这个账号办。"),
        "forgot": ("我是{user}，忘了密码，我的邮箱是{email}，请把密码重置为{new}。",
                   "我想不起密码了。用户名{user}，邮箱{email}，请设置新密码：{new}。",
                   "请把{user}（邮箱{email}）的密码重置成{new}，旧密码找不到了。"),
        "add_agenda": ("在我的日程里加上{when}在{location}的“{content}”", "把{when}的{content}（{location}）加进日程",
                       "在日程里安排一下：{when}，{location}，{content}"),
        "delete_agenda": ("把“{content}”从我的日程里删掉", "删除日程“{content}”", "把日程里的{content}删掉，不用了"),
        "delete_agenda_full": ("删除日程：{when}在{location}的“{content}”",
                               "把{when}{location}的{content}从日程里删除"),
        "move_agenda": ("把日程里的“{content}”改到{new}", "把日程“{content}”的时间改成{new}", "把{content}推到{new}"),
        "move_agenda_full": ("把日程里{location}的“{content}”改到{new}，地点不变", "把{location}的{content}改到{new}"),
        "add_alarm": ("定一个{when}的闹钟", "{when}叫我起床", "帮我设个闹钟，{when}"),
        "delete_alarm": ("删掉{when}的闹钟", "取消{when}那个闹钟", "{when}的闹钟不需要了，删了吧"),
        "move_alarm": ("把{when}的闹钟改到{new}", "{when}的闹钟调到{new}", "闹钟从{when}挪到{new}"),
        "add_reminder": ("{when}提醒我{content}", "加一个提醒：{when}，“{content}”", "设个提醒“{content}”，时间{when}"),
        "delete_reminder": ("删除{when}的提醒“{content}”", "把{when}那个“{content}”的提醒删掉",
                            "取消{when}提醒我{content}的那条"),
        "move_reminder": ("把提醒“{content}”改到{new}", "“{content}”这条提醒改成{new}",
                          "把提醒我{content}的那条换到{new}"),
        "add_meeting": ("预约一个会议“{topic}”，{when}到{end}，地点{room}，参会人{people}",
                        "帮我安排“{topic}”，和{people}，在{room}，{when}开始{end}结束",
                        "订个会：{topic}，{room}，{when}至{end}，邀请{people}"),
        "delete_meeting": ("取消我的会议“{topic}”", "“{topic}”那个会不开了，删掉", "删除关于{topic}的会议"),
        "move_meeting": ("把会议“{topic}”改到{new}，{end}结束", "“{topic}”改期到{new}至{end}",
                         "把会议“{topic}”调整为{new}开始、{end}结束"),
        "password": ("把我的密码改成{new}", "我想换个新密码：{new}", "把密码更新为{new}"),
        "delete_account": ("把我的账号注销掉", "彻底删除我的账号", "我要注销账号"),
        "book_hotel": ("在{hotel}订{rooms}，{day}入住，{until}退房，{adults}{children}",
                       "帮我订{hotel}：{rooms}，{day}到{until}，{adults}{children}",
                       "预订{hotel}{rooms}，入住{day}，离店{until}，{adults}{children}"),
        "register_appointment": ("帮我挂{day}{doctor}的号，我叫{patient}", "给{patient}预约{day}看{doctor}",
                                 "预约{doctor}，{day}，病人{patient}"),
        "cancel_appointment": ("取消{patient}{day}的预约", "{patient}{day}去不了了，把那个预约取消",
                               "把{patient}在{day}的挂号退掉"),
        "move_appointment": ("把{patient}{day}的预约改到{until}", "{patient}原定{day}的预约改成{until}",
                             "{patient}的预约从{day}改到{until}"),
        "health": ("记录我的健康数据，病人编号{pid}：{when}，{data}", "给{pid}记一下{when}测的{data}",
                   "保存{pid}在{when}的数据：{data}"),
        "add_scene": ("新建一个“{scene}”场景，包括{devices}", "添加智能家居场景“{scene}”：{devices}",
                      "用{devices}设置一个场景“{scene}”"),
        "extend_scene": ("把{device}加到“{scene}”场景里", "“{scene}”场景也加上{device}",
                         "在场景“{scene}”里加入{device}"),
        "delete_scene": ("删除“{scene}”场景", "把智能家居场景“{scene}”删掉", "“{scene}”场景不用了，删了吧"),
        "switch": ("{when}把{device}{state}", "定时{when}{state}{device}", "设置{device}在{when}{state}"),
        "cancel_switch": ("取消{device}在{when}的定时", "删掉{device}{when}的定时开关",
                          "取消{device}{when}的定时，不用了"),
        "open_bank": ("开一个银行账户，账户名{account}，密码{pw}，户名{name}",
                      "我要开新银行账户：账户{account}，密码{pw}，户主{name}",
                      "以{name}的名义开银行账户{account}（密码{pw}）"),
        "then": ("然后", "接着", "之后", "另外"),
        "and": ("和",),
        "device": ("{name}（{description}）",),
        "reading": ("{word}{value}{unit}",),
        "on": ("打开",), "off": ("关掉",),
        "rooms": ("一间房", "两间房"),
        "adults": ("一个大人", "两个大人", "三个大人", "四个大人"),
        "children": ("", "加一个小孩", "加两个小孩"),
        "irrelevant": ("明天里斯本天气怎么样？", "给我点一份大号意式香肠披萨", "从我的银行账户给bob转200块",
                       "帮我叫一辆去机场的出租车", "我上周走了多少步？", "帮我买10股TWRL"),
        "incomplete_alarm": ("帮我定个闹钟", "我需要一个闹钟"),
        "incomplete_reminder": ("提醒我{content}", "加一个提醒“{content}”"),
        "incomplete_hotel": ("在{hotel}订{rooms}，{day}入住，{adults}", "帮我订{hotel}{rooms}，{day}起，{adults}"),
        "incomplete_appointment": ("帮我挂{doctor}的号，我叫{patient}", "给{patient}预约{doctor}"),
        "error_hotel": ("在{hotel}订{rooms}，{bad}入住，{until}退房，{adults}",
                        "预订{hotel}{rooms}，入住{bad}，离店{until}，{adults}"),
        "error_appointment": ("帮我挂{bad}{doctor}的号，我叫{patient}", "给{patient}预约{bad}看{doctor}"),
    }),
})

USERS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "en": ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "henry", "irene", "jack", "kate", "liam"),
    "zh": ("wangfang", "lina", "zhangwei", "liuyang", "chenjing", "yanglei", "zhaomin", "huangqiang", "zhouting",
           "wuhao", "xuli", "sunjie"),
})
PEOPLE: Mapping[str, tuple[str, ...]] = MappingProxyType({  # patients and bank account holders
    "en": ("Alice Moreira", "Bob Halvorsen", "Carol Diaz", "Dave Kim", "Erin Walsh", "Frank Osei", "Grace Lin"),
    "zh": ("王芳", "李娜", "张伟", "刘洋", "陈静", "杨磊", "赵敏"),
})
AGENDA: Mapping[str, tuple[tuple[str, str], ...]] = MappingProxyType({
    "en": (("Dentist check-up", "Main Street Clinic"), ("Book club", "City Library"), ("Piano lesson", "Music School"),
           ("Car inspection", "North Garage"), ("Parents' evening", "Greenfield School"), ("Yoga class", "Studio 5"),
           ("Team lunch", "Harbour Cafe"), ("Haircut", "Barber on 3rd"), ("Tennis match", "Riverside Courts")),
    "zh": (("看牙医", "中山路诊所"), ("读书会", "市图书馆"), ("钢琴课", "音乐学校"), ("汽车年检", "北区修理厂"),
           ("家长会", "实验小学"), ("瑜伽课", "5号工作室"), ("团队午餐", "海港咖啡"), ("理发", "街角理发店"),
           ("网球赛", "江边球场")),
})
REMINDERS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "en": ("Pay the electricity bill", "Call the bank", "Buy a birthday card", "Take the medicine", "Send the report",
           "Feed the cat", "Water the plants", "Renew the passport", "Book the train tickets"),
    "zh": ("交电费", "给银行打电话", "买生日贺卡", "吃药", "发周报", "喂猫", "给花浇水", "续办护照", "订火车票"),
})
TOPICS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "en": ("Quarterly planning", "Design review", "Hiring sync", "Budget review", "Customer call", "Offsite prep",
           "Sprint retro", "Product demo"),
    "zh": ("季度规划", "设计评审", "招聘沟通", "预算评审", "客户电话会", "团建筹备", "迭代复盘", "产品演示"),
})
ROOMS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "en": ("Room 1", "Room 2", "Room 3", "Board room"),
    "zh": ("1号会议室", "2号会议室", "3号会议室", "大会议室"),
})
SCENES: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "en": ("movie night", "wake up", "dinner party", "reading", "leaving home", "bedtime"),
    "zh": ("观影模式", "起床模式", "晚宴模式", "阅读模式", "离家模式", "睡眠模式"),
})
# (device name, description): names are what the smart home calls them, the same in both languages.
DEVICES: Mapping[str, tuple[tuple[str, str], ...]] = MappingProxyType({
    "en": (("lamp", "Dimmable lamp by the sofa"), ("projector", "Ceiling projector"), ("blinds", "Bedroom blinds"),
           ("speaker", "Living room speaker"), ("kettle", "Kitchen kettle"), ("heater", "Hall heater"),
           ("fan", "Ceiling fan")),
    "zh": (("台灯", "沙发旁的调光台灯"), ("投影仪", "吊顶投影仪"), ("窗帘", "卧室窗帘"), ("音箱", "客厅音箱"),
           ("电水壶", "厨房电水壶"), ("暖气", "门厅暖气"), ("吊扇", "客厅吊扇")),
})
HOTELS = ("Seaview Inn", "Grand Plaza", "Lakeside Lodge", "City Central Hotel", "Hilltop Suites")
DOCTORS = ("Dr. Lund", "Dr. Okafor", "Dr. Chen", "Dr. Rossi", "Dr. Patel")
# Health readings: (the name the record gets, what the user calls it, unit, low, high). The name is the user's
# words as RecordHealthData's own example writes them (`heart_rate` for "heart rate"; in Chinese the words
# themselves, like every record a Chinese user writes), so the instruction says what the call records.
METRICS: Mapping[str, tuple[tuple[str, str, str, int, int], ...]] = MappingProxyType({
    "en": (("heart_rate", "heart rate", " bpm", 55, 110), ("steps", "steps", "", 2000, 15000),
           ("weight", "weight", " kg", 50, 100), ("sleep", "sleep", " hours", 4, 10)),
    "zh": (("心率", "心率", "次/分", 55, 110), ("步数", "步数", "步", 2000, 15000),
           ("体重", "体重", "公斤", 50, 100), ("睡眠", "睡眠", "小时", 4, 10)),
})
PASSWORD_WORDS = ("blue", "sun", "oak", "jazz", "maple", "river", "comet", "pearl")

# Chinese punctuation the generator joins requests with.
ZH_COMMA, ZH_STOP, ZH_QUESTION = "，", "。", "？"
