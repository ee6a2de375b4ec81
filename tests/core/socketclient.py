"""The suite's herdr socket client: :class:`simherdr.testing.SocketClient` with every reply
validated against the schema of the herdr version serving the socket
(tests/herdr_reference.py ``socket_version``). One request per connection."""

from __future__ import annotations

from simherdr.testing import SocketClient
from tests import herdr_reference as ref


def raw(path: str, data: bytes, timeout: float = 5.0, shut_write: bool = False) -> bytes:
    return SocketClient(path, timeout).exchange(data, half_close=shut_write)


def request(
    path: str,
    method: str,
    params: dict | None = None,
    rid: str = "t",
    timeout: float = 5.0,
    version: str | None = None,
) -> dict:
    check = ref.validator(version or ref.socket_version(path))
    return SocketClient(path, timeout, check).request(method, params, rid)


class Subscription:
    def __init__(
        self,
        path: str,
        subscriptions: list,
        rid: str = "sub",
        timeout: float = 5.0,
        version: str | None = None,
    ):
        self.version = version or ref.socket_version(path)
        client = SocketClient(path, timeout, ref.validator(self.version))
        self.stream = client.stream("events.subscribe", {"subscriptions": subscriptions}, rid)
        self.sock, self.file = self.stream.sock, self.stream.file

    def next(self) -> dict:
        obj = next(self.stream, None)
        assert obj is not None, "subscription closed"
        return obj

    def close(self):
        self.stream.close()
