"""``@record`` (simherdr/facts/record.py) behaves as ``@dataclass`` for the options it takes:
each case is declared twice, once with each decorator, and compared side by side."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import subprocess
import sys
from dataclasses import field
from typing import ClassVar

import pytest

from simherdr.facts.record import record


def twins(**options):
    """The same class body under @dataclass(**options) and @record(**options)."""

    def make(body):
        return dataclasses.dataclass(**options)(body()), record(**options)(body())

    return make


def _plain():
    class C:
        a: str
        b: int = 0
        c: list = field(default_factory=list)
        d: str = field(default="d", repr=False, compare=False)
        kind: ClassVar[str] = "C"

    return C


def _frozen():
    class F:
        x: str
        y: tuple = ()

    return F


def _kw():
    class K:
        a: str
        b: int = 1
        agent: str = field(kw_only=True)
        tail: str | None = None

    return K


@pytest.mark.parametrize("options", [{}, {"frozen": True}, {"frozen": True, "slots": True}])
def test_fields_init_repr_eq_hash_match_plain(options):
    dc, rec = twins(**options)(_plain)
    assert [(f.name, f.type, f.repr, f.compare) for f in dataclasses.fields(rec)] == [
        (f.name, f.type, f.repr, f.compare) for f in dataclasses.fields(dc)
    ]
    assert dataclasses.is_dataclass(rec)
    for args, kwargs in [(("x",), {}), (("x", 2), {"d": "z"}), ((), {"a": "y", "c": [1]})]:
        a, b = dc(*args, **kwargs), rec(*args, **kwargs)
        assert repr(a).replace(dc.__qualname__, "") == repr(b).replace(rec.__qualname__, "")
        assert dataclasses.asdict(a) == dataclasses.asdict(b)
        assert vars(a) == vars(b) if not options.get("slots") else True
        assert b == rec(*args, **kwargs)
        assert b != rec("other")
        assert (b == a) is False  # another class: NotImplemented both ways
        assert dataclasses.replace(b, a="q").a == "q"
        if options.get("frozen"):  # hashed by the compared fields (a list is not hashable)
            with pytest.raises(TypeError):
                hash(b)
            assert hash(rec("x", c=(1,), d="1")) == hash(rec("x", c=(1,), d="2"))
        else:
            assert type(a).__hash__ is None and type(b).__hash__ is None
    assert rec("x").c is not rec("x").c  # a factory per instance
    assert rec("x", d="1") == rec("x", d="2")  # compare=False
    assert rec.__match_args__ == dc.__match_args__
    assert rec.kind == "C" and "kind" not in {f.name for f in dataclasses.fields(rec)}


def test_frozen_refuses_assignment_and_deletion():
    for options in ({"frozen": True}, {"frozen": True, "slots": True}):
        _, rec = twins(**options)(_frozen)
        r = rec("a")
        with pytest.raises(dataclasses.FrozenInstanceError):
            r.x = "b"
        with pytest.raises(dataclasses.FrozenInstanceError):
            del r.x
        assert r.x == "a"


@record(frozen=True, slots=True)
class Pickled:
    x: str
    y: tuple = ()


def test_slots():
    dc, rec = twins(frozen=True, slots=True)(_frozen)
    assert rec.__slots__ == dc.__slots__ == ("x", "y")
    assert not hasattr(rec("a"), "__dict__")
    r = Pickled("a", (1,))
    assert not hasattr(r, "__dict__")
    assert pickle.loads(pickle.dumps(r)) == r
    assert copy.deepcopy(r) == r


def test_kw_only_and_wrong_calls():
    dc, rec = twins()(_kw)
    assert rec("a", agent="g") == rec(a="a", b=1, agent="g", tail=None)
    assert repr(rec("a", 2, agent="g")).endswith(repr(dc("a", 2, agent="g"))[len("K") :])
    for args, kwargs in [
        (("a",), {}),  # agent missing
        (("a", 1, "g"), {}),  # kw_only given positionally
        (("a",), {"agent": "g", "a": "again"}),
        (("a",), {"agent": "g", "nope": 1}),
    ]:
        with pytest.raises(TypeError):
            dc(*args, **kwargs)
        with pytest.raises(TypeError):
            rec(*args, **kwargs)


def test_declaration_errors_as_dataclass():
    def mutable_default():
        class M:
            a: list = []  # noqa: RUF012

        return M

    def order():
        class Order:
            a: int = 0
            b: int

        return Order

    for body, error in [(mutable_default, ValueError), (order, TypeError)]:
        with pytest.raises(error):
            dataclasses.dataclass(body())
        with pytest.raises(error):
            record(body())


def test_own_methods_and_explicit_hash_are_kept():
    @record(frozen=True, eq=False)
    class P:
        a: str

        def __eq__(self, other):
            return isinstance(other, P) and other.a.lower() == self.a.lower()

        def __hash__(self):
            return hash(self.a.lower())

    assert P("A") == P("a") and hash(P("A")) == hash(P("a"))

    @record
    class Q:
        a: int

        def __init__(self, a):
            self.a = a * 2

        def __post_init__(self):  # not called: the class's own __init__ runs
            raise AssertionError

    assert Q(2).a == 4

    @record
    class R:
        a: int
        b: int = field(init=False, default_factory=lambda: 7)

        def __post_init__(self):
            self.a += 1

    assert (R(1).a, R(1).b) == (2, 7)


def test_inherited_fields_come_first():
    @record
    class Base:
        a: int

    @record
    class Child(Base):
        b: int = 2

    assert [f.name for f in dataclasses.fields(Child)] == ["a", "b"]
    assert Child(1) == Child(1, 2) and Child(1).b == 2
    with pytest.raises(TypeError):
        record(frozen=True)(type("Frozen", (Base,), {"__annotations__": {"c": "int"}}))


def test_simherdr_records_are_dataclasses():
    """The serve path's classes made with @record still read as dataclasses."""
    from simherdr.facts import versions as V
    from simherdr.model import events as ev
    from simherdr.model import state

    v = V.resolve(V.DEFAULT_VERSION)
    assert set(dataclasses.asdict(v.rows)) == set(V.ROW_NAMES)
    assert dataclasses.replace(v.rows, events_lost_error=False).events_lost_error is False
    assert ev.PaneClosed("w1", "p1") == ev.PaneClosed("w1", "p1", False)
    assert hash(ev.TabCreated("w", "t")) == hash(ev.TabCreated("w", "t"))
    assert repr(ev.PaneCreated("p")) == "PaneCreated(pane_id='p')"
    assert state.Workspace.__hash__ is None  # eq and not frozen: unhashable, as before


def test_record_field_is_dataclasses_field_for_a_record():
    from simherdr.facts.record import field as rfield

    @record
    class A:
        a: str
        n: list = rfield(default_factory=list)
        hidden: int = rfield(default=0, repr=False, compare=False)
        k: str = rfield(default="k", kw_only=True)

    assert repr(A("x")).endswith("A(a='x', n=[], k='k')")
    assert A("x", hidden=1) == A("x", hidden=2)
    got = {f.name: f for f in dataclasses.fields(A)}
    assert got["n"].default_factory is list and got["n"].default is dataclasses.MISSING
    assert got["hidden"].repr is False and got["k"].kw_only is True
    assert dataclasses.asdict(A("x")) == {"a": "x", "n": [], "hidden": 0, "k": "k"}
    assert dataclasses.replace(A("x"), k="z").k == "z"


def test_the_model_and_the_releases_import_no_dataclasses():
    """The serve path's records are made without importing dataclasses; it is imported when
    something asks for the dataclass view (fields(), asdict(), replace())."""
    code = (
        "import sys; import simherdr.model.state, simherdr.runtime.config, "
        "simherdr.facts.versions as V; V.resolve('0.9.3'); "
        "print('dataclasses' in sys.modules); import dataclasses; "
        "print(len(dataclasses.fields(V.Rows)) == len(V.ROW_NAMES))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]


# --- __init__: the general form, then (made often, or a wrong call) the compiled one ---------

from simherdr.facts import record as record_module  # noqa: E402


def _shapes():
    """Class bodies covering every kind of field __init__ sets (each made as a twin)."""

    def plain():
        class C:
            a: str
            b: int = 0
            c: list = field(default_factory=list)
            d: str = field(default="d", repr=False, compare=False)
            hidden: dict = field(init=False, default_factory=dict)
            also: int = field(init=False, default=5)
            kind: ClassVar[str] = "C"

        return C

    def kw():
        class K:
            a: str
            b: int = 1
            agent: str = field(kw_only=True)
            tail: str | None = None
            n: list = field(kw_only=True, default_factory=list)

        return K

    def post():
        class P:
            a: int
            b: int = field(init=False, default_factory=lambda: 7)

            def __post_init__(self):
                object.__setattr__(self, "a", self.a + 1)  # frozen or not

        return P

    def named_self():
        class S:
            self: str
            other: int = 2

        return S

    def empty():
        class E:
            pass

        return E

    return [plain, kw, post, named_self, empty]


_OPTIONS = [{}, {"frozen": True}, {"frozen": True, "slots": True}]
_CALLS = {
    "C": [
        (("x",), {}),
        (("x", 2), {"d": "z"}),
        ((), {"a": "y", "c": [1]}),
        (("x", 1, [2], "e"), {}),
    ],
    "K": [
        (("a",), {"agent": "g"}),
        (("a", 2, "t"), {"agent": "g", "n": [1]}),
        ((), {"a": "a", "agent": "g"}),
    ],
    "P": [((1,), {}), ((), {"a": 3})],
    "S": [(("me",), {}), ((), {"self": "me", "other": 3})],
    "E": [((), {})],
}
_WRONG = {
    "C": [
        ((), {}),
        (("x", 1, [], "d", "extra"), {}),
        (("x",), {"a": "again"}),
        (("x",), {"nope": 1}),
        (("x",), {"hidden": {}}),
    ],
    "K": [
        (("a",), {}),
        (("a", 1, "t", "g"), {"agent": "g"}),
        ((), {"agent": "g"}),
        (("a",), {"agent": "g", "a": 1}),
    ],
    "P": [((), {}), ((1, 2), {}), ((1,), {"b": 2})],
    "S": [((), {}), (("a", 1, 2), {})],
    "E": [((1,), {}), ((), {"x": 1})],
}


def _state(obj) -> dict:
    names = [f.name for f in dataclasses.fields(obj)]
    return {n: getattr(obj, n) for n in names if hasattr(obj, n)}


@pytest.mark.parametrize("options", _OPTIONS)
@pytest.mark.parametrize("shape", _shapes(), ids=lambda s: s.__name__)
def test_both_forms_of_init_make_what_dataclass_makes(options, shape):
    """Cold (the general form) and hot (compiled after HOT_AFTER instances): the same fields,
    the same order of the instance's attributes, the same TypeError text for a wrong call."""
    dc, rec = twins(**options)(shape)
    name = dc.__name__
    for _round in ("cold", "hot"):
        for args, kwargs in _CALLS[name]:
            a, b = dc(*args, **kwargs), rec(*args, **kwargs)
            assert _state(a) == _state(b)
            assert repr(a).replace(dc.__qualname__, "") == repr(b).replace(rec.__qualname__, "")
            if not options.get("slots"):
                assert list(vars(a)) == list(vars(b))  # set in declared order
        for args, kwargs in _WRONG[name]:
            with pytest.raises(TypeError) as want:
                dc(*args, **kwargs)
            with pytest.raises(TypeError) as got:
                rec(*args, **kwargs)
            assert str(got.value).replace(rec.__qualname__, "") == str(want.value).replace(
                dc.__qualname__, ""
            )
        for _ in range(record_module.HOT_AFTER):
            rec(*_CALLS[name][0][0], **_CALLS[name][0][1])
    import inspect

    # the compiled form's parameters (the factory default's own object differs, not its repr)
    assert str(inspect.signature(rec)) == str(inspect.signature(dc))


def test_a_record_made_often_gets_the_compiled_init_and_a_rare_one_compiles_nothing():
    @record(frozen=True, slots=True)
    class Often:
        a: str
        b: int = 0

    @record
    class Rare:
        a: str
        n: list = field(default_factory=list)

    stub = Often.__init__
    for i in range(record_module.HOT_AFTER - 1):
        Often("x", i)
        Rare("y")
    assert Often.__init__ is stub and Rare.__init__.__code__.co_filename == record_module.__file__
    Often("x")
    made = Often.__init__
    assert made is not stub and made.__code__.co_filename == "<record __init__>"
    assert made.__code__.co_varnames == ("self", "a", "b")
    assert made.__qualname__ == f"{Often.__qualname__}.__init__"
    assert Often("q", 3) == Often(a="q", b=3) and Often("q").b == 0
    assert Rare("y").n is not Rare("y").n  # the general form: a factory per instance


def test_a_plain_subclass_compiles_its_records_init_in_the_record():
    @record
    class Base:
        a: int
        b: int = 2

    class Sub(Base):
        pass

    for _ in range(record_module.HOT_AFTER):
        Sub(1)
    assert "__init__" not in vars(Sub) and Base.__init__.__code__.co_filename == "<record __init__>"
    assert (Sub(1).a, Sub(1).b, Base(3, 4).b) == (1, 2, 4)
