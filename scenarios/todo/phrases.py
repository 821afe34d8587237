"""What a to-do list's owner asks, in en and zh: chores, tags, and several paraphrases per request."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

CHORES: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "en": ("Buy milk", "Call the plumber", "Book a dentist appointment", "Renew the car insurance", "Water the plants",
           "Pay the phone bill", "Pick up the dry cleaning", "Send the tax forms", "Fix the bike tyre",
           "Return the library books", "Plan Sam's birthday", "Clean the fridge", "Order printer ink",
           "Email the landlord", "Back up the laptop"),
    "zh": ("买牛奶", "给水管工打电话", "预约牙医", "续保车险", "给花浇水", "交话费", "取干洗的衣服", "寄税表",
           "修自行车胎", "还图书馆的书", "筹备小明的生日", "清洁冰箱", "买打印机墨盒", "给房东发邮件",
           "备份笔记本电脑"),
})
TAGS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "en": ("home", "work", "urgent", "errands", "money"), "zh": ("家务", "工作", "紧急", "跑腿", "财务"),
})
SAY: Mapping[str, Mapping[str, tuple[str, ...]]] = MappingProxyType({
    "en": MappingProxyType({
        "add": ("add '{title}' to my list", "put '{title}' on my to-do list", "remind me to do this: '{title}'"),
        "add_tag": ("add '{title}' to my list, tagged {tag}", "put '{title}' on my list under {tag}"),
        "add_due": ("add '{title}', due {due}", "put '{title}' on my list for {due}"),
        "complete": ("mark {task} as done", "I finished {task}, tick it off", "{task} is done"),
        "reopen": ("{task} isn't actually finished, reopen it", "reopen {task}"),
        "archive": ("archive {task}", "I don't need to see {task} any more, archive it"),
        "delete": ("delete {task}", "remove {task} from the list for good"),
        "tag": ("tag {tasks} as {tag}", "label {tasks} with {tag}"),
        "add_done": ("add '{title}' and mark it done straight away, I already did it",
                     "log '{title}' as a finished task"),
        "add_tagged_with": ("add '{title}' and tag it {tag} together with {task}",
                            "put '{title}' on my list and label both it and {task} {tag}"),
        "task": ("'{title}'", "the '{title}' task"),
        "numbered": ("task {id} ('{title}')", "'{title}' (number {id})"),
        "then": (" Then ", " Also, ", " After that, "),
        "and": (" and ",),
    }),
    "zh": MappingProxyType({
        "add": ("把“{title}”加到待办里", "在待办清单上加一条“{title}”", "记一下：{title}"),
        "add_tag": ("把“{title}”加到待办，标签是{tag}", "新建待办“{title}”，归到{tag}"),
        "add_due": ("添加待办“{title}”，截止{due}", "把“{title}”加进清单，{due}前完成"),
        "complete": ("把{task}标记为完成", "{task}做完了，勾掉吧", "{task}已经完成了"),
        "reopen": ("{task}其实还没做完，重新打开", "把{task}恢复成未完成"),
        "archive": ("把{task}归档", "{task}不用再显示了，归档吧"),
        "delete": ("删除{task}", "把{task}从清单里彻底删掉"),
        "tag": ("给{tasks}打上“{tag}”标签", "把{tasks}都标成{tag}"),
        "add_done": ("添加“{title}”并直接标记完成，我已经做了", "记一条已完成的待办“{title}”"),
        "add_tagged_with": ("添加“{title}”，并把它和{task}一起标上{tag}",
                            "新建“{title}”，再给它和{task}都加上{tag}标签"),
        "task": ("“{title}”", "“{title}”这项"),
        "numbered": ("第{id}项（{title}）", "“{title}”（编号{id}）"),
        "then": ("然后", "另外", "之后"),
        "and": ("和",),
    }),
})

ZH_COMMA, ZH_STOP = "，", "。"
