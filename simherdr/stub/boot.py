"""The stand-in's start-up from its compact form (the bundle :mod:`.install` writes).

Never imported by the stand-in: :func:`simherdr.stub.install.write_stub` compiles this file
(with a last line ``start(f, b)``) into the head of the bundle, and the launcher executes that
code in its own namespace, where ``f`` is the bundle's file descriptor and ``b`` the head (this
code, then :func:`start`'s ``data``).

What it saves on every call (issue 26): the package's ``.pyc`` files are found, stat'ed, opened
and validated one by one by the path finder (a directory listing per package, a
``FileFinder`` per directory, ~6 system calls and ~40 k instructions per module), and the
launcher's release literal was parsed on every call.  Here a module is one ``pread`` of the
bundle and one ``stat`` of its source, and the release is unmarshalled with the head.

Fidelity to the files on disk: a bundled module is used only while its source has the size and
modification time recorded at install time (the check the ``.pyc`` cache makes); otherwise, and
for every module not in the bundle, the normal path finder imports the file (the launcher put
the project root on ``sys.path``).  ``_socket`` and ``_json`` load from the extension files the
installing interpreter found (the same interpreter runs the launcher), skipping the listing of
``lib-dynload``; a missing file falls back the same way.
"""

import marshal
import posix
import sys
from _frozen_importlib import ModuleSpec
from _frozen_importlib_external import ExtensionFileLoader


class Bundle:
    """A meta-path finder and loader over the bundle's modules."""

    def __init__(self, fd, root, modules, extensions):
        self.fd = fd
        self.root = root  # the project root ("<root>/simherdr/...")
        #: name -> (offset, size, source mtime_ns, source size, is package)
        self.modules = modules
        #: extension module name -> its file
        self.extensions = extensions

    def find_spec(self, name, path=None, target=None):
        entry = self.modules.get(name)
        if entry is None:
            origin = self.extensions.get(name)
            if origin is None:
                return None
            try:
                posix.stat(origin)
            except OSError:
                return None
            return ModuleSpec(name, ExtensionFileLoader(name, origin), origin=origin)
        offset, size, mtime_ns, source_size, package = entry
        origin = self.root + "/" + name.replace(".", "/") + ("/__init__.py" if package else ".py")
        try:
            st = posix.stat(origin)
        except OSError:
            return None
        if st.st_mtime_ns != mtime_ns or st.st_size != source_size:
            return None  # edited since install: the path finder loads the file itself
        # (a duck-typed loader: importlib.abc is not worth importing on every call)
        spec = ModuleSpec(
            name,
            self,  # type: ignore[arg-type]
            origin=origin,
            loader_state=(offset, size),
            is_package=package,
        )
        if package:
            spec.submodule_search_locations = [origin.rpartition("/")[0]]
        spec.has_location = True  # __file__ is the source file (api_schema finds its data by it)
        return spec

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        offset, size = module.__spec__.loader_state
        exec(marshal.loads(posix.pread(self.fd, size, offset)), module.__dict__)


def start(fd, data):
    """Install the finder, then what the launcher used to do: ``launch(argv, version=...)``.

    ``data``: (this code, project root, modules, extensions, the compact release)."""
    import gc

    gc.disable()  # a short-lived process: no collection passes while the code is unmarshalled
    _code, root, modules, extensions, release = data
    sys.path.insert(0, root)
    sys.meta_path.insert(0, Bundle(fd, root, modules, extensions))
    from simherdr.stub.cli.core import launch

    sys.exit(launch(sys.argv[1:], version=release))
