"""How a stand-in call ends early: :class:`Exit` (a message and a status) and :class:`Failure`
(an error that prints its own report), raised anywhere below :func:`.core.run` and reported
there, and the usage / not-supported texts they carry.

Beside :mod:`.paths` the bottom of the package (it imports nothing), so the modules the core
dispatches to (:mod:`.scan`, :mod:`.wire`, :mod:`.rust`, :mod:`.launcher`, :mod:`.machine`, the
group modules) raise these without importing the core.
"""

#: What every command this stand-in does not implement prints (stderr, exit 2).
UNSUPPORTED_MESSAGE = "simherdr: '{command}' is not supported by this stand-in"
UNSUPPORTED_EXIT_CODE = 2

USAGE_FOOTER = "run 'herdr --help' for usage"


class Failure(Exception):
    """Base for everything that ends the process with its own report (see .rust)."""

    def report(self, ctx):  # pragma: no cover - overridden
        return 1


class Exit(Exception):
    """Print ``message`` (if any) to stderr (or stdout) and exit with ``code``."""

    def __init__(self, code, message=None, stdout=False):
        super().__init__(message)
        self.code = code
        self.message = message
        self.stdout = stdout


def usage(message, code=2):
    return Exit(code, message)


def fail_global(message):
    return Exit(2, "error: %s\n%s" % (message, USAGE_FOOTER))


def unsupported(ctx, command):
    ctx.write_err(UNSUPPORTED_MESSAGE.format(command=command) + "\n")
    return UNSUPPORTED_EXIT_CODE
