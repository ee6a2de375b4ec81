"""The stand-in's start-up from its compact form (the bundle :mod:`.install` writes).

Never imported by the stand-in: :func:`simherdr.stub.install.write_stub` compiles this file
(with a last line ``start(f, b)``) into the head of the bundle, and the launcher executes that
code in its own namespace, where ``f`` is the bundle's file descriptor and ``b`` the head (this
code, then :func:`start`'s ``data``).

What it saves on every call (issue 26, ``herdr pane get`` measured in instructions): the path
finder found, stat'ed, opened and validated the package's ``.pyc`` files one by one (a
directory listing and a ``FileFinder`` per package, ~6 system calls a module), the launcher's
release literal was parsed on every call, and importlib's ``_find_and_load`` (module locks, the
finder walk, attribute probes whose misses each format an AttributeError) ran for every
module.  Here a module is one ``stat`` of its source, one ``pread`` of the bundle and an
``exec``, through :meth:`Bundle.import_` (``builtins.__import__``); the release comes
unmarshalled with the head.

Fidelity to the files on disk: a bundled module is used only while its source has the size and
modification time recorded at install time (the check the ``.pyc`` cache makes); otherwise, and
for every module not in the bundle, the normal path finder imports the file (the launcher put
the project root on ``sys.path``).  ``_socket`` and ``_json`` load from the extension files the
installing interpreter found (the same interpreter runs the launcher), skipping the listing of
``lib-dynload``; a missing file falls back the same way.
"""

import builtins
import marshal
import posix
import sys
from _frozen_importlib import ModuleSpec, module_from_spec
from _frozen_importlib_external import ExtensionFileLoader

ModuleType = type(sys)  # (the types module is not worth importing)


class Bundle:
    """The bundle's modules: a meta-path finder and loader (for importlib's callers), and an
    ``__import__`` that loads them without importlib's per-module machinery (module locks,
    the finder walk, ~100 k instructions a module; every ``import`` statement of the stand-in
    goes through it, and whatever it does not hold goes on to the interpreter's own)."""

    def __init__(self, fd, root, modules, extensions, original_import):
        self.fd = fd
        self.cache_tag = sys.implementation.cache_tag  # __cached__ as importlib names it
        self.root = root  # the project root ("<root>/simherdr/...")
        #: name -> (offset, size, source mtime_ns, source size, is package)
        self.modules = modules
        #: extension module name -> its file
        self.extensions = extensions
        self.original_import = original_import

    # -- importlib's protocol ------------------------------------------------------------------
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
            spec = ModuleSpec(name, ExtensionFileLoader(name, origin), origin=origin)
            spec.has_location = True
            return spec
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

    # -- the import statement --------------------------------------------------------------------
    def load(self, name):
        """Import the bundled module ``name`` (its parents first) the way importlib's
        ``_find_and_load`` does, without its locks and attribute probes (each miss formats an
        AttributeError); None when the path finder must (edited source, missing file)."""
        parent, _, child = name.rpartition(".")
        if parent and parent not in sys.modules:
            self.import_(parent)
            module = sys.modules.get(name)
            if module is not None:  # the parent's own code imported it
                return module
        spec = self.find_spec(name)
        if spec is None:
            return None
        loader = spec.loader
        if loader is self:
            module = ModuleType(name)
            attrs = module.__dict__
            attrs["__spec__"] = spec
            attrs["__loader__"] = self
            attrs["__file__"] = origin = spec.origin
            directory, _, stem = origin.rpartition("/")
            spec.cached = attrs["__cached__"] = (
                directory + "/__pycache__/" + stem[:-3] + "." + self.cache_tag + ".pyc"
            )
            if spec.submodule_search_locations is not None:
                attrs["__package__"] = name
                attrs["__path__"] = spec.submodule_search_locations
            else:
                attrs["__package__"] = parent
        else:  # an extension module
            module = module_from_spec(spec)
        sys.modules[name] = module
        spec._initializing = True
        try:
            loader.exec_module(module)
        except BaseException:
            sys.modules.pop(name, None)
            raise
        finally:
            spec._initializing = False
        module = sys.modules[name]
        if parent:
            setattr(sys.modules[parent], child, module)
        return module

    def import_(self, name, globals=None, locals=None, fromlist=(), level=0):
        """``builtins.__import__`` for the bundle's modules; anything else is the original's."""
        if level:
            package = globals.get("__package__") if globals else None
            if not package or not fromlist:
                return self.original_import(name, globals, locals, fromlist, level)
            if level > 1:
                parts = package.rsplit(".", level - 1)
                if len(parts) < level:  # beyond the top-level package: the original's error
                    return self.original_import(name, globals, locals, fromlist, level)
                package = parts[0]
            absolute = package + "." + name if name else package
        else:
            absolute = name
        module = sys.modules.get(absolute)
        if module is None:
            if absolute not in self.modules and absolute not in self.extensions:
                return self.original_import(name, globals, locals, fromlist, level)
            module = self.load(absolute)
            if module is None:
                return self.original_import(name, globals, locals, fromlist, level)
        if fromlist:
            attrs = getattr(module, "__dict__", None)
            if attrs is None:
                return self.original_import(name, globals, locals, fromlist, level)
            if "__path__" in attrs:  # `from package import name`: maybe a submodule
                for item in fromlist:
                    if item not in attrs:
                        sub = absolute + "." + item
                        if sub not in self.modules or self.load(sub) is None:  # ("*" too)
                            return self.original_import(name, globals, locals, fromlist, level)
            return module
        if "." in absolute:  # `import a.b.c` binds `a`
            return sys.modules[absolute.partition(".")[0]]
        return module


def start(fd, data):
    """Install the finder and the import, then what the launcher used to do:
    ``launch(argv, version=...)``.

    ``data``: (this code, project root, modules, extensions, the compact release)."""
    import gc

    gc.disable()  # a short-lived process: no collection passes while the code is unmarshalled
    _code, root, modules, extensions, release = data
    sys.path.insert(0, root)
    bundle = Bundle(fd, root, modules, extensions, builtins.__import__)
    sys.meta_path.insert(0, bundle)
    builtins.__import__ = bundle.import_
    from simherdr.stub.cli.core import launch

    sys.exit(launch(sys.argv[1:], version=release))
