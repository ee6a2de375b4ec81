"""Post-scan rules of the irregular pane/workspace verbs (herdr 0.8.2 ``src/cli/pane.rs``,
``src/cli/workspace.rs``): the rows in :mod:`.table` scan the flags, these check the
combinations and shape the params the way the Rust parsers build their structs."""

from .base import usage


def swap_check(ctx, row, values):
    """parse_pane_swap_args: directional XOR explicit source/target."""
    directional = values.get("direction") is not None
    explicit = values.get("source_pane_id") is not None or values.get("target_pane_id") is not None
    if directional and not explicit:
        values.pop("source_pane_id", None)
        values.pop("target_pane_id", None)
        return
    if (
        explicit
        and not directional
        and values.get("pane_id") is None
        and values.get("source_pane_id") is not None
        and values.get("target_pane_id") is not None
    ):
        values.pop("pane_id", None)
        return
    raise usage(row["usage"])


def move_check(ctx, row, values):
    """parse_pane_move_args: exactly one destination, each with its own options.

    PaneMoveDestination is internally tagged (``type`` first), fields in declaration order.
    """
    tab_id = values.get("tab_id")
    new_tab = values.get("new_tab", False)
    new_workspace = values.get("new_workspace", False)
    if (tab_id is not None) + new_tab + new_workspace != 1:
        raise usage(row["usage"])
    get = values.get
    if tab_id is not None:
        if get("split") is None or get("workspace_id") is not None or get("label") is not None:
            raise usage(row["usage"])
        if get("tab_label") is not None:
            raise usage(row["usage"])
        destination = {"type": "tab", "tab_id": tab_id}
        if get("target_pane_id") is not None:
            destination["target_pane_id"] = get("target_pane_id")
        destination["split"] = get("split")
        if get("ratio") is not None:
            destination["ratio"] = get("ratio")
    elif new_tab:
        if get("split") is not None or get("target_pane_id") is not None or get("tab_label"):
            raise usage(row["usage"])
        destination = {"type": "new_tab"}
        for field in ("workspace_id", "label"):
            if get(field) is not None:
                destination[field] = get(field)
    else:
        if (
            get("split") is not None
            or get("target_pane_id") is not None
            or get("workspace_id") is not None
        ):
            raise usage(row["usage"])
        destination = {"type": "new_workspace"}
        for field in ("label", "tab_label"):
            if get(field) is not None:
                destination[field] = get(field)
    values["destination"] = destination


def metadata_check(ctx, row, values):
    """pane_report_metadata's checks after the flag loop (src/cli/pane.rs:1583-1610)."""
    source = values.get("source")
    source = source.strip() if source is not None else ""
    if not source:
        raise usage("missing required --source")
    values["source"] = source
    applies = values.get("applies_to_source")
    if applies is not None and not applies.strip():
        raise usage("missing value for --applies-to-source")
    get = values.get
    if (
        (get("title") is not None and get("clear_title"))
        or (get("display_agent") is not None and get("clear_display_agent"))
        or (get("state_labels") and get("clear_state_labels"))
    ):
        raise usage("cannot set and clear the same metadata field")
    if (
        get("title") is None
        and get("display_agent") is None
        and not get("state_labels")
        and not get("tokens")
        and not get("clear_title")
        and not get("clear_display_agent")
        and not get("clear_state_labels")
    ):
        raise usage("missing metadata field to set or clear")


def workspace_metadata_check(ctx, row, values):
    """workspace_report_metadata: the source is checked, not trimmed (src/cli/workspace.rs)."""
    source = values.get("source")
    if source is None or not source.strip():
        raise usage("missing required --source")
    if not values.get("tokens"):
        raise usage("missing token to set or clear")
