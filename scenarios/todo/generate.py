"""Generated to-do tasks: a list of a few chores per task, and requests about them in en and zh.

Levels (`scenarios.generation.LEVELS`): 1 one request, the task named with its number; 2 two
requests, tasks named by their titles only (the agent lists the tasks first); 3 a new task then
acted on (its id is the add's output) and two more requests; 4 two dependent requests and one
more, with an unrelated tool in reach (every to-do tool is always offered, so the distractors are
the tools not needed); 5 three and two, and one candidate in twenty one of ACEBench's special cases
(a new to-do without its title, a tag without its name, a due date that does not exist, a request no
to-do tool serves), scored by its one reply as banking's are. From 4 on the requests are written as
one message (`scenarios.generation.one_request`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sandbox import Call, World

from ..generation import Candidate, draws_special, one_request, special_category
from ..world_tasks import WorldTask, world_task
from .app import todo_world
from .phrases import CHORES, IMPOSSIBLE_DAYS, SAY, TAGS, ZH_COMMA, ZH_QUESTION, ZH_STOP

VERSION = "2"

@dataclass
class _Draft:
    rng: random.Random
    lang: str
    difficulty: int
    tasks: list[dict[str, Any]] = field(default_factory=list)
    next_id: int = 1
    messages: list[tuple[Call, ...]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        titles = self.rng.sample(CHORES[self.lang], self.rng.randrange(3, 7))
        for number, title in enumerate(titles, start=1):
            self.tasks.append({"id": number, "title": title, "status": self.rng.choice(("open", "open", "done")),
                               "tags": [self.rng.choice(TAGS[self.lang])] if self.rng.random() < 0.4 else [],
                               "due": None, "created": "2024-07-01T09:00:00"})
        self.next_id = len(titles) + 1
        self.initial = {"Todo": {"tasks": [dict(t, tags=list(t["tags"])) for t in self.tasks],
                                 "next_id": self.next_id}}
        self.phrases = SAY[self.lang]

    def say(self, key: str, **values: Any) -> str:
        return self.rng.choice(self.phrases[key]).format(**values)

    def name(self, task: dict[str, Any]) -> str:
        if self.difficulty == 1:
            return self.say("numbered", id=task["id"], title=task["title"])
        return self.say("task", title=task["title"])

    def unused_title(self) -> str | None:
        taken = {t["title"] for t in self.tasks}
        free = [t for t in CHORES[self.lang] if t not in taken]
        return self.rng.choice(free) if free else None

    def _add(self, title: str, tags: list[str], due: str | None) -> dict[str, Any]:
        arguments: dict[str, Any] = {"title": title}
        if tags:
            arguments["tags"] = tags
        if due:
            arguments["due"] = due
        self.messages.append((Call("add_task", arguments),))
        task = {"id": self.next_id, "title": title, "status": "open", "tags": list(tags), "due": due}
        self.next_id += 1
        self.tasks.append(task)
        return task

    # -- requests -------------------------------------------------------------------------

    def add(self) -> bool:
        title = self.unused_title()
        if title is None:
            return False
        roll = self.rng.random()
        if roll < 0.35:
            tag = self.rng.choice(TAGS[self.lang])
            self._add(title, [tag], None)
            self.requests.append(self.say("add_tag", title=title, tag=tag))
        elif roll < 0.7:
            day = f"2024-{self.rng.choice((7, 8)):02d}-{self.rng.randrange(15, 29):02d}"
            self._add(title, [], day)
            self.requests.append(self.say("add_due", title=title, due=day))
        else:
            self._add(title, [], None)
            self.requests.append(self.say("add", title=title))
        return True

    def move(self, tool: str, key: str, before: tuple[str, ...], after: str) -> bool:
        choices = [t for t in self.tasks if t["status"] in before and not t.get("new")]
        if not choices:
            return False
        task = self.rng.choice(choices)
        self.messages.append((Call(tool, {"task_id": task["id"]}),))
        self.requests.append(self.say(key, task=self.name(task)))
        task["status"] = after
        return True

    def delete(self) -> bool:
        choices = [t for t in self.tasks if not t.get("new")]
        if len(choices) < 2:
            return False
        task = self.rng.choice(choices)
        self.messages.append((Call("delete_task", {"task_id": task["id"]}),))
        self.requests.append(self.say("delete", task=self.name(task)))
        self.tasks.remove(task)
        return True

    def tag(self) -> bool:
        tag = self.rng.choice(TAGS[self.lang])
        choices = [t for t in self.tasks if tag not in t["tags"] and t["status"] != "archived"]
        if len(choices) < 2:
            return False
        chosen = self.rng.sample(choices, 2)
        self.messages.append((Call("tag_tasks", {"task_ids": [t["id"] for t in chosen], "tag": tag}),))
        for task in chosen:
            task["tags"].append(tag)
        said = self.rng.choice(self.phrases["and"]).join(self.name(t) for t in chosen)
        self.requests.append(self.say("tag", tasks=said, tag=tag))
        return True

    def add_done(self) -> bool:
        title = self.unused_title()
        if title is None:
            return False
        task = self._add(title, [], None)
        task["new"] = True
        self.messages.append((Call("complete_task", {"task_id": task["id"]}),))
        task["status"] = "done"
        self.requests.append(self.say("add_done", title=title))
        return True

    def add_tagged_with(self) -> bool:
        title = self.unused_title()
        tag = self.rng.choice(TAGS[self.lang])
        others = [t for t in self.tasks if tag not in t["tags"] and not t.get("new")]
        if title is None or not others:
            return False
        other = self.rng.choice(others)
        task = self._add(title, [], None)
        task["new"] = True
        self.messages.append((Call("tag_tasks", {"task_ids": [task["id"], other["id"]], "tag": tag}),))
        task["tags"].append(tag)
        other["tags"].append(tag)
        self.requests.append(self.say("add_tagged_with", title=title, tag=tag, task=self.name(other)))
        return True

    def write(self) -> Candidate | None:
        simple: list[Callable[[], bool]] = [
            self.add, self.delete, self.tag,
            lambda: self.move("complete_task", "complete", ("open",), "done"),
            lambda: self.move("reopen_task", "reopen", ("done",), "open"),
            lambda: self.move("archive_task", "archive", ("open", "done"), "archived"),
        ]
        compound: list[Callable[[], bool]] = [self.add_done, self.add_tagged_with]
        plan = {1: [simple], 2: [simple, simple], 3: [compound, simple, simple], 4: [compound, compound, simple],
                5: [compound, compound, compound, simple, simple]}[self.difficulty]
        for choices in self.rng.sample(plan, len(plan)):
            if not self.rng.choice(choices)():
                return None
        opening: list[tuple[Call, ...]] = []
        if self.difficulty >= 2:
            opening.append((Call("list_tasks", {}),))
        expect = {"Todo.next_id": self.next_id}
        for index, task in enumerate(self.tasks):
            expect[f"Todo.tasks.{index}.title"] = task["title"]
            expect[f"Todo.tasks.{index}.status"] = task["status"]
            expect[f"Todo.tasks.{index}.tags"] = task["tags"]
        return Candidate("multi_step", self.question(), ("Todo",), self.initial, tuple(opening + self.messages), expect)

    def special(self) -> Candidate:
        """One of ACEBench's special cases about this list: a new to-do without its title or a tag without its
        name (a detail missing), a due date that does not exist (a wrong value), or a request no to-do tool
        serves (sharing the list, the weather, an alarm)."""
        category = special_category(self.rng, 0.4, 0.7)
        day = f"2024-{self.rng.choice((7, 8)):02d}-{self.rng.randrange(15, 29):02d}"
        answer: dict[str, list[str]] = {}
        if category == "special_incomplete":
            if self.rng.random() < 0.5:
                request, answer = self.say("incomplete_title", due=day), {"add_task": ["title"]}
            else:
                said = self.rng.choice(self.phrases["and"]).join(self.name(t) for t in self.rng.sample(self.tasks, 2))
                request, answer = self.say("incomplete_tag", tasks=said), {"tag_tasks": ["tag"]}
        elif category == "special_error_param":
            bad = self.rng.choice(IMPOSSIBLE_DAYS)
            request, answer = self.say("error_due", title=self.unused_title() or CHORES[self.lang][0], bad=bad), \
                {"due": [bad]}
        else:
            request = self.say("irrelevant")
        self.requests = [request]
        return Candidate(category, self.question(), ("Todo",), self.initial, special=answer)

    def question(self) -> str:
        if self.difficulty >= 4:
            return one_request(self.requests, self.lang, self.rng)
        if self.lang == "zh":
            first = self.requests[0]
            body = ("请" if first.startswith(("把", "给", "删", "添", "新", "记", "在")) else "") + first
            for request in self.requests[1:]:
                body += ZH_COMMA + self.rng.choice(self.phrases["then"]) + request
            return body + ("" if body.endswith(ZH_QUESTION) else ZH_STOP)
        sentences = [self.requests[0]] + [self.rng.choice(self.phrases["then"]).strip() + " " + r
                                          for r in self.requests[1:]]
        return " ".join(s[0].upper() + s[1:] + ("" if s.endswith((".", "!", "?")) else ".") for s in sentences)


@dataclass(frozen=True)
class TodoGenerator:
    """The to-do list's `scenarios.generation.TaskGenerator`."""

    family: str = "todo"
    version: str = VERSION
    languages: tuple[str, ...] = ("en", "zh")

    def propose(self, rng: random.Random, difficulty: int, lang: str) -> Candidate:
        special = draws_special(rng, difficulty)
        while True:
            draft = _Draft(rng, lang, difficulty)
            if special:
                return draft.special()
            candidate = draft.write()
            if candidate is not None:
                return candidate

    def world(self, candidate: Candidate, lang: str) -> World:
        world = todo_world()
        world.load(candidate.config)
        return world

    def end_state(self, world: World, candidate: Candidate) -> Any:
        return world.state()

    def task(self, record: Mapping[str, Any], functions: list[dict[str, Any]], lang: str) -> WorldTask:
        return world_task(record, functions, lang, "todo", todo_world)


GENERATOR = TodoGenerator()
