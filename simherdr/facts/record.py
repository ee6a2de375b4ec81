"""``@record``: a dataclass made without compiling code at import (issue 26).

``dataclasses.dataclass`` writes each class's ``__init__``, ``__repr__``, ``__eq__``,
``__hash__`` and frozen ``__setattr__``/``__delattr__`` as source text and compiles it with
``exec`` when the class is defined: ~3M instructions for a small frozen class, two thirds of
which is the compiler. ``simherdr serve`` defines ~25 of them before it answers its first
ping, a third of its own start-up work. :func:`record` builds the same class from methods
written once here (no ``exec``, no ``inspect.signature``), so a record costs about what a
plain class does.

The result *is* a dataclass to the rest of the program: ``__dataclass_fields__`` holds real
:class:`dataclasses.Field` objects, so ``dataclasses.fields``, ``replace``, ``asdict`` and
``is_dataclass`` work, and type checkers read it as one (``dataclass_transform``). What it
keeps of ``@dataclass`` (checked side by side in ``tests/facts/test_record.py``): the
options ``init``, ``repr``, ``eq``, ``frozen``, ``slots`` with their defaults; ``field()``
with ``default``, ``default_factory``, ``repr``, ``compare``, ``hash``, ``init``,
``kw_only``; ``ClassVar`` annotations skipped; fields of record/dataclass bases first;
``__post_init__``; a method the class defines itself is kept (as ``@dataclass`` keeps it);
the hashing rules (eq and not frozen: unhashable; eq and frozen: hashed by the compared
fields; an explicit ``__hash__`` stays); ``__match_args__``; ``FrozenInstanceError``; the
mutable-default and field-order errors.

CHOICE: what it leaves out, none of which simherdr uses: ``order``, ``unsafe_hash``,
``InitVar``, ``KW_ONLY``, ``weakref_slot`` (these raise TypeError), and the generated
signature docstring (``help()`` of a record without a docstring shows no signature). The
generated ``__init__`` binds its arguments in Python rather than by the interpreter, so its
error messages for a wrong call are worded a little differently (still TypeError).
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from dataclasses import MISSING, Field, FrozenInstanceError
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform

__all__ = ["record"]

T = TypeVar("T", bound=type)

_setattr = object.__setattr__
_delattr = object.__delattr__


@dataclass_transform(field_specifiers=(dataclasses.field, Field))
def record(
    cls: T | None = None,
    /,
    *,
    init: bool = True,
    repr: bool = True,
    eq: bool = True,
    frozen: bool = False,
    slots: bool = False,
) -> Any:
    """``@record`` / ``@record(frozen=True, ...)``: see the module docstring."""

    def wrap(c: T) -> T:
        return _make(c, init, repr, eq, frozen, slots)

    return wrap if cls is None else wrap(cls)


def _is_classvar(annotation: object) -> bool:
    if isinstance(annotation, str):  # `from __future__ import annotations`
        return annotation.startswith(("ClassVar", "typing.ClassVar"))
    return getattr(annotation, "__origin__", annotation) is getattr(
        sys.modules.get("typing"), "ClassVar", None
    )


def _collect(cls: type) -> dict[str, Field]:
    fields: dict[str, Field] = {}
    for base in cls.__mro__[-1:0:-1]:
        base_fields = base.__dict__.get("__dataclass_fields__")
        if base_fields:
            fields.update(base_fields)
    # this class's own annotations (not inspect.get_annotations: the stand-in imports facts
    # and must not pay for inspect)
    own = cls.__dict__.get("__annotations__", {})  # noqa: RUF063
    for name, value in cls.__dict__.items():
        if isinstance(value, Field) and name not in own:
            raise TypeError(f"{name!r} is a field but has no type annotation")
    for name, annotation in own.items():
        if _is_classvar(annotation):
            continue
        if annotation in (dataclasses.InitVar, dataclasses.KW_ONLY) or (
            isinstance(annotation, str) and annotation.startswith(("InitVar", "KW_ONLY"))
        ):
            raise TypeError(f"record {cls.__qualname__}.{name}: InitVar/KW_ONLY unsupported")
        default = cls.__dict__.get(name, MISSING)
        f = default if isinstance(default, Field) else dataclasses.field(default=default)
        f.name = name
        f.type = annotation
        setattr(f, "_field_type", dataclasses._FIELD)  # type: ignore[attr-defined]  # noqa: B010
        if f.kw_only is MISSING:
            f.kw_only = False
        if f.default is not MISSING and f.default.__class__.__hash__ is None:
            raise ValueError(
                f"mutable default {type(f.default)} for field {name} is not allowed: "
                "use default_factory"
            )
        # as @dataclass leaves the class: a field's default stays a class attribute
        if isinstance(default, Field):
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        fields[name] = f
    return fields


def _params(init: bool, repr: bool, eq: bool, frozen: bool, slots: bool) -> object:
    """``__dataclass_params__`` (its slots differ between Python versions)."""
    cls = dataclasses._DataclassParams  # type: ignore[attr-defined]
    params = object.__new__(cls)
    values = {
        "init": init,
        "repr": repr,
        "eq": eq,
        "order": False,
        "unsafe_hash": False,
        "frozen": frozen,
        "match_args": True,
        "kw_only": False,
        "slots": slots,
        "weakref_slot": False,
    }
    for name in cls.__slots__:
        _setattr(params, name, values[name])
    return params


def _make(cls: T, init: bool, repr_: bool, eq: bool, frozen: bool, slots: bool) -> T:
    for base in cls.__mro__[1:-1]:
        params = base.__dict__.get("__dataclass_params__")
        if params is not None and "__dataclass_fields__" in base.__dict__:
            if params.frozen != frozen:
                raise TypeError(
                    "cannot inherit frozen dataclass from a non-frozen one"
                    if frozen
                    else "cannot inherit non-frozen dataclass from a frozen one"
                )
    fields = _collect(cls)
    setattr(cls, "__dataclass_fields__", fields)  # noqa: B010
    setattr(cls, "__dataclass_params__", _params(init, repr_, eq, frozen, slots))  # noqa: B010
    own = cls.__dict__
    explicit_hash = "__hash__" in own and not (own["__hash__"] is None and "__eq__" in own)
    flist = list(fields.values())
    if init:
        seen_default = False
        for f in flist:
            if f.init and not f.kw_only:
                if f.default is MISSING and f.default_factory is MISSING:
                    if seen_default:
                        raise TypeError(f"non-default argument {f.name!r} follows default argument")
                else:
                    seen_default = True
        _new(cls, "__init__", _init_fn(cls, flist, frozen, slots))
    if repr_:
        _new(cls, "__repr__", _repr_fn(tuple(f.name for f in flist if f.repr)))
    compared = tuple(f.name for f in flist if f.compare)
    if eq:
        _new(cls, "__eq__", _eq_fn(compared))
        if not explicit_hash:
            if frozen:
                hashed = tuple(f.name for f in flist if (f.compare if f.hash is None else f.hash))
                setattr(cls, "__hash__", _hash_fn(hashed))  # noqa: B010
            else:
                setattr(cls, "__hash__", None)  # noqa: B010
    if frozen:
        names = tuple(fields)
        for name in ("__setattr__", "__delattr__"):
            if name in own:
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
        set_fn, del_fn = _frozen_fns(cls, names)
        setattr(cls, "__setattr__", set_fn)  # noqa: B010
        setattr(cls, "__delattr__", del_fn)  # noqa: B010
    if "__match_args__" not in own:
        match_args = tuple(f.name for f in flist if f.init and not f.kw_only)
        setattr(cls, "__match_args__", match_args)  # noqa: B010
    if slots:
        cls = _with_slots(cls, fields, frozen)
    return cls


def _new(cls: type, name: str, fn: Callable) -> None:
    """Set a method unless the class defines it (``@dataclass``'s rule)."""
    if name in cls.__dict__:
        return
    fn.__name__ = name
    fn.__qualname__ = f"{cls.__qualname__}.{name}"
    setattr(cls, name, fn)


def _init_fn(cls: type, flist: list[Field], frozen: bool, slots: bool) -> Callable:
    """``__init__(self, <positional fields>, *, <kw_only fields>)``, defaults as declared;
    the fields are set in their declared order, as ``@dataclass``'s ``__init__`` sets them."""
    positional = tuple(f.name for f in flist if f.init and not f.kw_only)
    order = positional + tuple(f.name for f in flist if f.init and f.kw_only)
    accepted = frozenset(order)
    npos = len(positional)
    # every field __init__ sets, in order: (name, an argument?, default, factory). A field
    # outside __init__ is set all the same by its factory, and by its default in a slots
    # class (where no class attribute holds it), as @dataclass's __init__ does.
    plan = tuple(
        (f.name, f.init, f.default, f.default_factory)
        for f in flist
        if f.init or f.default_factory is not MISSING or (slots and f.default is not MISSING)
    )
    # every field a positional argument: a call with n of them fills the rest from tails[n]
    # (the plain defaults; None where a field has none or a factory: the general path)
    simple = len(plan) == len(order) == npos
    tails: list[tuple | None] = []
    for i in range(npos + 1):
        rest = plan[i:]
        ok = simple and all(d is not MISSING for _, _, d, _ in rest)
        tails.append(tuple(d for _, _, d, _ in rest) if ok else None)
    post_init = getattr(cls, "__post_init__", None) is not None
    # A plain instance dict takes the values at once where setattr would do no more (no
    # __setattr__ of the class's own, no data descriptor named like a field).
    direct = not slots and _plain_attributes(cls, order)
    put = _setattr if frozen else setattr
    qualname = cls.__qualname__

    def __init__(self, *args, **kwargs):
        n = len(args)
        if n > npos:
            raise TypeError(
                f"{qualname}.__init__() takes {npos + 1} positional arguments but {n + 1} "
                "were given"
            )
        tail = None if kwargs else tails[n]
        if tail is not None:
            if tail:
                args += tail
            if direct:
                self.__dict__.update(zip(order, args, strict=False))
            else:
                for name, value in zip(order, args, strict=False):
                    put(self, name, value)
            if post_init:
                self.__post_init__()
            return
        else:
            got = dict(zip(positional, args, strict=False))
            if kwargs:
                if not kwargs.keys() <= accepted:
                    bad = next(k for k in kwargs if k not in accepted)
                    raise TypeError(
                        f"{qualname}.__init__() got an unexpected keyword argument {bad!r}"
                    )
                if n and not got.keys().isdisjoint(kwargs):
                    bad = next(k for k in positional[:n] if k in kwargs)
                    raise TypeError(
                        f"{qualname}.__init__() got multiple values for argument {bad!r}"
                    )
                got.update(kwargs)
            values = {}
            missing = None
            for name, is_arg, default, factory in plan:
                if is_arg and name in got:
                    values[name] = got[name]
                elif default is not MISSING:
                    values[name] = default
                elif factory is not MISSING:
                    values[name] = factory()
                else:
                    missing = (missing or []) + [name]
            if missing:
                raise TypeError(
                    f"{qualname}.__init__() missing {len(missing)} required argument"
                    f"{'s' if len(missing) > 1 else ''}: {', '.join(map(repr, missing))}"
                )
        if direct:
            self.__dict__.update(values)
        else:
            for name, value in values.items():
                put(self, name, value)
        if post_init:
            self.__post_init__()

    return __init__


def _plain_attributes(cls: type, names: tuple[str, ...]) -> bool:
    """Whether ``setattr`` of these names on an instance only stores into its ``__dict__``."""
    for klass in cls.__mro__[:-1]:
        if "__setattr__" in klass.__dict__:
            return False
        for name in names:
            if hasattr(type(klass.__dict__.get(name)), "__set__"):
                return False
    return True


def _repr_fn(names: tuple[str, ...]) -> Callable:
    running: set[tuple[int, int]] = set()
    from _thread import get_ident

    def __repr__(self):
        key = (id(self), get_ident())
        if key in running:  # a record that contains itself (reprlib.recursive_repr's rule)
            return "..."
        running.add(key)
        try:
            inner = ", ".join([f"{n}={getattr(self, n)!r}" for n in names])
        finally:
            running.discard(key)
        return f"{self.__class__.__qualname__}({inner})"

    return __repr__


def _values_fn(names: tuple[str, ...]) -> Callable[[Any], Any]:
    """The compared values of a record, as a tuple (its fields in order)."""
    if not names:
        return lambda obj: ()
    if len(names) == 1:
        (name,) = names
        return lambda obj: (getattr(obj, name),)
    return attrgetter(*names)  # a tuple for two names or more


def _eq_fn(names: tuple[str, ...]) -> Callable:
    values = _values_fn(names)

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    return __eq__


def _hash_fn(names: tuple[str, ...]) -> Callable:
    values = _values_fn(names)

    def __hash__(self):
        return hash(values(self))

    return __hash__


def _frozen_fns(cls: Any, names: tuple[str, ...]) -> tuple[Callable, Callable]:
    def __setattr__(self, name, value):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self, name):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __setattr__, __delattr__


def _with_slots(cls: T, fields: dict[str, Field], frozen: bool) -> T:
    """The class made again with ``__slots__`` for its fields (``@dataclass(slots=True)``)."""
    body = dict(cls.__dict__)
    if "__slots__" in body:
        raise TypeError(f"{cls.__name__} already specifies __slots__")
    inherited: set[str] = set()
    for base in cls.__mro__[1:-1]:
        s = base.__dict__.get("__slots__", ())
        inherited.update((s,) if isinstance(s, str) else s)
    body["__slots__"] = tuple(n for n in fields if n not in inherited)
    for name in fields:
        body.pop(name, None)  # the defaults live in __init__
    body.pop("__dict__", None)
    body.pop("__weakref__", None)
    new = type(cls)(cls.__name__, cls.__bases__, body)
    new.__qualname__ = cls.__qualname__
    if frozen and "__getstate__" not in body:
        names = tuple(fields)

        def __getstate__(self):
            return [getattr(self, n) for n in names]

        def __setstate__(self, state):
            for n, v in zip(names, state, strict=False):
                _setattr(self, n, v)

        setattr(new, "__getstate__", __getstate__)  # noqa: B010
        setattr(new, "__setstate__", __setstate__)  # noqa: B010
    return new
