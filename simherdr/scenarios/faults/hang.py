"""hang: never reply while the fault is active (toxiproxy's ``timeout`` toxic with no timeout).

A matching request is held before herdr sees it. It ends in one of three ways:

- the fault is removed (``Faults.remove`` / ``clear``, or ``fault.remove`` on the control
  plane) or its toxicity window closes: the request proceeds and is answered normally;
- the client goes away: no reply (nothing is written; the connection closes);
- the server stops: the connection is dropped like any other.

CHOICE: for a plain call the transport watches the connection only while interceptors are
installed; a client that half-closes its side (EOF) counts as gone, as it does for herdr's waits
(SOCKET.md §1.2). In-process (``Harness``) a plain call has no connection: only removal or the
window's end releases it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from .base import Fault
from .wait import wait_for


@dataclass(kw_only=True)
class Hang(Fault):
    type = "hang"

    _release: asyncio.Future | None = field(default=None, init=False, repr=False)

    def detach(self) -> None:
        if self._release is not None and not self._release.done():
            self._release.set_result(None)

    async def intercept(self, call, proceed):
        if self._release is None or self._release.done():
            self._release = asyncio.get_running_loop().create_future()
        _, end = self.window()
        why = await wait_for(self.sim, call, end, self._release, watch_client=True)
        if why == "gone":
            return None
        return await proceed()
