"""Running the server-free commands built as standalone modules (``run(verb, args, env,
version, out, err) -> int`` on text streams): a verb's ``standalone`` and the launcher's
``herdr server`` / ``herdr client`` (:mod:`.launch`).

Below :mod:`.core` and :mod:`.launcher` (both call :func:`run_module` with the module's
``run``, imported by them on use).
"""

from .base import SOCKET_PATH_ENV


def run_module(ctx, run, verb, args):
    """Call a standalone module's ``run`` with this invocation's environment and byte streams
    wrapped as text."""
    import io

    out = io.TextIOWrapper(
        ctx.stdout, encoding="utf-8", errors="surrogateescape", write_through=True
    )
    err = io.TextIOWrapper(
        ctx.stderr, encoding="utf-8", errors="surrogateescape", write_through=True
    )
    env = dict(ctx.env)
    if ctx.explicit_session:
        # `--session NAME` wins over HERDR_SOCKET_PATH (src/session.rs).
        env.pop(SOCKET_PATH_ENV, None)
    try:
        return run(verb, list(args), env, ctx.version, out, err)
    finally:
        out.flush()
        err.flush()
        out.detach()
        err.detach()
