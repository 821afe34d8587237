"""A tiny to-do list world: the example used by the README, the docs and the engine tests."""

from .app import Task, TodoApp, TodoState, task_lifecycle, todo_world

__all__ = ["Task", "TodoApp", "TodoState", "task_lifecycle", "todo_world"]
