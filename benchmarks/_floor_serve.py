"""The floor for ``simherdr serve``'s start: the least an asyncio Unix-socket server can do.

asyncio imported as serve imports it (``ssl`` blocked), then :mod:`benchmarks._echo`'s server
answering each connection's line with a pong. No simherdr code: the serve benchmark times this
next to serve, so its figure shows what any asyncio-based serve costs before simherdr runs a
line. Run as ``python -m benchmarks._floor_serve PATH``.
"""

import sys

sys.modules.setdefault("ssl", None)  # type: ignore[arg-type]  # as simherdr.cli._serve does
import asyncio  # noqa: E402

from . import _echo  # noqa: E402

if __name__ == "__main__":
    _echo.REPLY = b'{"id":"b","result":{"type":"pong"}}\n'
    asyncio.run(_echo.main(sys.argv[1]))
