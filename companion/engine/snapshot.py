"""Putting a game back exactly as it was, in place: the undo record of one action.

:class:`Snapshot` notes the contents of every mutable object reachable from a game (each object's
attributes, each list, dict and set, shallowly) and :meth:`Snapshot.restore` writes them back into
the same objects.  Nothing is copied deeply and no object is replaced, so everything a caller holds
(the players, the corporations, the round) is still the game's own afterwards; objects an action
created are simply no longer referred to.  :meth:`companion.engine.core.TableGame.apply` tries an
action on the game itself and restores the snapshot when it is refused, ``preview`` restores it
after the trial, and ``undo`` restores the one taken before the last action.

What it relies on (docs/ENGINE.md, "Applying, previewing and undoing"):

* a frozen dataclass is a value: what it holds is never changed (its derived caches may fill);
* the objects :meth:`TableGame.static_state` names, the title data and the applied actions never
  change;
* a class may take its own part (``snapshot_state()``: a function that restores it, the objects
  it covers, the objects it refers to that are to be looked into): the map and the stock market,
  whose many small parts are copied faster by themselves;
* a class may name attributes in ``SNAPSHOT_SHALLOW`` (a dict or a list) whose container is
  restored without looking inside it: plain data whose entries are never changed once made (the
  game's log and action list, the map's graph cache);
* state lives in attributes, lists, dicts and sets (and ``random.Random``); any other kind of
  object without attributes is refused with a ``TypeError`` when the snapshot is taken, so state
  the snapshot cannot restore is found by the tests rather than restored wrongly.
"""

from __future__ import annotations

import dataclasses
import enum
import random
import re
import types
import weakref
from collections import deque
from collections.abc import Iterable
from itertools import islice
from typing import Any

__all__ = ["Snapshot"]

#: kinds of objects that hold no state of their own
_VALUES: frozenset[type] = frozenset(
    {
        str,
        int,
        float,
        bool,
        complex,
        bytes,
        type(None),
        range,
        type,
        types.FunctionType,
        types.BuiltinFunctionType,
        types.MethodType,
        types.ModuleType,
        type(Ellipsis),
        type(NotImplemented),
        re.Pattern,
        weakref.ref,
    }
)
#: the commonest values, passed over before they are pushed
_ATOMS: frozenset[type] = frozenset({str, int, bool, float, type(None)})
# how each kind of object is noted
_SKIP, _ITEMS, _ATTRS, _PLAIN, _LIST, _DICT, _SET, _DEQUE, _RANDOM, _SLOTS, _OWN = range(11)
# containers noted by a copy of their own (SNAPSHOT_SHALLOW)
_COPIED_LIST, _COPIED_DICT = 11, 12
_UNSET = object()


def _kind(cls: type) -> int:
    if cls in _VALUES or issubclass(cls, enum.Enum):
        return _SKIP
    if callable(getattr(cls, "snapshot_state", None)):
        return _OWN
    if cls is tuple or cls is frozenset or issubclass(cls, (tuple, frozenset)):
        return _ITEMS  # immutable, but what they hold may not be
    if issubclass(cls, list):
        return _LIST
    if issubclass(cls, dict):
        return _DICT
    if issubclass(cls, set):
        return _SET
    if issubclass(cls, deque):
        return _DEQUE
    if issubclass(cls, random.Random):
        return _RANDOM
    params = getattr(cls, "__dataclass_params__", None)
    if params is not None and params.frozen and dataclasses.is_dataclass(cls):
        return _SKIP
    slotted = any("__slots__" in klass.__dict__ for klass in cls.__mro__)
    if slotted or getattr(cls, "SNAPSHOT_SHALLOW", None):
        return _ATTRS  # attributes with exceptions, or slots
    if "__dict__" in dir(cls):
        return _PLAIN
    raise TypeError(f"a game snapshot cannot restore a {cls.__name__}")


class Snapshot:
    """The contents of every mutable object reachable from ``root``, to be written back in place.

    ``shared``: objects that never change (not looked into); ``opaque``: objects neither noted nor
    looked into (e.g. the undo records themselves); ``kinds``: how each class is noted, a dict the
    caller may keep for its next snapshots (filled as classes are met)."""

    def __init__(
        self,
        root: Any,
        shared: Iterable[Any] = (),
        opaque: Iterable[Any] = (),
        kinds: dict[type, int] | None = None,
    ) -> None:
        seen: set[int] = {id(o) for o in shared}
        seen.update(id(o) for o in opaque)
        if kinds is None:  # how each class is noted: kept by the caller from one snapshot to the next
            kinds = {}
        if not kinds:
            kinds.update(dict.fromkeys(_VALUES, _SKIP))
        # The commonest kinds in parallel lists: each object's attributes as a copy of its
        # ``__dict__`` (put back by the quickest way there is); lists and dicts flat, their sizes
        # in one list and every item (key, value) one after the other in another.  A snapshot so
        # makes a container per object with attributes rather than one per container: every
        # container made counts towards the cyclic collector's next collection (docs/BENCHMARKS.md,
        # "Part 12").  The rest as (kind, object, contents).
        objects: list[Any] = []
        attr_copies: list[dict[str, Any]] = []
        lists: list[list[Any]] = []
        list_sizes: list[int] = []
        list_items: list[Any] = []
        dicts: list[dict[Any, Any]] = []
        dict_sizes: list[int] = []
        dict_keys: list[Any] = []
        dict_values: list[Any] = []
        others: list[tuple[int, Any, Any]] = []
        stack: list[Any] = [root]
        pop, extend, note = stack.pop, stack.extend, others.append
        while stack:
            obj = pop()
            cls = type(obj)
            kind = kinds.get(cls)
            if kind is None:
                kind = kinds[cls] = _kind(cls)
            if kind == _SKIP:
                continue
            key = id(obj)
            if key in seen:
                continue
            seen.add(key)
            if kind == _PLAIN:
                own = obj.__dict__
                objects.append(obj)
                attr_copies.append(own.copy())
                extend(own.values())
            elif kind == _LIST:
                lists.append(obj)
                list_sizes.append(len(obj))
                list_items.extend(obj)
                extend(obj)
            elif kind == _DICT:
                dicts.append(obj)
                dict_sizes.append(len(obj))
                dict_keys.extend(obj)
                dict_values.extend(obj.values())
                extend(obj.values())
                extend(obj)
            elif kind == _ITEMS:
                extend(obj)
            elif kind == _ATTRS:
                own = getattr(obj, "__dict__", None)
                if own is not None:
                    objects.append(obj)
                    attr_copies.append(own.copy())
                    shallow = getattr(cls, "SNAPSHOT_SHALLOW", ())
                    for name in shallow:
                        value = own.get(name)
                        # plain data (a cache, a log): the container is restored, never looked into
                        # (copied whole: a log is long, one copy is quicker to take and put back)
                        if type(value) is dict:
                            seen.add(id(value))
                            note((_COPIED_DICT, value, value.copy()))
                        elif type(value) is list:
                            seen.add(id(value))
                            note((_COPIED_LIST, value, value[:]))
                    extend([v for k, v in own.items() if k not in shallow])
                slots = _slot_values(obj, cls)
                if slots:
                    note((_SLOTS, obj, slots))
                    extend(v for v in slots.values() if v is not _UNSET)
            elif kind == _SET:
                members = set(obj)
                note((_SET, obj, members))
                extend(members)
            elif kind == _DEQUE:
                queued = list(obj)
                note((_DEQUE, obj, queued))
                extend(queued)
            elif kind == _OWN:
                restore, covered, refs = obj.snapshot_state()
                note((_OWN, obj, restore))
                seen.update(map(id, covered))
                extend(refs)
            else:  # _RANDOM
                note((_RANDOM, obj, obj.getstate()))
        self._attrs = (objects, attr_copies)
        self._lists = (lists, list_sizes, list_items)
        self._dicts = (dicts, dict_sizes, dict_keys, dict_values)
        self._others = others

    def __len__(self) -> int:
        return len(self._attrs[0]) + len(self._lists[0]) + len(self._dicts[0]) + len(self._others)

    def restore(self) -> None:
        """Write every noted content back into its object (the state as it was when taken)."""
        for obj, contents in zip(*self._attrs, strict=True):
            own = obj.__dict__
            own.clear()
            own.update(contents)
        lists, sizes, items = self._lists
        end = 0
        for seq, size in zip(lists, sizes, strict=True):
            if size:
                seq[:] = items[end : end + size]
                end += size
            elif seq:
                seq.clear()
        dicts, sizes, keys, values = self._dicts
        key_iter, value_iter = iter(keys), iter(values)
        for table, size in zip(dicts, sizes, strict=True):
            table.clear()
            # (not strict: the values go on past this table's keys)
            table.update(zip(islice(key_iter, size), value_iter, strict=False))
        for kind, obj, contents in self._others:
            if kind == _COPIED_LIST:
                obj[:] = contents
            elif kind in (_COPIED_DICT, _SET):
                obj.clear()
                obj.update(contents)
            elif kind == _DEQUE:
                obj.clear()
                obj.extend(contents)
            elif kind == _RANDOM:
                obj.setstate(contents)
            elif kind == _OWN:
                contents()
            else:  # _SLOTS
                for name, value in contents.items():
                    if value is _UNSET:
                        if hasattr(obj, name):
                            object.__delattr__(obj, name)
                    else:
                        object.__setattr__(obj, name, value)


def _slot_values(obj: Any, cls: type) -> dict[str, Any]:
    """The values in ``obj``'s ``__slots__`` (``_UNSET`` for those not set)."""
    out: dict[str, Any] = {}
    for klass in cls.__mro__:
        names = klass.__dict__.get("__slots__", ())
        for name in (names,) if isinstance(names, str) else names:
            if name not in ("__dict__", "__weakref__"):
                out[name] = getattr(obj, name, _UNSET)
    return out
