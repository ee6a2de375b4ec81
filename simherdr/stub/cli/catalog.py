"""herdr 0.9.x's saved-machine catalog, read and written as herdr does (the stand-in's only
machine state; nothing of it is on the socket).

Sources ([H093], the fork renamed herdsman -> herdr): ``src/client/endpoint/catalog.rs``
(``EndpointCatalog``, ``SavedSshEndpoint``, ``validate``, ``load_from_paths``,
``store_private_json``, ``catalog_path``/``selection_path``), ``src/config/io.rs``
(``state_dir``), ``src/remote/args.rs`` (``validate_remote_target``), ``src/cli/target.rs``
(``resolve_machine``), ``src/session.rs`` (``validate_name``).

The catalog is ``$XDG_STATE_HOME/herdr/client/endpoints.json`` (else
``$HOME/.local/state/herdr/...``, else ``$TMPDIR/herdr-state/...``), JSON
``{"version": 1, "selected_profile"?: ID, "ssh": [{"id", "label", "target", "session",
"enabled"}]}``; the client's selection is ``endpoint-selection.json`` beside it.  It is not
config.toml: herdr's config reference has no machine keys.

Errors are herdr's strings (the caller wraps them as herdr does: ``io::Error::other`` for a
load or store failure, ``error: ...`` for a validation refusal).
"""

from . import base
from .catalogjson import PROFILE_FIELDS

CATALOG_VERSION = 1  # catalog.rs CATALOG_VERSION
SELECTION_VERSION = 1  # catalog.rs SELECTION_VERSION
MAX_CATALOG_BYTES = 64 * 1024  # catalog.rs MAX_CATALOG_BYTES
MAX_PROFILES = 64  # catalog.rs MAX_PROFILES
MAX_LABEL_BYTES = 128  # catalog.rs MAX_LABEL_BYTES
MAX_TARGET_BYTES = 1024  # catalog.rs MAX_TARGET_BYTES
PROFILE_ID_HEX = 32  # PROFILE_ID_BYTES * 2

#: CHOICE(profile-id): ``ProfileId::parse`` is in ``src/client/endpoint/mod.rs``, which the
#: index does not hold for the fork; this rule and text are those of a herdr tree of the same
#: family that has it (index id 59108613407: 16 bytes as 32 lowercase hex digits).  The fork
#: agrees where it can be read: its saved-bridge check (``src/remote/saved.rs``
#: ``validate_profile_path_id``) and its tests' ids are 32 lowercase hex digits.
PROFILE_ID_ERROR = "endpoint profile id must be 32 lowercase hexadecimal characters"

#: Rust ``str::trim``: Unicode White_Space (Python's ``str.strip`` also drops U+001C..U+001F).
RUST_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


class CatalogError(Exception):
    """A catalog failure: ``message`` is herdr's ``String`` error."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Profile:
    """``SavedSshEndpoint``."""

    __slots__ = ("enabled", "id", "label", "session", "target")

    def __init__(self, id: str, label: str, target: str, session: str, enabled: bool) -> None:
        self.id = id
        self.label = label
        self.target = target
        self.session = session
        self.enabled = enabled

    def as_json(self) -> dict:
        return {f: getattr(self, f) for f in PROFILE_FIELDS}


class Catalog:
    """``EndpointCatalog``: the profiles and the selected profile id (or None)."""

    __slots__ = ("selected", "ssh", "version")

    def __init__(self, version=CATALOG_VERSION, selected=None, ssh=None) -> None:
        self.version = version
        self.selected = selected
        self.ssh: list[Profile] = [] if ssh is None else ssh

    def find(self, profile_id: str) -> Profile | None:
        for profile in self.ssh:
            if profile.id == profile_id:
                return profile
        return None

    def as_json(self) -> dict:
        out: dict = {"version": self.version}
        if self.selected is not None:  # skip_serializing_if = "Option::is_none"
            out["selected_profile"] = self.selected
        out["ssh"] = [p.as_json() for p in self.ssh]
        return out


# -- paths ------------------------------------------------------------------------------------


def state_dir(env) -> str:
    """0.9.3 src/config/io.rs state_dir (non-Windows)."""
    xdg = base.var(env, "XDG_STATE_HOME")
    if xdg is not None:
        return base.join(xdg, base.APP_DIR_NAME)
    home = base.var(env, "HOME")
    if home is not None:
        return base.join(home, ".local/state/" + base.APP_DIR_NAME)
    return base.join(env.get("TMPDIR") or "/tmp", base.APP_DIR_NAME + "-state")


def catalog_path(env) -> str:
    return base.join(base.join(state_dir(env), "client"), "endpoints.json")


def selection_path(env) -> str:
    return base.join(base.join(state_dir(env), "client"), "endpoint-selection.json")


# -- validation -------------------------------------------------------------------------------


def has_control(text: str) -> bool:
    """Rust ``char::is_control``: the Unicode Cc category."""
    return any(ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F for ch in text)


def parse_profile_id(raw: str) -> str:
    """``ProfileId::parse`` (see :data:`PROFILE_ID_ERROR`)."""
    if len(raw) != PROFILE_ID_HEX or not all(ch in "0123456789abcdef" for ch in raw):
        raise CatalogError(PROFILE_ID_ERROR)
    return raw


def validate_remote_target(target: str) -> None:
    """src/remote/args.rs validate_remote_target."""
    if not target:
        raise CatalogError("missing value for --remote")
    if target.startswith("-"):
        raise CatalogError("--remote target must not start with '-'")


def validate_label(label: str) -> None:
    trimmed = label.strip(RUST_WHITESPACE)
    if not trimmed:
        raise CatalogError("SSH endpoint label cannot be empty")
    if len(trimmed.encode("utf-8", "surrogatepass")) > MAX_LABEL_BYTES or has_control(trimmed):
        raise CatalogError(
            "SSH endpoint label must be at most %d bytes and contain no control characters"
            % MAX_LABEL_BYTES
        )


def validate_target_text(target: str) -> None:
    if len(target.encode("utf-8", "surrogatepass")) > MAX_TARGET_BYTES or has_control(target):
        raise CatalogError(
            "SSH target must be at most %d bytes and contain no control characters"
            % MAX_TARGET_BYTES
        )


def validate_profile(profile: Profile) -> None:
    """``SavedSshEndpoint::validate``, in herdr's order."""
    parse_profile_id(profile.id)
    validate_label(profile.label)
    validate_target_text(profile.target)
    validate_remote_target(profile.target)
    authority = profile.target[6:] if profile.target.startswith("ssh://") else profile.target
    if "@" in authority and ":" in authority.rsplit("@", 1)[0]:
        raise CatalogError("SSH target must not contain a password")
    problem = base.validate_session_name(profile.session)
    if problem is not None:
        raise CatalogError(problem)


def validate_catalog(catalog: Catalog) -> None:
    """``EndpointCatalog::validate``."""
    if catalog.version != CATALOG_VERSION:
        raise CatalogError(
            "unsupported endpoint catalog version %d; expected %d"
            % (catalog.version, CATALOG_VERSION)
        )
    if len(catalog.ssh) > MAX_PROFILES:
        raise CatalogError("endpoint catalog contains more than %d SSH profiles" % MAX_PROFILES)
    seen = set()
    for profile in catalog.ssh:
        validate_profile(profile)
        if profile.id in seen:
            raise CatalogError("duplicate endpoint profile id %s" % profile.id)
        seen.add(profile.id)
    if catalog.selected is not None and not _enabled(catalog, catalog.selected):
        raise CatalogError("selected SSH endpoint is absent or disabled in the catalog")


def _enabled(catalog: Catalog, profile_id: str) -> bool:
    profile = catalog.find(profile_id)
    return profile is not None and profile.enabled


# -- load -------------------------------------------------------------------------------------


def _read_limited(path: str, what: str) -> bytes | None:
    """Open + size checks of ``load_from_path``; None when the file does not exist."""
    import posix

    try:
        fd = posix.open(base.fsencode(path), posix.O_RDONLY | posix.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise CatalogError(
            "failed to open endpoint %s %s: %s" % (what, path, _io_text(exc))
        ) from None
    try:
        try:
            size = posix.fstat(fd).st_size
        except OSError as exc:
            raise CatalogError(
                "failed to inspect endpoint %s: %s" % (what, base.os_error_text(exc))
            ) from None
        if size > MAX_CATALOG_BYTES:
            raise CatalogError("endpoint %s exceeds the storage limit" % what)
        chunks = []
        total = 0
        while total <= MAX_CATALOG_BYTES:
            try:
                chunk = posix.read(fd, MAX_CATALOG_BYTES + 1 - total)
            except OSError as exc:
                raise CatalogError(
                    "failed to read endpoint %s: %s" % (what, base.os_error_text(exc))
                ) from None
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    finally:
        posix.close(fd)
    return b"".join(chunks)


def load(env, *, selection: bool = True) -> Catalog:
    """``EndpointCatalog::load`` (``selection``) or ``load_profiles`` (the catalog file only:
    what ``--machine`` reads)."""
    data = _read_limited(catalog_path(env), "catalog")
    if data is None:
        catalog = Catalog()
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise CatalogError(
                "failed to read endpoint catalog: stream did not contain valid UTF-8"
            ) from None
        if len(data) > MAX_CATALOG_BYTES:
            raise CatalogError("endpoint catalog exceeds the storage limit")
        from .catalogjson import SerdeError, decode_catalog

        try:
            version, selected, profiles = decode_catalog(text)
        except SerdeError as exc:
            raise CatalogError("stored endpoint catalog is invalid: %s" % exc.text) from None
        catalog = Catalog(version, selected, [Profile(*fields) for fields in profiles])
        validate_catalog(catalog)
    if selection:
        _apply_selection(env, catalog)
    return catalog


def _apply_selection(env, catalog: Catalog) -> None:
    """``load_from_paths``: a readable selection naming an enabled profile (or none) replaces
    the catalog's own; any other is ignored.  CHOICE: herdr logs the ignored one through
    ``tracing::warn!`` (not on the CLI's stderr); the stand-in logs nothing."""
    try:
        data = _read_limited(selection_path(env), "selection")
    except CatalogError:
        return
    if data is None:
        return
    from .catalogjson import SerdeError, decode_selection

    try:
        version, selected = decode_selection(data.decode("utf-8", "surrogateescape"))
    except SerdeError:
        return
    if version != SELECTION_VERSION:
        return
    if selected is None or _enabled(catalog, selected):
        catalog.selected = selected


# -- resolve ----------------------------------------------------------------------------------


def resolve(profiles: "list[Profile]", selector: str) -> Profile:
    """src/cli/target.rs resolve_machine: the id first, then a unique label; an enabled one."""
    profile = next((p for p in profiles if p.id == selector), None)
    if profile is None:
        matches = [p for p in profiles if p.label == selector]
        if not matches:
            raise CatalogError("unknown machine '%s'; use `herdr machine list`" % selector)
        if len(matches) > 1:
            raise CatalogError("machine label '%s' is ambiguous; use its profile ID" % selector)
        profile = matches[0]
    if not profile.enabled:
        raise CatalogError("machine '%s' is disabled" % selector)
    return profile


# -- store ------------------------------------------------------------------------------------

_NEXT_TEMP = [1]  # catalog.rs NEXT_TEMP_FILE


def pretty(value) -> str:
    """``serde_json::to_string_pretty`` for the catalog's values (strings, ints, bools)."""
    import json

    return json.dumps(value, indent=2, ensure_ascii=False)


def store(env, catalog: Catalog) -> None:
    """``store_profiles``: validate, then write the catalog privately and atomically."""
    validate_catalog(catalog)
    _store_private_json(catalog_path(env), pretty(catalog.as_json()), "endpoint catalog")


def store_selection(env, catalog: Catalog) -> None:
    """``store_selection``: ``{"version": 1, "selected_profile": ID or null}``."""
    validate_catalog(catalog)
    content = pretty({"version": SELECTION_VERSION, "selected_profile": catalog.selected})
    _store_private_json(selection_path(env), content, "endpoint selection")


def _store_private_json(path: str, text: str, what: str) -> None:
    """catalog.rs store_private_json: temp file in the same directory (0600), fsync, rename,
    fsync the directory."""
    import posix

    content = text.encode("utf-8", "surrogatepass")
    if len(content) > MAX_CATALOG_BYTES:
        raise CatalogError("%s exceeds the storage limit" % what)
    parent = path.rsplit("/", 1)[0] if "/" in path else "."
    parent = parent or "/"
    try:
        _create_dir_all(parent)
    except (OSError, ValueError) as exc:
        raise CatalogError("failed to create %s directory: %s" % (what, _io_text(exc))) from None
    try:
        mode = posix.lstat(base.fsencode(path)).st_mode
    except OSError:
        pass
    else:
        if (mode & 0o170000) != 0o100000:  # a symlink or not a regular file
            raise CatalogError("refusing to replace %s through a non-file path" % what)
    sequence = _NEXT_TEMP[0]
    _NEXT_TEMP[0] += 1
    temp = base.join(parent, ".endpoints-%d-%d.tmp" % (posix.getpid(), sequence))
    flags = posix.O_WRONLY | posix.O_CREAT | posix.O_EXCL | posix.O_CLOEXEC
    try:
        fd = posix.open(base.fsencode(temp), flags, 0o600)
    except OSError as exc:
        raise CatalogError("failed to create %s: %s" % (what, base.os_error_text(exc))) from None
    try:
        view = memoryview(content)
        while view:
            view = view[posix.write(fd, view) :]
        posix.fsync(fd)
    except OSError as exc:
        posix.close(fd)
        _remove_quietly(temp)
        raise CatalogError("failed to write %s: %s" % (what, base.os_error_text(exc))) from None
    posix.close(fd)
    try:
        posix.rename(base.fsencode(temp), base.fsencode(path))
    except OSError as exc:
        _remove_quietly(temp)
        raise CatalogError("failed to activate %s: %s" % (what, base.os_error_text(exc))) from None
    try:
        dir_fd = posix.open(base.fsencode(parent), posix.O_RDONLY | posix.O_CLOEXEC)
        try:
            posix.fsync(dir_fd)
        finally:
            posix.close(dir_fd)
    except OSError as exc:
        raise CatalogError(
            "failed to persist %s directory: %s" % (what, base.os_error_text(exc))
        ) from None


def _io_text(exc: Exception) -> str:
    """An OSError's Rust text; a NUL in the path (ValueError) is Rust's InvalidInput."""
    if isinstance(exc, OSError):
        return base.os_error_text(exc)
    return "file name contained an unexpected NUL byte"


def _create_dir_all(path: str) -> None:
    import posix

    try:
        posix.mkdir(base.fsencode(path), 0o777)
    except FileExistsError:
        if (posix.stat(base.fsencode(path)).st_mode & 0o170000) != 0o040000:
            raise
    except FileNotFoundError:
        parent = path.rsplit("/", 1)[0]
        if not parent or parent == path:
            raise
        _create_dir_all(parent)
        posix.mkdir(base.fsencode(path), 0o777)


def _remove_quietly(path: str) -> None:
    import posix

    try:
        posix.unlink(base.fsencode(path))
    except OSError:
        pass
