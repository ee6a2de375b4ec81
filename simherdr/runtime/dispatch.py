"""Request -> handler, as herdr dispatches (SOCKET.md §1.2-1.4): parse, the shutdown check,
the interceptor chain (faults), then the method; a call commits its changes."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from .. import params as P
from ..facts import errors as E
from ..facts.record import record
from ..trace import Recorder, record_reply, record_request

if TYPE_CHECKING:
    from ..facts.versions import HerdrVersion
    from ..handlers.registry import MethodDef, Methods
    from ..outbox import Outbox

log = logging.getLogger("simherdr.simulator")

# Answered before the shutdown check ([H093] src/api/server.rs handle_request).
ANSWERED_WHILE_STOPPING = ("ping", "server.stop", "client_shell.surface.set")


@record
class Call:
    """One parsed request as an interceptor sees it (``kind``: "call" or "wait"; ``conn``: the
    client's connection when the transport watches it, else None)."""

    id: str
    method: str
    kind: str
    params: dict
    conn: Any = None
    origin: str | None = None  # the trace's connection label


Reply = dict | None


class Interceptor(Protocol):
    async def intercept(
        self, sim: Any, call: Call, proceed: Callable[[], Awaitable[Reply]]
    ) -> Reply: ...


class DispatchHost(Protocol):
    """What dispatch needs of the runtime; the host is also the handlers' context."""

    version: HerdrVersion
    methods: Methods
    interceptors: list
    trace: Recorder
    outbox: Outbox
    stopping: bool

    def run_due(self) -> None: ...

    def refresh_cwds(self) -> None: ...

    def commit(self) -> None: ...


class Dispatcher:
    def __init__(self, host: DispatchHost) -> None:
        self._host = host
        self._restarted: asyncio.Future | None = None

    # --- parsing ------------------------------------------------------------------------------

    def unparsable_id(self, obj: Any, duplicates: frozenset = frozenset()) -> str:
        """The id an unparsable request's error carries: "" (0.8.2), or the line's own string
        id when it is an object with exactly one ``id`` (profile row invalid_request_keeps_id)."""
        if (
            self._host.version.rows.invalid_request_keeps_id
            and isinstance(obj, dict)
            and isinstance(obj.get("id"), str)
            and "id" not in duplicates
        ):
            return obj["id"]
        return ""

    def retired(self, obj: Any, duplicates: frozenset = frozenset()) -> E.HerdrError | None:
        """unknown_method for a line naming a retired method (checked once the line fails
        to parse as a Request, which such a line always does)."""
        name = obj.get("method") if isinstance(obj, dict) else None
        if (
            isinstance(name, str)
            and name in self._host.version.retired_methods
            and "method" not in duplicates
        ):
            return E.unknown_method(name, self.unparsable_id(obj, duplicates))
        return None

    def parse(self, obj: Any):
        """(id, MethodDef, params) or raise HerdrError (invalid_request; unknown_method for a
        retired name), whose reply id is :meth:`unparsable_id`."""
        retired = self.retired(obj)
        if retired is not None:
            raise retired
        try:
            return self._parse(obj)
        except E.HerdrError as e:
            if e.reply_id is None:
                e.reply_id = self.unparsable_id(obj)
            raise

    def _parse(self, obj: Any):
        if not isinstance(obj, dict):
            raise E.invalid_request(f"invalid type: {P._json_kind(obj)}, expected struct Request")
        if "id" not in obj:
            raise E.invalid_request("missing field `id`")
        rid = obj["id"]
        if not isinstance(rid, str):
            raise E.invalid_request(f"invalid type: {P._json_kind(rid)}, expected a string")
        if "method" not in obj:
            raise E.invalid_request("missing field `method`")
        name = obj["method"]
        if not isinstance(name, str):
            raise E.invalid_request(
                f"invalid type: {P._json_kind(name)}, expected variant identifier"
            )
        version = self._host.version
        if name not in version.methods:
            raise E.invalid_request(f"unknown variant `{name}`")
        if "params" not in obj:
            raise E.invalid_request("missing field `params`")
        mdef = self._host.methods.get(name)
        if mdef is None:
            if not isinstance(obj["params"], dict):
                raise E.invalid_request(
                    f"invalid type: {P._json_kind(obj['params'])}, expected a map"
                )
            return rid, None, name
        try:
            p = P.parse(mdef.spec, obj["params"], version.rows)
        except P.ParamError as e:
            raise E.invalid_request(str(e)) from None
        return rid, mdef, p

    # --- requests -----------------------------------------------------------------------------

    async def request(
        self, obj: Any, conn=None, *, origin: str | None = None, peer_pid: int | None = None
    ) -> Reply:
        """Handle one parsed JSON request; returns the reply envelope (None: no reply).
        ``origin`` labels the client in the trace (the socket server gives ``c<N>``)."""
        origin = origin or "local"
        trace = self._host.trace
        record_request(trace, obj, origin, peer_pid)
        try:
            reply = await self._request(obj, conn, origin)
        except asyncio.CancelledError:
            record_reply(trace, obj, None, origin, cancelled=True)
            raise
        record_reply(trace, obj, reply, origin)
        return reply

    async def _request(self, obj: Any, conn, origin: str) -> Reply:
        try:
            rid, mdef, p = self.parse(obj)
        except E.HerdrError as e:
            return {"id": e.reply_id or "", "error": e.body()}
        if mdef is None:
            return {"id": rid, "error": E.not_implemented().body()}
        if self._host.interceptors:
            return await self._intercepted(Call(rid, mdef.name, mdef.kind, p, conn, origin), mdef)
        return await self.dispatch(rid, mdef, p, conn)

    async def _intercepted(self, call: Call, mdef: MethodDef) -> Reply:
        chain = list(self._host.interceptors)

        async def step(i: int) -> Reply:
            if i == len(chain):
                return await self.dispatch(call.id, mdef, call.params, call.conn)
            return await chain[i].intercept(self._host, call, lambda: step(i + 1))

        return await step(0)

    def answers_now(self, mdef: MethodDef | None) -> bool:
        """Whether a request for ``mdef`` (None: a name no method has) is answered without
        waiting: no interceptor, not a wait or a stream. The transport then calls
        :meth:`request_now` and needs no task."""
        return not self._host.interceptors and (mdef is None or mdef.kind == "call")

    def request_now(self, obj: Any, *, origin: str, peer_pid: int | None = None) -> dict:
        """:meth:`request` for a request that :meth:`answers_now`, synchronously."""
        trace = self._host.trace
        record_request(trace, obj, origin, peer_pid)
        try:
            rid, mdef, p = self.parse(obj)
        except E.HerdrError as e:
            reply = {"id": e.reply_id or "", "error": e.body()}
        else:
            if mdef is None:
                reply = {"id": rid, "error": E.not_implemented().body()}
            elif mdef.kind != "call":
                raise RuntimeError(f"{mdef.name} does not answer now")
            else:
                reply = self._dispatch_call(rid, mdef, p)
        record_reply(trace, obj, reply, origin)
        return reply

    def _dispatch_call(self, rid: str, mdef: MethodDef, p: dict) -> dict:
        if self._host.stopping and mdef.name not in ANSWERED_WHILE_STOPPING:
            return {"id": rid, "error": E.server_shutting_down().body()}
        try:
            return {"id": rid, "result": self.call(mdef, p, rid)}
        except E.HerdrError as e:
            return {"id": e.reply_id if e.reply_id is not None else rid, "error": e.body()}
        except Exception as e:  # a simulator bug (RecursionError included): answer, never hang
            log.exception("handler %s failed", mdef.name)
            return {"id": rid, "error": E.internal_error(type(e).__name__).body()}

    async def dispatch(self, rid: str, mdef: MethodDef, p: dict, conn=None) -> Reply:
        """The method itself, after parsing (and after any interceptors)."""
        if mdef.kind == "call":
            return self._dispatch_call(rid, mdef, p)
        host = self._host
        if host.stopping and mdef.name not in ANSWERED_WHILE_STOPPING:
            return {"id": rid, "error": E.server_shutting_down().body()}
        try:
            if mdef.kind == "wait":
                host.run_due()
                result = await self._until_restart(mdef.fn(host, p, rid, conn))
                return None if result is None else {"id": rid, "result": result}
            raise RuntimeError("streams go through the transport")
        except E.HerdrError as e:
            return {"id": e.reply_id if e.reply_id is not None else rid, "error": e.body()}
        except Exception as e:  # a simulator bug (RecursionError included): answer, never hang
            log.exception("handler %s failed", mdef.name)
            return {"id": rid, "error": E.internal_error(type(e).__name__).body()}

    def call(self, mdef: MethodDef, p: dict, rid: str) -> dict:
        host = self._host
        host.run_due()
        host.refresh_cwds()
        try:
            return mdef.fn(host, p)
        except E.HerdrError:
            raise
        except BaseException:
            # The events of a change that did not complete are not published (handlers do
            # their fallible work before they mutate; the model's walks are iterative).
            host.outbox.discard()
            raise
        finally:
            host.commit()

    # --- waits end with the server process ------------------------------------------------------

    async def _until_restart(self, coro):
        """Run a wait; a server restart ends it with no reply, as the old process's
        connections simply close."""
        if self._restarted is None or self._restarted.done():
            self._restarted = asyncio.get_running_loop().create_future()
        restarted = self._restarted
        task = asyncio.ensure_future(coro)
        try:
            await asyncio.wait({task, restarted}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            task.cancel()
            raise
        if task.done():
            return task.result()
        task.cancel()
        return None

    def end_waits(self) -> None:
        """The server process is gone: its waits end without a reply."""
        if self._restarted is not None and not self._restarted.done():
            self._restarted.set_result(None)
