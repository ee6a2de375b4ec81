"""Hypothesis strategies for hostile requests, derived from the method registry's specs
(simherdr/handlers/registry.py), and the oracle that says what the server must answer."""

from __future__ import annotations

import json

from hypothesis import strategies as st

from simherdr import params as P
from simherdr.facts import errors as E
from simherdr.facts.methods import ALL_METHODS
from simherdr.handlers.registry import load_all
from simherdr.server import MAX_REQUEST_BYTES, decode_request
from simherdr.wire import DuplicateField

METHODS = load_all()
#: methods with effects outside the simulator (git on disk) or that end the server: never run
#: with valid params by the generators (they still get every kind of invalid params)
UNSAFE = frozenset(
    {"server.stop", "worktree.create", "worktree.remove", "worktree.open", "worktree.list"}
)
UNMODELLED = sorted(ALL_METHODS - set(METHODS))
# herdr's known-but-unmodelled names (answer not_implemented); none are left today, so the
# strategy draws nothing rather than failing on an empty sample.
UNMODELLED_NAMES = st.sampled_from(UNMODELLED) if UNMODELLED else st.nothing()

INTS = (
    st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.sampled_from([0, -1, 2**32 - 1, 2**32, 2**64 - 1, 2**64, 10**30])
)
SCALARS = (
    st.none()
    | st.booleans()
    | INTS
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
)
JSON = st.recursive(
    SCALARS,
    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
    max_leaves=10,
)
IDS = st.sampled_from(
    [
        "w1",
        "w1:p1",
        "w1:p2",
        "w1:t1",
        "w1:t2",
        "w2",
        "1",
        "2",
        "0",
        "w_1",
        "w1-1",
        "w1:1",
        "t_w1_1",
        "p_1",
        "w1:pZZ",
        "w0",
        "wI",
        "",
        " ",
        "w1:p1\n",
        "²",
        "w1-²",
        "agent",
    ]
)
TEXT = st.text(max_size=30) | IDS

# JSON kind a check expects (None: a custom check, anything goes)
KINDS = {
    P.STR: "string",
    P.BOOL: "boolean",
    P.U64: "integer",
    P.U32: "integer",
    P.FLOAT: "number",
    P.LIST_STR: "array",
    P.MAP_STR: "object",
    P.OBJ: "object",
}
SAMPLES = {
    "null": None,
    "boolean": True,
    "integer": 7,
    "negative": -1,
    "huge": 2**70,
    "number": 1.5,
    "string": "x",
    "array": ["x"],
    "object": {"x": 1},
}
ACCEPTS = {
    "string": {"string"},
    "boolean": {"boolean"},
    "integer": {"integer"},
    "number": {"integer", "negative", "huge", "number"},
    "array": {"array"},
    "object": {"object"},
}


def kind_of(check) -> str | None:
    if check in KINDS:
        return KINDS[check]
    if isinstance(check, P.Enum):
        return "string"
    if isinstance(check, (P.Struct, P.Tagged)):
        return "object"
    if isinstance(check, P.ListOf):
        return "array"
    return None


def typed(check) -> st.SearchStrategy:
    """Values of the right JSON kind (often valid), to get past the parser into handlers."""
    if check is P.STR:
        return TEXT
    if check is P.BOOL:
        return st.booleans()
    if check in (P.U64, P.U32):
        return st.integers(min_value=0, max_value=2**64 - 1) | st.sampled_from(
            [0, 1, 100, 2**32, 2**64]
        )
    if check is P.FLOAT:
        return st.floats(allow_nan=False, allow_infinity=False) | st.integers(-5, 5)
    if check is P.LIST_STR:
        return st.lists(
            st.sampled_from(["enter", "ctrl+c", "a", "f1", "bogus", "esc", "C-x"])
            | st.text(max_size=5),
            max_size=4,
        )
    if check in (P.MAP_STR,):
        return st.dictionaries(st.text(max_size=8), st.text(max_size=8), max_size=3)
    if isinstance(check, P.Enum):
        return st.sampled_from(check.variants) | st.text(max_size=8)
    if isinstance(check, P.Tagged):
        # P.tagged: {"type": <variant>, ...that variant's fields}, or the variant missing/odd.
        tagged = check.tagged_variants
        return (
            st.sampled_from(sorted(tagged)).flatmap(
                lambda tag: params_for(tagged[tag]).map(
                    lambda fields, tag=tag: {"type": tag, **fields}
                )
            )
            | JSON
        )
    if isinstance(check, P.Struct):
        return params_for(check.fields)
    if isinstance(check, P.ListOf):
        return st.lists(
            JSON
            | st.fixed_dictionaries(
                {
                    "type": st.sampled_from(
                        [
                            "pane.created",
                            "workspace.renamed",
                            "pane.agent_status_changed",
                            "pane.output_matched",
                            "pane.scroll_changed",
                            "bogus",
                        ]
                    )
                },
                optional={"pane_id": IDS, "agent_status": TEXT},
            ),
            max_size=3,
        )
    return JSON | st.fixed_dictionaries(
        {"event": st.sampled_from(["pane_agent_status_changed", "pane_created", "bogus"])},
        optional={"pane_id": IDS, "agent_status": TEXT},
    )


#: params strategies by spec (the spec kept to check the id is its own)
_PARAMS: dict[int, tuple[dict, st.SearchStrategy]] = {}


def params_for(spec: dict) -> st.SearchStrategy:
    """Params for a spec: mostly well typed with the required fields present (so handlers
    run), sometimes any field missing or of any JSON kind. Built once per spec: the tests
    draw it on every example, and Hypothesis validates a strategy built anew by walking all
    of it again (what it draws is the same either way)."""
    hit = _PARAMS.get(id(spec))
    if hit is not None and hit[0] is spec:
        return hit[1]
    strategy = _params_for(spec)
    _PARAMS[id(spec)] = (spec, strategy)
    return strategy


def _params_for(spec: dict) -> st.SearchStrategy:
    value = {
        name: st.one_of(typed(f.check), typed(f.check), typed(f.check), JSON)
        for name, f in spec.items()
    }
    required = {n for n, f in spec.items() if not f.opt and f.default is P._MISSING}
    complete = st.fixed_dictionaries(
        {n: v for n, v in value.items() if n in required},
        optional={n: v for n, v in value.items() if n not in required},
    )
    return st.one_of(complete, complete, complete, st.fixed_dictionaries({}, optional=value))


@st.composite
def request_objs(draw):
    """Request-shaped objects: usually an id, a method and params, each sometimes wrong."""
    obj = {}
    if draw(st.integers(0, 9)):
        obj["id"] = draw(st.text(max_size=12) if draw(st.integers(0, 4)) else JSON)
    name = draw(st.sampled_from(sorted(METHODS)) | UNMODELLED_NAMES | st.text(max_size=15))
    if draw(st.integers(0, 9)):
        obj["method"] = name if draw(st.integers(0, 5)) else draw(JSON)
    if draw(st.integers(0, 9)):
        mdef = METHODS.get(name)
        obj["params"] = (
            draw(params_for(mdef.spec)) if mdef and draw(st.integers(0, 4)) else draw(JSON)
        )
    if not draw(st.integers(0, 4)):
        obj[draw(st.text(max_size=6))] = draw(JSON)
    return obj


# --- the oracle ------------------------------------------------------------------------------


class Expect:
    """What a request line must get: ``none`` (dropped silently), ``invalid`` (``code``:
    invalid_request, or unknown_method for a retired name; id ``rid``: "" in 0.8.2, the line's
    own string id in 0.9.2+), ``not_implemented`` (echoing the id), or ``runs``."""

    def __init__(self, outcome: str, rid=None, mdef=None, code: str = "invalid_request"):
        self.outcome, self.rid, self.mdef, self.code = outcome, rid, mdef, code

    def __repr__(self):
        return f"Expect({self.outcome}, {self.rid!r}, {self.mdef.name if self.mdef else None})"


def expect_line(sim, data: bytes) -> Expect:
    """Apply herdr's framing rules (SOCKET.md §1.2-1.4) to raw bytes sent on a connection."""
    if b"\n" not in data:
        return Expect("none")
    line = data.split(b"\n", 1)[0]
    if len(line) > MAX_REQUEST_BYTES:
        return Expect("none")
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return Expect("none")
    if not text.strip():
        return Expect("none")
    try:
        obj = decode_request(text.strip())
    except DuplicateField as e:
        return invalid_for(sim.version, e.obj, e.names)
    except (ValueError, RecursionError):
        return Expect("invalid", "")
    return expect_obj(sim, obj)


def invalid_for(version, obj, duplicates: frozenset = frozenset()) -> Expect:
    """The refusal of a line that does not parse, from the release's rows alone."""
    rid = ""
    if (
        version.rows.invalid_request_keeps_id
        and isinstance(obj, dict)
        and isinstance(obj.get("id"), str)
        and "id" not in duplicates
    ):
        rid = obj["id"]
    name = obj.get("method") if isinstance(obj, dict) else None
    if isinstance(name, str) and name in version.retired_methods and "method" not in duplicates:
        return Expect("invalid", rid, code="unknown_method")
    return Expect("invalid", rid)


def expect_obj(sim, obj) -> Expect:
    try:
        rid, mdef, _ = sim.parse(obj)
    except E.HerdrError:
        return invalid_for(sim.version, obj)
    if mdef is None:
        return Expect("not_implemented", rid)
    return Expect("runs", rid, mdef)


def encode_line(obj) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def wrong_type_matrix():
    """(method, field, kind, value) for every registered method's every field with a known JSON
    kind, and every JSON kind it does not accept (null only where the field is not optional)."""
    out = []
    for name, mdef in sorted(METHODS.items()):
        for field, f in mdef.spec.items():
            kind = kind_of(f.check)
            if kind is None:
                continue
            for wrong, value in SAMPLES.items():
                if wrong in ACCEPTS[kind] or (wrong == "null" and f.opt):
                    continue
                if kind == "integer" and wrong in ("negative", "huge"):
                    pass  # a u64/u32 refuses negative and out-of-range integers too
                elif wrong in ("negative", "huge"):
                    continue
                out.append((name, field, wrong, value))
    return out
