"""Thin herdr clients: Python reimplementations of the two real client flows (CLIENTS.md).

They talk to a ``herdr`` binary by argv only (no shell, an explicit environment), exactly as
they would to the real one; they never import the simulator. Standard library only.

Modules and public API
----------------------
``simherdr_client.runner`` (§3.6)
    ``HerdrRunner(bin_path="herdr", env=None, *, start_timeout_ms, cli_timeout_ms,
    max_output_bytes, verb_timeouts, cwd)``; ``await runner(args) -> RunResult(status, stdout,
    stderr)``; ``runner.run_sync(args)``; ``run_herdr(...)``; constants
    ``HERDR_START_TIMEOUT_MS`` (300000), ``HERDR_CLI_TIMEOUT_MS`` (30000),
    ``HERDR_MAX_OUTPUT_BYTES`` (8 MiB).
``simherdr_client.fresh_call`` (Flow B, §3)
    ``FreshCallRequest``, ``select_rail(env)``, ``await fresh_call(request, env=..., herdr_bin=None,
    runner=None, sleep=None, clock=None, new_nonce=...)``, ``fresh_call_sync``,
    ``compose_launch``, ``encode_task``, ``agent_name_for``, ``render(result)``; every reason
    string as a module constant.
``simherdr_client.opener`` (Flow A, §2)
    ``OpenRequest``, ``await open_session(request, cwd=..., env=..., herdr_bin=None, runner=None,
    git_bin="git", new_session_id=None, deliver=None, watchers=None, sleep=None, clock=None,
    watch=WatchConfig())``, ``open_session_sync``, ``classify``, ``checked_argv`` (the closed
    allowlist), ``FinishWatcher``, ``WatcherRegistry``, ``WatchConfig``; refusal codes as constants.

Time is injectable in both flows: ``sleep(ms)`` (awaited) and ``clock()`` (monotonic ms).

Choices and proposals (where CLIENTS.md says UNKNOWN / PROPOSAL or is silent)
------------------------------------------------------------------------------
Each is made once, at the place named.

Runner (``client/runner.py``)
  R1  stdout after a timeout or signal: kept (only overflow empties it, as documented).
  R2  spawn error text: Node's wording, ``spawn <bin> <ERRNO>`` (e.g. ``spawn herdr ENOENT``),
      after the same ``herdr <args joined>: `` prefix as every other failure (the source's).
  R3  the signal in the timeout text: ``null`` for our own kill (the source fixes the text when
      its timer fires, before the child closes); the signal's name when someone else's signal
      ended the child.
  R4  the child gets its own session; a kill is SIGKILL to its process group; stdin /dev/null;
      output decoded as UTF-8 with replacement characters.
  R5  ``env=None`` means a snapshot of ``os.environ`` taken when the runner is made (still passed
      explicitly); a bare ``herdr`` is looked up on that env's PATH.

Flow B (``client/fresh_call.py``)
  B1  the binary: ``herdr_bin`` when given, else the context's ``HERDR_BIN_PATH`` (the rail
      requires it to be non-empty).
  B2  framing lines 2-4: CLIENTS.md gives only their gist and tokens; the wording is ours
      (``framing_lines``). Line 1 and the task instruction are verbatim.
  B3  "defined placement": any value other than ``None`` (Python has no ``undefined``).
  B4  "empty" context variables and caller id: exactly ``""`` or missing (no trimming).
  B5  "present" for ``agent_session``: neither undefined nor null, as the source reads it
      (``false``, ``""``, ``0``, ``{}`` are present); ``tab_id``/``name``/``agent`` in the start
      and witness replies are compared whenever they are strings, an empty one included (so an
      empty ``tab_id`` is drift); coordinates (pane and terminal ids) must be non-empty.
  B6  ``settleMs``: milliseconds from the first witness sleep to the deciding read, rounded.
  B7  rendering layout (the gate tokens are exact: ``rejected: <reason>``,
      ``No tab and no pane were created.``, ``failed at the tab create step``, ``UNKNOWN outcome``,
      ``failed after the tab was created``, `` [herdr: <code>]``, the four ``recovery:`` forms,
      ``[entwurf fresh call → herdr]``, ``VIEW coordinates, not an address``).
  B8  a task containing a lone surrogate is escaped ``\\udxxx`` (ES2019 well-formed stringify).

Flow A (``client/opener.py``)
  A1  result shape: ``{ok, rows, content, details}`` / ``{ok: False, code, herdrErrorCode?,
      message, path?, panel?}``; ``outcome`` row ``opened`` | ``reused``.
  A2  refusal codes: the PROPOSAL table of CLIENTS.md §2.8, verbatim.
  A3  the requested spelling is lexically normalized (Node ``path.resolve``), never symlink-resolved.
  A4  default agent name: phren's slug (§4.4) of the worktree panel's branch (the doc: "the
      branch for a worktree panel"; a detached HEAD falls back to the directory), else of the
      requested spelling's last component; ``agent`` when it empties.
  A5  ``worktree list --cwd`` / ``worktree open --path`` get the CANONICAL path (CLIENTS.md's
      PROPOSAL).
  A6  reused workspace: ``pane list --workspace W``, then the first pane passing step 3 with no
      agent, else the first passing one, else the first listed (step 3 names its problem).
  A7  git: ``not a git repository`` and ``must be run in a work tree`` mean generic; any other
      failure or non-three-line output is unproven. git runs with ``LC_ALL=C`` and without the
      repository-locating ``GIT_*`` variables. The branch comes from one more fixed call,
      ``git symbolic-ref --quiet --short HEAD`` (None when detached; row ``(detached HEAD)``).
  A8  pane cwd: canonicalized before the component-wise check; a pane without a cwd fails closed;
      a reported ``workspace_id`` counts when it is not null.
  A9  binary: ``herdr_bin`` > ``HERDR_BIN_PATH`` (guarded) > ``herdr`` on PATH; the guard applies
      to the inherited one only; the OS temp dir is Node's ``os.tmpdir()`` read from the env.
  A10 kill bounds: agent start 150000 ms (its --timeout 120000 + 30 s), others 30000, git 10000.
  A11 watcher: interval 2000 ms and grace 5000 ms (both UNKNOWN), ``done`` = idle (PROPOSAL),
      other ``agent get`` failures keep polling (PROPOSAL), another Pi session or another agent
      kind ends it as ``foreign-session`` (name UNKNOWN), idle inside the grace window is never
      conclusive, every conclusive outcome is delivered once (only ``finished`` says finished),
      a raising send is retried every interval, a never-settling send is abandoned at the max
      wait, one watcher per pane (a new open of that pane replaces the old one), a watcher is
      started only when a ``deliver`` channel is given; ``open_session_sync`` waits for it.
  A13 a repeat open of the same path (or any open whose agent name is already live): as the
      source, no check first; the panel is created (or reused), herdr refuses the `agent start`
      (``agent_name_taken``) and the refusal is ``agent-start-failed`` with that code, naming the
      panel left behind (never retried into another one). An explicit other ``name`` opens a
      second agent.

Commands (``simherdr_client.commands``): ``simherdr-open`` and ``simherdr-fresh-call`` print
these results (rows / the receipt, or ``--json``). The facts these clients follow are herdr's
and the clients' own documentation, summarized in the project's reference notes (not shipped).
"""
