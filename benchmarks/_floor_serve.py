"""The floor for ``simherdr serve``'s start: the least an asyncio Unix-socket server can do.

asyncio imported as serve imports it (``ssl`` blocked), one server on PATH answering each
connection's first line with one line. No simherdr code: the serve benchmark times this next
to serve, so its figure shows what any asyncio-based serve costs before simherdr runs a line.
Run as ``python -m benchmarks._floor_serve PATH``.
"""

import sys

sys.modules.setdefault("ssl", None)  # type: ignore[arg-type]  # as simherdr.cli._serve does
import asyncio  # noqa: E402

_PONG = b'{"id":"b","result":{"type":"pong"}}\n'


async def handle(reader, writer):
    try:
        await reader.readuntil(b"\n")
        writer.write(_PONG)
        await writer.drain()
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        pass
    finally:
        writer.close()


async def main(path):
    await asyncio.start_unix_server(handle, path=path)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
