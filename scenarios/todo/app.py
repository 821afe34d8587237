"""The to-do app: tasks with a small lifecycle (open, done, archived)."""

from __future__ import annotations

from typing import Annotated, Literal, cast

from pydantic import Field
from typing_extensions import TypedDict

from sandbox import App, Lifecycle, Ref, StateModel, ToolError, World, tool

from .phrases import TASK_PHRASES as TASK_PHRASES  # this world's words for its tools (`scenarios.any_world`)

task_lifecycle = Lifecycle(
    "task",
    states=["open", "done", "archived"],
    transitions=[
        ("complete", "open", "done"),
        ("reopen", "done", "open"),
        ("archive", ["open", "done"], "archived"),
    ],
    initial="open",
    tools={"complete": "complete_task", "reopen": "reopen_task", "archive": "archive_task"},
)


TaskState = Literal["open", "done", "archived"]


class Task(StateModel):
    id: int
    title: str
    status: Literal["open", "done", "archived"] = "open"
    tags: list[str] = []
    due: str | None = None
    created: str = ""


class TodoState(StateModel):
    tasks: list[Task] = []
    next_id: int = 1


class TaskStatus(TypedDict):
    """A task's id and its status after the call."""

    id: int
    status: TaskState


class TaskLine(TypedDict):
    """One task as `list_tasks` shows it."""

    id: int
    title: str
    status: TaskState
    due: str | None


class Tagged(TypedDict):
    tagged: list[int]


# A task's id: what the tools' `task_id` names in the state.
TaskId = Annotated[int, Ref("Todo", "tasks", "id")]


class TodoApp(App[TodoState]):
    """A personal to-do list."""

    app_name = "Todo"

    def _find(self, task_id: int) -> Task:
        for task in self.state.tasks:
            if task.id == task_id:
                return task
        raise ToolError(f"no task with id {task_id}", code="not_found")

    def _move(self, task_id: int, trigger: str) -> TaskStatus:
        task = self._find(task_id)
        return {"id": task.id, "status": cast(TaskState, task_lifecycle.fire(task, trigger))}

    @tool(destructive=False)
    def add_task(
        self,
        title: Annotated[str, Field(min_length=1, max_length=200)],
        tags: list[str] | None = None,
        due: str | None = None,
    ) -> TaskStatus:
        """Add a task to the list.

        Args:
            title: What needs doing.
            tags: Labels for grouping, e.g. ["home"].
            due: Due date as YYYY-MM-DD.
        """
        state = self.state
        task = Task(id=state.next_id, title=title, tags=tags or [], due=due,
                    created=self.world.clock.now().isoformat())
        state.next_id += 1
        state.tasks.append(task)
        return {"id": task.id, "status": task.status}

    @tool(mutates=False)
    def list_tasks(self, status: Literal["open", "done", "archived"] | None = None) -> list[TaskLine]:
        """List tasks, optionally only those with a given status.

        Args:
            status: Only tasks with this status.
        """
        return [
            {"id": t.id, "title": t.title, "status": t.status, "due": t.due}
            for t in self.state.tasks
            if status is None or t.status == status
        ]

    @tool(mutates=False)
    def get_task(self, task_id: TaskId) -> Task:
        """Show one task with all its details.

        Args:
            task_id: The task's id.
        """
        return self._find(task_id)

    @tool(idempotent=True)
    def complete_task(self, task_id: TaskId) -> TaskStatus:
        """Mark an open task as done.

        Args:
            task_id: The task's id.
        """
        return self._move(task_id, "complete")

    @tool(idempotent=True)
    def reopen_task(self, task_id: TaskId) -> TaskStatus:
        """Reopen a task that was marked done.

        Args:
            task_id: The task's id.
        """
        return self._move(task_id, "reopen")

    @tool(idempotent=True)
    def archive_task(self, task_id: TaskId) -> TaskStatus:
        """Archive a task so it no longer shows as open work.

        Args:
            task_id: The task's id.
        """
        return self._move(task_id, "archive")

    @tool(destructive=False, idempotent=True)
    def tag_tasks(self, task_ids: list[TaskId], tag: Annotated[str, Field(min_length=1)]) -> Tagged:
        """Add a tag to several tasks at once; nothing changes if any id is unknown.

        Args:
            task_ids: The tasks to tag.
            tag: The tag to add.
        """
        tagged = []
        for task_id in task_ids:
            task = self._find(task_id)
            if tag not in task.tags:
                task.tags.append(tag)
            tagged.append(task_id)
        return {"tagged": tagged}

    @tool(idempotent=True)
    def delete_task(self, task_id: TaskId) -> str:
        """Delete a task for good.

        Args:
            task_id: The task's id.
        """
        task = self._find(task_id)
        self.state.tasks.remove(task)
        return f"deleted task {task_id}"


def todo_world(*, seed: int = 0, tasks: int = 0) -> World:
    """A to-do world, optionally pre-filled with `tasks` numbered tasks."""
    state = TodoState(
        tasks=[Task(id=i, title=f"task {i}", tags=["seed"]) for i in range(1, tasks + 1)],
        next_id=tasks + 1,
    )
    return World([TodoApp(state)], seed=seed)

