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
        "add_done": ("add '{title}' and mark it done straight away (I already did it)",
                     "log '{title}' as a finished task"),
        "add_tagged_with": ("add '{title}' and tag it {tag} together with {task}",
                            "put '{title}' on my list and label both it and {task} {tag}"),
        "task": ("'{title}'", "the '{title}' task"),
        "numbered": ("task {id} ('{title}')", "'{title}' (number {id})"),
        "then": (" Then ", " Also, ", " After that, "),
        "and": (" and ",),
        "incomplete_title": ("add a new task to my list", "put something on my to-do list for {due}",
                             "I need a new to-do, due {due}", "can you add a to-do for me?"),
        "incomplete_tag": ("tag {tasks}", "put a label on {tasks}", "group {tasks} under one tag"),
        "error_due": ("add '{title}' to my list, due {bad}", "put '{title}' on my list for {bad}",
                      "I have to do '{title}' by {bad}, add it"),
        "irrelevant": ("share my to-do list with Sam", "what's the weather like tomorrow?",
                       "set an alarm for 7 am", "print my to-do list", "email my list to my boss",
                       "remind me with a phone call at noon"),
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
        "add_done": ("添加“{title}”并直接标记完成（我已经做了）", "记一条已完成的待办“{title}”"),
        "add_tagged_with": ("添加“{title}”，并把它和{task}一起标上{tag}",
                            "新建“{title}”，再给它和{task}都加上{tag}标签"),
        "task": ("“{title}”", "“{title}”这项"),
        "numbered": ("第{id}项（{title}）", "“{title}”（编号{id}）"),
        "then": ("然后", "另外", "之后"),
        "and": ("和",),
        "incomplete_title": ("帮我加一条新的待办", "在待办清单上加点东西，{due}前要做完", "我要新建一个待办，截止{due}",
                             "能帮我添加一个待办吗？"),
        "incomplete_tag": ("给{tasks}打个标签", "把{tasks}归到同一个标签下", "给{tasks}都加上标签"),
        "error_due": ("把“{title}”加到待办里，截止{bad}", "添加待办“{title}”，{bad}前完成",
                      "“{title}”要在{bad}之前做完，帮我记上"),
        "irrelevant": ("把我的待办清单分享给小明", "明天天气怎么样？", "定一个早上七点的闹钟", "把待办清单打印出来",
                       "把清单用邮件发给老板", "中午打电话提醒我"),
    }),
})

ZH_COMMA, ZH_STOP, ZH_QUESTION = "，", "。", "？"
IMPOSSIBLE_DAYS = ("2024-02-30", "2024-06-31", "2024-13-05", "2024-09-31", "2024-04-31", "2024-08-32")


# The words a user has for each tool, for generated tasks of this world run as any world
# (`toolworlds generate world:scenarios.todo.app:todo_world`, `scenarios.any_world`): paraphrases per
# language, a `{parameter}` slot taking the value as the user says it (a task by its title).
TASK_PHRASES: Mapping[str, Mapping[str, tuple[str, ...]]] = MappingProxyType({
    "en": MappingProxyType({
        "add_task": ("add {title} to my list", "put {title} on my to-do list", "I need a new to-do: {title}",
                     "add {title} to my list, due {due}", "put {title} on my list for {due}",
                     "add {title} to my list, tagged {tags}", "put {title} on my list under {tags}",
                     "add {title}, tagged {tags} and due {due}", "add a new to-do to my list",
                     "I need a new to-do, due {due}", "add a new to-do tagged {tags}",
                     "add a new to-do tagged {tags}, due {due}"),
        "complete_task": ("mark {task_id} as done", "I finished {task_id}, tick it off", "{task_id} is done"),
        "reopen_task": ("{task_id} isn't actually finished, reopen it", "reopen {task_id}"),
        "archive_task": ("archive {task_id}", "I don't need to see {task_id} any more, archive it"),
        "delete_task": ("delete {task_id}", "remove {task_id} from the list for good"),
        "tag_tasks": ("tag {task_ids} as {tag}", "label {task_ids} with {tag}"),
    }),
    "zh": MappingProxyType({
        "add_task": ("把{title}加到待办里", "在待办清单上加一条{title}", "新建一个待办：{title}",
                     "添加待办{title}，截止{due}", "把{title}加进清单，{due}前完成", "把{title}加到待办，标签是{tags}",
                     "新建待办{title}，归到{tags}", "添加待办{title}，标签{tags}，{due}前完成", "帮我加一条新的待办",
                     "新建一个待办，{due}前完成", "加一条标签是{tags}的待办",
                     "加一条标签是{tags}的待办，{due}前完成"),
        "complete_task": ("把{task_id}标记为完成", "{task_id}做完了，勾掉吧", "{task_id}已经完成了"),
        "reopen_task": ("{task_id}其实还没做完，重新打开", "把{task_id}恢复成未完成"),
        "archive_task": ("把{task_id}归档", "{task_id}不用再显示了，归档吧"),
        "delete_task": ("删除{task_id}", "把{task_id}从清单里彻底删掉"),
        "tag_tasks": ("给{task_ids}打上{tag}标签", "把{task_ids}标成{tag}"),
    }),
})
