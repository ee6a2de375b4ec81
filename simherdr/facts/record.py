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
``is_dataclass`` work, and type checkers read it as one (``dataclass_transform``). That view is
made the first time something reads it; until then ``dataclasses`` is not imported at all
(with its ``copy``, 3M instructions): records declare fields with this module's
:func:`field` (a ``dataclasses.field`` works too) and read them with :func:`field_names`. What it
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
signature docstring (``help()`` of a record without a docstring shows no signature).

``__init__`` comes in two forms (:func:`_init_fn`): until a class has been made ``HOT_AFTER``
times, a general one binds its arguments in Python (nothing compiled: a class made once or
a few times costs no compile); then the one ``@dataclass`` would write is compiled once per
shape of class and put in its place, so records made often are made as fast as by
``@dataclass``. A wrong call goes to the compiled form at once: its TypeError is the
interpreter's, worded as ``@dataclass``'s. ``inspect.signature`` of a class shows its fields
once the compiled form is in place (``(*args, **kwargs)`` before).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from operator import attrgetter
from types import CodeType, FunctionType

TYPE_CHECKING = False  # (not typing's: importing typing costs a stand-in call ~7 ms)
if TYPE_CHECKING:
    from typing import Any, TypeVar, dataclass_transform

    T = TypeVar("T", bound=type)
else:

    def dataclass_transform(**_options):
        """For type checkers only (they read typing's): at run time, the function as it is."""
        return lambda fn: fn


__all__ = ["MISSING", "field", "field_names", "field_types", "record"]


_setattr = object.__setattr__
_delattr = object.__delattr__


class _MissingType:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


#: No default (``dataclasses.MISSING`` in the Field objects ``dataclasses.fields`` returns).
MISSING: Any = _MissingType()


class _Field:
    """A field as a record knows it (``dataclasses.Field`` objects are made from these only
    when something asks for them: ``dataclasses`` itself is not imported by a record)."""

    __slots__ = (
        "compare",
        "default",
        "default_factory",
        "hash",
        "init",
        "kw_only",
        "name",
        "repr",
        "type",
    )

    def __init__(self, default, default_factory, init, repr, hash, compare, kw_only) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.type: Any = None
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.hash = hash
        self.compare = compare
        self.kw_only = kw_only


def field(
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    init: bool = True,
    repr: bool = True,
    hash: bool | None = None,
    compare: bool = True,
    kw_only: Any = MISSING,
) -> Any:
    """``dataclasses.field`` for a record (the same parameters but ``metadata``)."""
    return _Field(default, default_factory, init, repr, hash, compare, kw_only)


def field_names(cls: type) -> tuple[str, ...]:
    """A record's field names in order (``dataclasses.fields`` without importing it)."""
    return tuple(f.name for f in cls.__record_fields__)  # type: ignore[attr-defined]


def field_types(cls: type) -> dict[str, Any]:
    """A record's fields' declared types by name, in order (strings under ``from __future__
    import annotations``)."""
    return {f.name: f.type for f in cls.__record_fields__}  # type: ignore[attr-defined]


def _frozen(base: type) -> bool:
    options = base.__dict__.get("__record_options__")
    if options is not None:
        return options[3]
    return bool(base.__dict__["__dataclass_params__"].frozen)


@dataclass_transform(field_specifiers=(field,))
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


def _foreign(value: object) -> _Field | None:
    """A ``dataclasses.Field`` given to a record (dataclasses is imported if one exists)."""
    dc = sys.modules.get("dataclasses")
    if dc is None or not isinstance(value, dc.Field):
        return None
    m = dc.MISSING

    def ours(x: Any) -> Any:
        return MISSING if x is m else x

    return _Field(
        ours(value.default),
        ours(value.default_factory),
        value.init,
        value.repr,
        value.hash,
        value.compare,
        ours(value.kw_only),
    )


def _no_foreign(value: object) -> None:
    return None


def _base_fields(base: type) -> list[_Field]:
    own = base.__dict__.get("__record_fields__")
    if own is not None:
        return list(own)
    if "__dataclass_fields__" not in base.__dict__:
        return []
    out = []
    for f in base.__dict__["__dataclass_fields__"].values():
        if getattr(f, "_field_type", None) is sys.modules["dataclasses"]._FIELD:
            ours = _foreign(f)
            assert ours is not None
            ours.name, ours.type = f.name, f.type
            out.append(ours)
    return out


# string annotations _collect's general path reads itself (ClassVar skipped, InitVar/KW_ONLY refused)
_SPECIAL = (
    "ClassVar",
    "typing.ClassVar",
    "InitVar",
    "KW_ONLY",
    "dataclasses.InitVar",
    "dataclasses.KW_ONLY",
)


def _collect(cls: type) -> dict[str, _Field]:
    fields: dict[str, _Field] = {}
    for base in cls.__mro__[-1:0:-1]:
        for f in _base_fields(base):
            fields[f.name] = f
    # this class's own annotations (not inspect.get_annotations: the stand-in imports facts
    # and must not pay for inspect)
    own = cls.__dict__.get("__annotations__", {})  # noqa: RUF063
    # a dataclasses.Field can only exist once dataclasses is imported (not on the serve path)
    foreign = _foreign if "dataclasses" in sys.modules else _no_foreign
    for name, value in cls.__dict__.items():
        if (isinstance(value, _Field) or foreign(value)) and name not in own:
            raise TypeError(f"{name!r} is a field but has no type annotation")
    attrs = cls.__dict__
    for name, annotation in own.items():
        # the common field (a string annotation, no default, nothing special): what the
        # general path below makes of it, without its checks (issue 34: Rows' ~140 fields on
        # serve's start)
        if (
            annotation.__class__ is str
            and name not in attrs
            and not annotation.startswith(_SPECIAL)
        ):
            f = _Field(MISSING, MISSING, True, True, None, True, False)
            f.name = name
            f.type = annotation
            fields[name] = f
            continue
        if _is_classvar(annotation):
            continue
        if isinstance(annotation, str) and annotation.startswith(
            ("InitVar", "KW_ONLY", "dataclasses.InitVar", "dataclasses.KW_ONLY")
        ):
            raise TypeError(f"record {cls.__qualname__}.{name}: InitVar/KW_ONLY unsupported")
        default = cls.__dict__.get(name, MISSING)
        given = default if isinstance(default, _Field) else foreign(default)
        f = given or _Field(default, MISSING, True, True, None, True, MISSING)
        f.name = name
        f.type = annotation
        if f.kw_only is MISSING:
            f.kw_only = False
        if f.default is not MISSING and f.default.__class__.__hash__ is None:
            raise ValueError(
                f"mutable default {type(f.default)} for field {name} is not allowed: "
                "use default_factory"
            )
        # as @dataclass leaves the class: a field's default stays a class attribute
        if given is not None:
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        fields[name] = f
    return fields


class _DataclassView:
    """``__dataclass_fields__`` / ``__dataclass_params__`` of a record, made (importing
    dataclasses) the first time they are read, then set on the class in its place."""

    def __init__(self, owner: type, name: str, options: tuple) -> None:
        self.owner, self.name, self.options = owner, name, options

    def __get__(self, obj: object, objtype: type | None = None) -> Any:
        import dataclasses as dc

        owner = self.owner
        if self.name == "__dataclass_params__":
            value = _params(dc, *self.options)
        else:
            value = {}
            for f in owner.__record_fields__:  # type: ignore[attr-defined]
                real: Any = dc.field(
                    default=dc.MISSING if f.default is MISSING else f.default,
                    default_factory=(
                        dc.MISSING if f.default_factory is MISSING else f.default_factory
                    ),
                    init=f.init,
                    repr=f.repr,
                    hash=f.hash,
                    compare=f.compare,
                    kw_only=f.kw_only,
                )
                real.name, real.type = f.name, f.type
                setattr(real, "_field_type", dc._FIELD)  # type: ignore[attr-defined]  # noqa: B010
                value[f.name] = real
        setattr(owner, self.name, value)
        return value


def _params(dc: Any, init: bool, repr: bool, eq: bool, frozen: bool, slots: bool) -> object:
    """``__dataclass_params__`` (its slots differ between Python versions)."""
    cls = dc._DataclassParams
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


def _views(cls: type, options: tuple) -> None:
    for name in ("__dataclass_fields__", "__dataclass_params__"):
        setattr(cls, name, _DataclassView(cls, name, options))


def _make(cls: T, init: bool, repr_: bool, eq: bool, frozen: bool, slots: bool) -> T:
    bases = [b for b in cls.__mro__[1:-1] if _base_fields(b)]
    if bases:  # @dataclass's rule for frozen and non-frozen bases
        frozen_base = any(_frozen(b) for b in bases)
        if frozen_base and not frozen:
            raise TypeError("cannot inherit non-frozen dataclass from a frozen one")
        if frozen and not frozen_base:
            raise TypeError("cannot inherit frozen dataclass from a non-frozen one")
    fields = _collect(cls)
    options = (init, repr_, eq, frozen, slots)
    setattr(cls, "__record_fields__", tuple(fields.values()))  # noqa: B010
    setattr(cls, "__record_options__", options)  # noqa: B010
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
    _views(cls, options)
    return cls


def _new(cls: type, name: str, fn: Callable) -> None:
    """Set a method unless the class defines it (``@dataclass``'s rule)."""
    if name in cls.__dict__:
        return
    fn.__name__ = name
    fn.__qualname__ = f"{cls.__qualname__}.{name}"
    setattr(cls, name, fn)


class _FactoryType:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"


#: A factory field's parameter default (``dataclasses._HAS_DEFAULT_FACTORY``'s repr).
_HAS_FACTORY: Any = _FactoryType()

#: Compiled ``__init__`` templates by their source (fields as ``f0``, ``f1``, ...): one
#: compile per shape of class, however many classes share it.
_TEMPLATES: dict[str, CodeType] = {}


#: CHOICE: a record class made this many times is made often: its ``__init__`` is then compiled
#: (:func:`_compiled_init`). Before that (a class made once or a few times: a server's config,
#: its first workspace) the general ``__init__`` below makes it, with no compile at all.
HOT_AFTER = 16


def _init_fn(cls: type, flist: list[_Field], frozen: bool, slots: bool) -> Callable:
    """``__init__(self, <positional fields>, *, <kw_only fields>)``, defaults as declared;
    the fields are set in their declared order, as ``@dataclass``'s ``__init__`` sets them.

    Two forms: a general one (below: nothing compiled, each call binds its arguments in
    Python), and, once the class is made often (``HOT_AFTER`` calls) or a call is wrong, the
    one ``@dataclass`` would write (:func:`_compiled_init`), put in the stub's place on the
    class: straight-line code as fast as ``@dataclass``'s own, and for a wrong call the
    interpreter's own TypeError, worded as ``@dataclass``'s."""
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
    # every field a positional argument: a call with n >= first of them fills the rest from
    # tail[n - first:] (the plain defaults of the fields from ``first`` on, none of them a
    # factory); any other call takes the general path
    simple = len(plan) == len(order) == npos
    first = npos + 1
    if simple:
        first = npos
        while first and plan[first - 1][2] is not MISSING:
            first -= 1
    tail = tuple(d for _, _, d, _ in plan[first:])
    # the general path: every field in order at its plain default (MISSING where it has
    # none), the arguments laid over it, then what is still MISSING made by its factory
    template = {name: default for name, _, default, _ in plan}
    required = tuple(name for name, _, default, factory in plan if default is factory is MISSING)
    factories = tuple(
        (name, factory) for name, _, default, factory in plan if factory is not MISSING
    )
    post_init = getattr(cls, "__post_init__", None) is not None  # as @dataclass decides it
    # One attribute at a time, never through the instance's __dict__: reading __dict__ makes
    # CPython give the object a real dict instead of its inline values, and every later read
    # of its attributes is then slower (a session's first workspaces, read by each list).
    put = _setattr if frozen else setattr
    calls = 0
    made: Callable | None = None

    # The instance's parameter is named as no field can be (a field may be called ``self``).
    def compiled(self) -> Callable:
        nonlocal made
        if made is None:
            # the class whose __init__ this is (a slots record is a new class made from the
            # decorated one; a plain subclass inherits it)
            owner = next(
                (k for k in type(self).__mro__ if k.__dict__.get("__init__") is __init__), cls
            )
            made = _compiled_init(owner, flist, frozen, slots, post_init)
            if owner.__dict__.get("__init__") is __init__:
                type.__setattr__(owner, "__init__", made)
        return made

    def __init__(__record_self, *args, **kwargs):
        self = __record_self
        nonlocal calls
        calls += 1
        n = len(args)
        if calls >= HOT_AFTER or n > npos:
            return compiled(self)(self, *args, **kwargs)
        if n >= first and not kwargs:
            if n < npos:
                args += tail[n - first :]
            for name, value in zip(order, args, strict=False):
                put(self, name, value)
            if post_init:
                self.__post_init__()
            return None
        values = template.copy()
        if n:
            values.update(zip(positional, args, strict=False))
        if kwargs:
            if not kwargs.keys() <= accepted or (
                n and not kwargs.keys().isdisjoint(positional[:n])
            ):
                return compiled(self)(self, *args, **kwargs)  # raises the TypeError
            values.update(kwargs)
        for name in required:
            if values[name] is MISSING:
                return compiled(self)(self, *args, **kwargs)  # raises the TypeError
        for name, factory in factories:
            if values[name] is MISSING:
                values[name] = factory()
        for name, value in values.items():
            put(self, name, value)
        if post_init:
            self.__post_init__()
        return None

    return __init__


def _compiled_init(
    owner: type, flist: list[_Field], frozen: bool, slots: bool, post_init: bool
) -> Callable:
    """The ``__init__`` ``@dataclass`` would write for these fields: parameters in field order
    (``kw_only`` ones after ``*``) with their defaults (a factory's: a sentinel the body
    replaces by a call), then each field set in declared order (frozen: by
    ``object.__setattr__``), a field outside ``__init__`` by its factory (or, in a slots
    class, its default), then ``__post_init__``. The code is a shared template per shape
    with the real names put in (``CodeType.replace``)."""
    plan = [
        f
        for f in flist
        if f.init or f.default_factory is not MISSING or (slots and f.default is not MISSING)
    ]
    names = [f.name for f in plan]
    this = "__dataclass_self__" if "self" in names else "self"  # as @dataclass names it
    space: dict[str, Any] = {"__builtins__": {}, "__record_setattr": _setattr}
    positional: list[str] = []
    kw_only: list[str] = []
    defaults: list[Any] = []
    kwdefaults: dict[str, Any] = {}
    body: list[str] = []
    for i, f in enumerate(plan):
        ph = f"f{i}"
        if f.init:
            (kw_only if f.kw_only else positional).append(ph)
            default = _HAS_FACTORY if f.default_factory is not MISSING else f.default
            if default is not MISSING:
                if f.kw_only:
                    kwdefaults[f.name] = default
                else:
                    defaults.append(default)
        if f.default_factory is not MISSING:
            space[f"__record_factory_{i}"] = f.default_factory
            value = f"__record_factory_{i}()"
            if f.init:
                space["__record_has_factory"] = _HAS_FACTORY
                value = f"{value} if {ph} is __record_has_factory else {ph}"
        elif f.init:
            value = ph
        else:
            space[f"__record_default_{i}"] = f.default
            value = f"__record_default_{i}"
        body.append(
            f"    __record_setattr(__self, {ph!r}, {value})"
            if frozen
            else f"    __self.{ph} = {value}"
        )
    if post_init:
        body.append("    __self.__post_init__()")
    params = ", ".join(["__self", *positional, *(["*", *kw_only] if kw_only else [])])
    source = f"def __init__({params}):\n" + ("\n".join(body) or "    pass") + "\n"
    template = _TEMPLATES.get(source)
    if template is None:
        module = compile(source, "<record __init__>", "exec")
        template = _TEMPLATES[source] = next(c for c in module.co_consts if isinstance(c, CodeType))
    real = {f"f{i}": name for i, name in enumerate(names)}
    real["__self"] = this
    code = template.replace(
        co_name="__init__",
        co_qualname=f"{owner.__qualname__}.__init__",
        co_varnames=tuple(real.get(n, n) for n in template.co_varnames),
        co_names=tuple(real.get(n, n) for n in template.co_names),
        co_consts=tuple(real.get(c, c) if isinstance(c, str) else c for c in template.co_consts),
    )
    fn = FunctionType(code, space, "__init__", tuple(defaults) or None)
    fn.__kwdefaults__ = kwdefaults or None
    fn.__qualname__ = code.co_qualname
    fn.__module__ = owner.__module__
    fn.__annotations__ = {f.name: f.type for f in plan if f.init} | {"return": None}
    return fn


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
            from dataclasses import FrozenInstanceError

            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self, name):
        if type(self) is cls or name in names:
            from dataclasses import FrozenInstanceError

            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __setattr__, __delattr__


def _with_slots(cls: T, fields: dict[str, _Field], frozen: bool) -> T:
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
