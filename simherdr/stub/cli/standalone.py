"""Running the server-free commands built as standalone modules (``run(verb, args, env,
version, out, err) -> int`` on text streams): a table row's ``mod`` and the launcher's
``herdr server`` / ``herdr client`` (:mod:`.launch`).

Below :mod:`.core` and :mod:`.launcher` (both call :func:`run_module`); the modules it runs are
named by string and imported on use, like a row's ``run`` target (:func:`.table.call`).
"""

from .base import SOCKET_PATH_ENV, unsupported

#: Module -> its command words, for the "not supported" line while a module does not exist.
_MODULE_COMMANDS = {"api_schema": "api schema", "config_check": "config check"}


def run_module(ctx, module_name, verb, args, command=None):
    """Run ``module_name``'s ``run`` with this invocation's environment and byte streams
    wrapped as text; until the module exists the verb answers "not supported"."""
    try:
        module = __import__(__package__ + "." + module_name, fromlist=["run"])
    except ImportError as exc:
        if exc.name != __package__ + "." + module_name:
            raise
        return unsupported(ctx, command or "herdr %s" % _MODULE_COMMANDS.get(module_name, verb))
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
        return module.run(verb, list(args), env, ctx.version, out, err)
    finally:
        out.flush()
        err.flush()
        out.detach()
        err.detach()
