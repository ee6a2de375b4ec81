"""worktree.list / open / create / remove (SOCKET.md §9; herdr src/app/api/worktrees.rs and
src/app/api/worktrees/deferred.rs at herdrdev/herdr 1c76079f, cited as ``api:<lines>`` and
``deferred:<lines>``).

Git on disk is the truth: every answer comes from :mod:`simherdr.git` (the filesystem walk
herdr does, and real ``git worktree`` commands). ``list`` and ``open`` run git inline, as herdr's
app thread does; ``create`` and ``remove`` are handed to a worker thread
(:func:`asyncio.to_thread`) and answer when git finishes, while other requests are served
(SOCKET.md §9.4).

Paths are kept as herdr keeps them: a path a client gives (``cwd``, ``path``) or that the
filesystem walk reaches keeps its spelling, symlinks included; a path git lists is git's own
(real) spelling; every comparison between checkouts is done on canonical forms
(``canonical_or_original``: realpath when the path exists). So with a symlinked repository:
``worktree.list --cwd <link>`` reports ``repo_root``/``source_checkout_path`` as ``<link>`` but
each entry's ``path`` as git prints it; ``worktree.open --path <link>`` finds the entry
canonically and opens the workspace at git's spelling; ``worktree.create --path <link>/x``
keeps ``<link>/x`` as the workspace cwd and membership ``checkout_path`` (api:98-101,473-490,
529-548; deferred:126-139,343-472; src/workspace/git/discovery.rs:249-267).

Behaviour chosen, not read (each named where it is implemented):
* ``CHOICE(git-space)``: herdr consults a workspace's *cached* git metadata, refreshed in
  the background; here it is always computed fresh from the workspace's identity cwd.
* ``CHOICE(selected)``: herdr falls back to the *selected* workspace when none is active; the
  simulator has no separate selection, so no active workspace means the invalid_request.
* ``CHOICE(force-shutdown)``: ``remove --force`` shuts the pane processes down before git runs
  (deferred:299-301); here the panes stay as they are until the workspace closes.
* ``CHOICE(trust)``: ``trust_repository`` (0.9.x) is passed to every git command the method
  runs, read from a 0.9.x ``deferred.rs`` seen in a public fork (create: ``worktree add``,
  remove: ``worktree remove`` and its recovery, list/open: ``worktree list``); discovery of a
  linked checkout's parent in ``list`` uses it too.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from .. import git
from .. import params as P
from .. import views as V
from ..facts import errors as E
from ..facts import ids
from ..facts.paths import rust_paths_equal
from ..git.layout import FoundCheckout, canonical_or_original, find_checkout, repo_name_for
from ..model import events as ev
from ..model.membership import Membership
from ..model.state import Session, Workspace
from .common import auto_label, close_with_group
from .context import HandlerContext, WorktreeOperations
from .registry import method

#: ``trust_repository``: a 0.9.x field (#3044) on all four methods (VERSIONS.md §1.3); 0.8.2
#: ignores it as an unknown key.
TRUST = P.versioned(P.dflt(P.BOOL, False), lambda rows: rows.trust_repository)


def _trust(sim, p: dict) -> bool:
    return p["trust_repository"]


# --- what the git layer says about a workspace or a path -----------------------------------------


def _git_space(s: Session, w: Workspace) -> FoundCheckout | None:
    """The checkout around the workspace's identity cwd. CHOICE(git-space): always fresh."""
    cwd = s.identity_cwd(w)
    return find_checkout(cwd) if cwd else None


def holder_of_checkout(
    s: Session, checkout_path: str, membership_only: bool = False
) -> Workspace | None:
    """SOCKET.md §9.1 "which workspace holds a checkout" (api:569-597): the first workspace in
    sidebar order whose membership checkout_path canonically equals the path, or whose git
    checkout key equals it, or whose identity cwd canonically equals it.

    ``membership_only`` (profile row ``checkout_holder_membership_only``, 0.9.x): a workspace
    with a membership holds only its membership's checkout, whatever its shell's cwd ([H093]
    src/app/api/worktrees.rs open_workspace_idx_for_checkout)."""
    canonical = canonical_or_original(checkout_path)
    for w in s.workspaces:
        m = w.worktree
        if m and canonical_or_original(m.checkout_path) == canonical:
            return w
        if m and membership_only:
            continue
        cwd = s.identity_cwd(w)
        space = find_checkout(cwd) if cwd else None
        if space is not None and canonical_or_original(space.checkout_root) == canonical:
            return w
        if cwd and canonical_or_original(cwd) == canonical:
            return w
    return None


def _by_membership(sim) -> bool:
    return sim.version.rows.checkout_holder_membership_only


def _parent_by_key(s: Session, repo_key: str) -> Workspace | None:
    """``find_parent_workspace_by_key`` (api:427-435): non-linked membership or git space."""
    for w in s.workspaces:
        m = w.worktree
        if m and m.repo_key == repo_key and not m.is_linked_worktree:
            return w
        space = _git_space(s, w)
        if space is not None and space.common_dir == repo_key and not space.is_linked_worktree:
            return w
    return None


def _membership(src: Source, checkout_path: str, linked: bool) -> Membership:
    return Membership(src.repo_key, src.repo_name, src.repo_root, checkout_path, linked)


def _set_membership(sim, w: Workspace, membership: Membership, emit_update: bool) -> Membership:
    """``set_worktree_membership`` (api:449-471): workspace_updated only when it changed
    (herdr's PartialEq: Membership.__eq__). Returns the membership held: an equal one already
    there is kept, with its own path spelling."""
    if w.worktree == membership:
        return w.worktree
    w.worktree = membership
    if emit_update:
        sim.outbox.emit("workspace_updated", {"workspace": V.workspace_info(sim.session, w)})
    return membership


# --- workspaces created for worktrees ---------------------------------------------------------


def _create_workspace(sim, cwd: str, focus: bool) -> Workspace:
    """``create_workspace_with_options``: focused when asked or when nothing is active. Its open
    events are not sent yet: herdr emits them once membership and label are set
    (:func:`_emit_open_events`)."""
    s = sim.session
    with sim.outbox.suppressed():
        w, _tab, root = s.create_workspace(
            cwd, auto_label(sim, cwd), None, None, focus, sim.now_us()
        )
    sim.on_pane_created(root)
    return w


def _emit_open_events(s: Session, w: Workspace) -> None:
    """``emit_workspace_open_events`` (src/app/creation.rs:345-361), from the current state."""
    t = w.tabs[0]
    s.record(ev.WorkspaceCreated(w.workspace_id))
    s.record(ev.TabCreated(w.workspace_id, t.tab_id))
    s.record(ev.PaneCreated(t.root_pane))
    s.record_layout(w, t)


def _opened_result(s: Session, w: Workspace) -> dict:
    """workspace, its active tab, that tab's root pane."""
    t = w.active()
    if t is None:  # an opened workspace always has its active tab
        raise LookupError(f"{w.workspace_id} has no active tab")
    return {
        "workspace": V.workspace_info(s, w),
        "tab": V.tab_info(s, t),
        "root_pane": V.pane_info(s, s.panes[t.root_pane]),
    }


# --- sources (SOCKET.md §9.1) ------------------------------------------------------------------


@dataclass
class Source:
    workspace: Workspace | None
    checkout_path: str
    repo_root: str
    repo_key: str
    repo_name: str


def _lookup_workspace(s: Session, ref: str) -> tuple[bool, Workspace | None]:
    """herdr's ``parse_workspace_id`` (src/app/ids.rs:60-67): (parsed, workspace). A positional
    ref (``3``, ``w_3``) parses without a bounds check, so it can parse and find nothing."""
    w = s.ws(ref)
    if w is not None:
        return True, w
    kind = ids.parse_workspace_ref(ref)
    if kind is not None and kind[0] == "pos" and isinstance(kind[1], int) and kind[1] >= 1:
        k = kind[1]
        return True, (s.workspaces[k - 1] if k <= len(s.workspaces) else None)
    return False, None


def _source_workspace(s: Session, workspace_id: str | None, cwd: str | None) -> Workspace | str:
    """The first steps shared by every source resolution (api:174-232): the source workspace,
    or the cwd to resolve the source from."""
    if workspace_id is not None and cwd is not None:
        raise E.worktree_source_conflict()
    if workspace_id is not None:
        parsed, w = _lookup_workspace(s, workspace_id)
        if not parsed:
            raise E.worktree_workspace_not_found(workspace_id)
        if w is None:
            raise E.worktree_workspace_not_found(None)
        return w
    if cwd is not None:
        return cwd
    w = s.active_ws()  # CHOICE(selected): no separate selection to fall back to
    if w is None:
        raise E.worktree_source_required()
    return w


def _absolute(sim, path: str) -> str:
    absolute = git.absolute_user_path(path, sim.config.home)
    if absolute is None:
        raise E.worktree_path_not_absolute(git.PATH_MUST_BE_ABSOLUTE)
    return absolute


def resolve_source(sim, workspace_id: str | None, cwd: str | None) -> Source:
    """``resolve_worktree_source`` for create and open (api:174-232,282-329)."""
    s = sim.session
    w = _source_workspace(s, workspace_id, cwd)
    if isinstance(w, str):
        found = find_checkout(_absolute(sim, w))
        if found is None:
            raise E.not_git_worktree_path()
        if found.is_linked_worktree:
            raise E.linked_worktree_source()
        holder = _parent_by_key(s, found.common_dir) or holder_of_checkout(
            s, found.checkout_root, _by_membership(sim)
        )
        return Source(
            holder, found.checkout_root, found.checkout_root, found.common_dir, repo_name_for(found)
        )
    m = w.worktree
    if m:
        if m.is_linked_worktree:
            raise E.linked_worktree_source()
        return Source(w, m.checkout_path, m.repo_root, m.repo_key, m.repo_name)
    found = _git_space(s, w)
    if found is None:
        raise E.not_git_worktree_workspace()
    if found.is_linked_worktree:
        raise E.linked_worktree_source()
    return Source(
        w, found.checkout_root, found.checkout_root, found.common_dir, repo_name_for(found)
    )


def resolve_list_source(sim, workspace_id: str | None, cwd: str | None, trust: bool) -> Source:
    """``resolve_worktree_list_source`` (api:234-280,331-378,685-703): a linked checkout lists its
    parent repository; the parent is found through ``git worktree list`` (git layer
    ``discover``), falling back to the linked checkout itself."""
    s = sim.session
    w = _source_workspace(s, workspace_id, cwd)
    if isinstance(w, str):
        checkout = git.discover(_absolute(sim, w), trust=trust)
        if checkout is None:
            raise E.not_git_worktree_path()
        if checkout.is_linked_worktree:
            holder = holder_of_checkout(s, checkout.repo_root, _by_membership(sim))
        else:
            holder = _parent_by_key(s, checkout.repo_key) or holder_of_checkout(
                s, checkout.checkout_root, _by_membership(sim)
            )
        return Source(
            holder, checkout.repo_root, checkout.repo_root, checkout.repo_key, checkout.repo_name
        )
    m = w.worktree
    if m:
        if m.is_linked_worktree:
            return Source(
                holder_of_checkout(s, m.repo_root, _by_membership(sim)),
                m.repo_root,
                m.repo_root,
                m.repo_key,
                m.repo_name,
            )
        return Source(w, m.checkout_path, m.repo_root, m.repo_key, m.repo_name)
    cwd_of = s.identity_cwd(w)
    checkout = git.discover(cwd_of, trust=trust) if cwd_of else None
    if checkout is None:
        raise E.not_git_worktree_workspace()
    holder = (
        holder_of_checkout(s, checkout.repo_root, _by_membership(sim))
        if checkout.is_linked_worktree
        else w
    )
    return Source(
        holder, checkout.repo_root, checkout.repo_root, checkout.repo_key, checkout.repo_name
    )


def ensure_parent(sim, src: Source, emit_created: bool) -> bool:
    """``ensure_source_parent_membership`` (api:380-405): find or create the repo parent
    workspace and give it non-linked membership. A created parent is focused only when
    nothing is active. Returns whether it was created."""
    s = sim.session
    if src.workspace is None:
        src.workspace = _parent_by_key(s, src.repo_key)
    created = False
    if src.workspace is None:
        src.workspace = _create_workspace(sim, src.checkout_path, False)
        created = True
    _set_membership(sim, src.workspace, _membership(src, src.checkout_path, False), not created)
    if created and emit_created:
        _emit_open_events(s, src.workspace)
    return created


# --- WorktreeInfo ----------------------------------------------------------------------------


def _worktree_info(
    s: Session, src: Source, entry: git.WorktreeEntry, membership_only: bool = False
) -> dict:
    """``worktree_info_for_entry`` (api:529-548)."""
    canonical = canonical_or_original(entry.path)
    info: dict = {"path": entry.path}
    if entry.branch is not None:
        info["branch"] = entry.branch
    info.update(
        is_bare=entry.is_bare,
        is_detached=entry.is_detached,
        is_prunable=entry.is_prunable,
        is_linked_worktree=canonical != canonical_or_original(src.repo_root),
    )
    holder = holder_of_checkout(s, canonical, membership_only)
    if holder is not None:
        info["open_workspace_id"] = holder.workspace_id
    info["label"] = src.repo_name
    return info


def worktree_info_for_membership(m: Membership, open_workspace_id: str | None) -> dict:
    """``worktree_info_for_membership`` (api:550-567): the branch is read from the checkout's
    HEAD; no branch means detached."""
    branch = git.head_branch(m.checkout_path)
    info: dict = {"path": m.checkout_path}
    if branch is not None:
        info["branch"] = branch
    info.update(
        is_bare=False,
        is_detached=branch is None,
        is_prunable=False,
        is_linked_worktree=m.is_linked_worktree,
    )
    if open_workspace_id is not None:
        info["open_workspace_id"] = open_workspace_id
    info["label"] = m.repo_name
    return info


def _list_entries(repo_root: str, trust: bool) -> list[git.WorktreeEntry]:
    try:
        return git.worktree_list(repo_root, trust=trust)
    except git.GitError as e:
        raise E.worktree_git_failed("worktree_list_failed", e.message) from None


# --- pending operations (deferred:140-160,277-307) -------------------------------------------


def _pending(sim: HandlerContext) -> WorktreeOperations:
    return sim.worktree_ops  # declared in handlers/context.py


#: Where create/remove run git. A seam for tests that need an operation to stay pending.
run_in_thread = asyncio.to_thread


# --- worktree.list ---------------------------------------------------------------------------


@method("worktree.list", workspace_id=P.opt(P.STR), cwd=P.opt(P.STR), trust_repository=TRUST)
def list_(sim, p):
    s = sim.session
    trust = _trust(sim, p)
    src = resolve_list_source(sim, p["workspace_id"], p["cwd"], trust)
    entries = _list_entries(src.repo_root, trust)
    source: dict = {
        "repo_key": src.repo_key,
        "repo_name": src.repo_name,
        "repo_root": src.repo_root,
        "source_checkout_path": src.checkout_path,
    }
    if src.workspace is not None:
        source["source_workspace_id"] = src.workspace.workspace_id
    return {
        "type": "worktree_list",
        "source": source,
        "worktrees": [_worktree_info(s, src, e, _by_membership(sim)) for e in entries],
    }


# --- worktree.open ---------------------------------------------------------------------------


@method(
    "worktree.open",
    workspace_id=P.opt(P.STR),
    cwd=P.opt(P.STR),
    path=P.opt(P.STR),
    branch=P.opt(P.STR),
    label=P.opt(P.STR),
    focus=P.dflt(P.BOOL, False),
    trust_repository=TRUST,
)
def open_(sim, p):
    """api:75-172."""
    s = sim.session
    trust = _trust(sim, p)
    if (p["path"] is None) == (p["branch"] is None):
        raise E.worktree_path_or_branch()
    src = resolve_source(sim, p["workspace_id"], p["cwd"])
    entries = _list_entries(src.repo_root, trust)
    if p["path"] is not None:
        expected = canonical_or_original(_absolute(sim, p["path"]))
        entry = next((e for e in entries if canonical_or_original(e.path) == expected), None)
        if entry is None:
            raise E.worktree_path_not_found()
    else:
        matches = [
            e
            for e in entries
            if not e.is_bare and not e.is_prunable and not e.is_detached and e.branch == p["branch"]
        ]
        if not matches:
            raise E.worktree_branch_not_found()
        if len(matches) > 1:
            raise E.ambiguous_worktree_branch()
        entry = matches[0]
    if entry.is_bare or entry.is_prunable:
        raise E.worktree_not_openable()

    canonical = canonical_or_original(entry.path)
    target_is_source = canonical == canonical_or_original(src.checkout_path)
    already_open = holder_of_checkout(s, canonical, _by_membership(sim))
    # A parent created for the target itself sends its open events at the end, once.
    created_parent = ensure_parent(
        sim, src, emit_created=not (target_is_source and already_open is None)
    )
    if already_open is not None:
        w, created = already_open, False
        if p["focus"]:
            s.switch_workspace(w)
    elif target_is_source:
        assert src.workspace is not None  # ensure_parent found or made it
        w, created = src.workspace, created_parent
        if p["focus"]:
            s.switch_workspace(w)
    else:
        w, created = _create_workspace(sim, entry.path, p["focus"]), True
    linked = canonical != canonical_or_original(src.repo_root)
    _set_membership(sim, w, _membership(src, entry.path, linked), not created)
    if p["label"] is not None:
        if created:
            w.custom_label = p["label"]
        else:
            s.rename_workspace(w, p["label"])  # emits workspace_renamed
    if created:
        _emit_open_events(s, w)
    worktree = _worktree_info(s, src, entry, _by_membership(sim))
    sim.outbox.emit(
        "worktree_opened",
        {
            "workspace": V.workspace_info(s, w),
            "worktree": worktree,
            "already_open": already_open is not None,
        },
    )
    return {
        "type": "worktree_opened",
        **_opened_result(s, w),
        "worktree": worktree,
        "already_open": already_open is not None,
    }


# --- worktree.create -------------------------------------------------------------------------


def _create_source_workspace(
    s: Session, src: Source, source_id: str | None, source_membership: Membership | None
) -> Workspace | None:
    """``api_create_source_workspace_idx`` (deferred:43-92): the source workspace if it is
    still the same repo parent once git is done, else the repo parent found by key."""
    if source_id is None:
        return _parent_by_key(s, src.repo_key)
    w = s.ws(source_id)
    if w is None:
        return _parent_by_key(s, src.repo_key)
    if source_membership is not None:
        return w if w.worktree == source_membership else _parent_by_key(s, src.repo_key)
    if w.worktree:
        expected = _membership(src, src.checkout_path, False)
        return w if w.worktree == expected else _parent_by_key(s, src.repo_key)
    space = _git_space(s, w)
    if (
        space is not None
        and not space.is_linked_worktree
        and space.common_dir == src.repo_key
        and canonical_or_original(space.checkout_root) == canonical_or_original(src.repo_root)
    ):
        return w
    return _parent_by_key(s, src.repo_key)


@method(
    "worktree.create",
    kind="wait",
    workspace_id=P.opt(P.STR),
    cwd=P.opt(P.STR),
    branch=P.opt(P.STR),
    base=P.opt(P.STR),
    path=P.opt(P.STR),
    label=P.opt(P.STR),
    focus=P.dflt(P.BOOL, False),
    trust_repository=TRUST,
)
async def create(sim, p, rid, conn):
    """deferred:94-212 (start) and 343-472 (completion)."""
    s = sim.session
    trust = _trust(sim, p)
    # An omitted branch is generated from the clock's microseconds, as herdr seeds it.
    branch = git.resolve_branch(p["branch"], sim.now_us)
    if not branch:
        raise E.worktree_branch_required()
    base = p["base"] if p["base"] is not None else "HEAD"
    src = resolve_source(sim, p["workspace_id"], p["cwd"])
    if p["path"] is not None:
        path = _absolute(sim, p["path"])
    else:
        path = git.default_checkout_path(
            src.repo_name,
            branch,
            home=sim.config.home,
            directory=sim.config.worktrees_dir or git.DEFAULT_WORKTREE_DIRECTORY,
            cwd=sim.config.server_cwd,
        )
    key = canonical_or_original(path)
    pending = _pending(sim)
    if key in pending.creates or key in pending.remove_paths:
        raise E.worktree_in_progress()
    pending.creates.add(key)
    source_id = src.workspace.workspace_id if src.workspace is not None else None
    # frozen: the source's membership as it was before git ran
    source_membership = src.workspace.worktree if src.workspace is not None else None
    try:
        await sim.offloop(
            run_in_thread(git.worktree_add, src.checkout_path, path, branch, base, trust=trust)
        )
    except git.GitError as e:
        raise E.worktree_git_failed("worktree_create_failed", e.message) from None
    finally:
        pending.creates.discard(key)

    # Git is done: back on the app's side, against the state as it is now.
    sim.run_due()
    try:
        src.workspace = _create_source_workspace(s, src, source_id, source_membership)
        ensure_parent(sim, src, emit_created=True)
        w = holder_of_checkout(s, path, _by_membership(sim))
        created = w is None
        if w is None:
            w = _create_workspace(sim, path, p["focus"])
        elif p["focus"]:
            s.switch_workspace(w)
        held = _set_membership(sim, w, _membership(src, path, True), not created)
        if p["label"] is not None:
            w.custom_label = p["label"]  # no workspace_renamed, even on a reused workspace
        if created:
            _emit_open_events(s, w)
        worktree = worktree_info_for_membership(held, w.workspace_id)
        sim.outbox.emit(
            "worktree_created", {"workspace": V.workspace_info(s, w), "worktree": worktree}
        )
        return {"type": "worktree_created", **_opened_result(s, w), "worktree": worktree}
    finally:
        sim.commit()


# --- worktree.remove -------------------------------------------------------------------------


def _close_removed(sim, w: Workspace) -> None:
    """``close_removed_linked_worktree_workspace`` (src/app/worktrees.rs:970-997): close it like
    workspace.close, then focus its repo parent: at HEAD (and 0.9.0) only when the removed
    workspace was the active one, at the v0.8.2 tag always (profile switch)."""
    s = sim.session
    was_active = s.active == w.workspace_id
    m = w.worktree
    parent_key = m.repo_key if m and m.is_linked_worktree else None
    close_with_group(sim, w)
    if sim.version.rows.worktree_remove_focus_parent_only_if_active and not was_active:
        return
    if parent_key is None:
        return
    parent = next(
        (
            x
            for x in s.workspaces
            if x.worktree
            and not x.worktree.is_linked_worktree
            and x.worktree.repo_key == parent_key
        ),
        None,
    )
    if parent is not None:
        s.switch_workspace(parent)


@method(
    "worktree.remove",
    kind="wait",
    workspace_id=P.req(P.STR),
    force=P.dflt(P.BOOL, False),
    trust_repository=TRUST,
)
async def remove(sim, p, rid, conn):
    """deferred:214-341 (start) and 474-603 (completion)."""
    s = sim.session
    trust = _trust(sim, p)
    force = p["force"]
    parsed, w = _lookup_workspace(s, p["workspace_id"])
    if not parsed:
        raise E.worktree_workspace_not_found(p["workspace_id"])
    if w is None or not w.worktree:
        raise E.not_managed_worktree()
    m = w.worktree  # frozen: what git is asked to remove
    if not m.is_linked_worktree:
        raise E.not_linked_worktree()
    key = canonical_or_original(m.checkout_path)
    pending = _pending(sim)
    if w.workspace_id in pending.removes or key in pending.remove_paths or key in pending.creates:
        raise E.worktree_in_progress()
    # CHOICE(force-shutdown): the panes keep running until the workspace closes below.
    workspace_id = w.workspace_id
    pending.removes.add(workspace_id)
    pending.remove_paths.add(key)
    snapshot = V.workspace_info(s, w)
    worktree = worktree_info_for_membership(m, None)
    try:
        await sim.offloop(
            run_in_thread(git.worktree_remove, m.repo_root, m.checkout_path, force, trust=trust)
        )
    except git.GitError as e:
        raise E.worktree_git_failed(git.remove_error_code(e.message, force), e.message) from None
    finally:
        pending.removes.discard(workspace_id)
        pending.remove_paths.discard(key)

    sim.run_due()
    try:
        current = s.ws(workspace_id)
        if (
            current is not None
            and current.worktree
            and current.worktree.is_linked_worktree
            and rust_paths_equal(current.worktree.checkout_path, m.checkout_path)
        ):
            _close_removed(sim, current)
            sim.outbox.emit(
                "workspace_closed", {"workspace_id": workspace_id, "workspace": snapshot}
            )
        sim.outbox.emit(
            "worktree_removed",
            {
                "workspace_id": workspace_id,
                "workspace": snapshot,
                "worktree": worktree,
                "forced": force,
            },
        )
        return {
            "type": "worktree_removed",
            "workspace_id": workspace_id,
            "path": m.checkout_path,
            "forced": force,
        }
    finally:
        sim.commit()
