"""Decision frames of Granada: the stack of decisions under way, and the registry of the
handlers that run them (issue 32: stored games name a handler by a registered, versioned
name, never by the file it lives in). The rules modules reach these through
:mod:`engine.granada.state` (``st.push_frame``...), where they were first written."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from engine.api import RuleError, State, clone


def deep_copy(value: Any) -> Any:
    """A deep copy of a small JSON value (a decision frame, "boabdil"...): for a kilobyte of
    nested frames, faster than a marshal round trip (:func:`engine.api.clone`), which builds
    every string anew. Each container is copied whole at C speed, then only its nested
    containers are replaced. A call is a thousand instructions, most of this copy (issue
    33): an empty container is replaced without one, and a dict's dicts (a battle frame's
    per-side impacts, deployed blocks, losses...) are copied here, one level down, rather
    than by a call each. What apply copies a frame with (engine.granada._StepState)."""
    cls = value.__class__
    if cls is dict:
        out = value.copy()
        for k, v in value.items():
            cls = v.__class__
            if cls is dict:
                if v:
                    inner = out[k] = v.copy()
                    for k2, v2 in v.items():
                        cls = v2.__class__
                        if cls is dict or cls is list:
                            inner[k2] = deep_copy(v2) if v2 else cls()
                else:
                    out[k] = {}
            elif cls is list:
                out[k] = deep_copy(v) if v else []
        return out
    if cls is list:
        out_list = value[:]
        for i, v in enumerate(value):
            cls = v.__class__
            if cls is dict or cls is list:
                out_list[i] = deep_copy(v)
        return out_list
    return clone(value)


def handler_name(name: str, version: int = 1) -> str:
    """The name frames store for version ``version`` of the handler ``name``: the bare name
    for version 1 (every frame stored before names were versioned is one), ``name@n`` after."""
    if not name or "@" in name:
        raise ValueError(f"a handler name is a plain word, not {name!r}")
    if version < 1:
        raise ValueError(f"a handler's version starts at 1, not {version}")
    return name if version == 1 else f"{name}@{version}"


HANDLERS: dict[str, str] = {handler_name(name): f"engine.granada.{name}" for name in (
    "sequence", "muster", "movement", "naval", "special", "extras", "battle", "siege", "seabattle")}
"""Registered frame handler name (what ``frame["module"]`` holds) -> the module handling it.
The names are part of every stored game; the modules are not: moving a handler to another
file changes only its entry here."""

RENAMED: dict[str, str] = {}
"""A name stored games may hold that is no longer registered -> the registered name taking
its frames (a handler renamed keeps its old frames readable)."""

_HANDLERS: dict[str, ModuleType] = {}


def register_handler(name: str, module: str, version: int = 1) -> str:
    """Register (or move) a frame handler: frames naming ``name`` at ``version`` are handled
    by the module ``module`` (a dotted import path) from now on; the stored name."""
    key = handler_name(name, version)
    HANDLERS[key] = module
    _HANDLERS.clear()
    return key


def _registered(name: str) -> str | None:
    seen: set[str] = set()
    while name not in HANDLERS:
        if name in seen or name not in RENAMED:
            return None
        seen.add(name)
        name = RENAMED[name]
    return name


def handler(frame: dict[str, Any]) -> ModuleType:
    """The module that handles a frame (by its registered name); RuleError for a name no
    handler is registered under."""
    name = frame["module"]
    mod = _HANDLERS.get(name)
    if mod is None:
        registered = _registered(name)
        if registered is None:
            raise RuleError(f"this part of the rules ({name}) is not available yet")
        mod = _HANDLERS[name] = importlib.import_module(HANDLERS[registered])
    return mod


def top(state: State) -> dict[str, Any] | None:
    stack = state["stack"]
    return stack[-1] if stack else None


def push_frame(state: State, frame: dict[str, Any]) -> dict[str, Any]:
    """Put a decision frame on top; it decides who acts until it is finished."""
    if "module" not in frame or "kind" not in frame:
        raise ValueError("a frame needs 'module' and 'kind'")
    if _registered(frame["module"]) is None:
        raise ValueError(f"no frame handler is registered as {frame['module']!r} (state.HANDLERS)")
    state["stack"].append(frame)
    return frame


def pop_frame(state: State) -> dict[str, Any]:
    stack = state["stack"]
    frame: dict[str, Any] = stack.pop()
    if stack:
        own_frames(state, stack, len(stack) - 1)   # the new top may be changed now
    return frame


def own_frames(state: State, stack: list[dict[str, Any]], index: int) -> None:
    """Make the frames of ``stack`` from ``index`` up this step's own before a change. apply
    copies only the top frame of the stack it is given (engine.granada._StepState, issue 33):
    the frames below stay the input's until a pop or a finished battle reaches them. A
    state that is not an apply's step state owns all its frames."""
    shared = getattr(state, "frames_shared", None)
    if shared is None or shared[0] is not stack or index >= shared[1]:
        return
    for i in range(index, shared[1]):
        stack[i] = clone(stack[i])
    state.frames_shared = (stack, index)  # type: ignore[attr-defined]


def finish_frame(state: State, outcome: dict[str, Any] | None = None) -> dict[str, Any]:
    """Pop the top frame; hand ``outcome`` to the frame below (its "returns" list)."""
    frame = pop_frame(state)
    below = top(state)
    if below is not None and outcome is not None:
        # a new list, not an append: a frame apply copied one level deep only (a handler's
        # EDITS_BY_REPLACING) may still share its lists with the input state
        below["returns"] = [*below.get("returns", ()), outcome]
    if outcome is not None and outcome.get("kind") == "battle" and outcome.get("loc"):
        # a battle fought anywhere (even one caused by a retreat, 8.6.6) is not declared
        # again in this Combat Phase
        stack = state["stack"]
        for i in range(len(stack) - 1, -1, -1):
            f = stack[i]
            if f.get("module") == "sequence" and f.get("kind") == "combat":
                if outcome["loc"] not in f["done"]:
                    own_frames(state, stack, i)
                    # a new list (sequence.py EDITS_BY_REPLACING: apply may have copied
                    # this frame one level deep only)
                    stack[i]["done"] = [*stack[i]["done"], outcome["loc"]]
                break
    return frame


def active_roles(state: State) -> list[str]:
    try:
        if state["result"] is not None:     # (a subscript: state.get is a call)
            return []
    except KeyError:
        pass
    stack = state["stack"]
    if not stack:
        return []
    # top() and handler() inline: asked before every step (a call is a thousand instructions)
    f = stack[-1]
    roles: list[str] = (_HANDLERS.get(f["module"]) or handler(f)).active(state, f)
    return roles
