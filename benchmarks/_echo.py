"""The floor for a Python server: a bare asyncio Unix-socket echo server, same framing as
herdr (one ``\\n``-terminated line per connection, one line back, close). Run by the socket
benchmark as ``python -m benchmarks._echo PATH``."""

import asyncio
import sys

REPLY: bytes | None = None  # set: answer every line with this instead (benchmarks._floor_serve)


async def handle(reader, writer):
    try:
        line = await reader.readuntil(b"\n")
        writer.write(line if REPLY is None else REPLY)
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
