"""``herdr completion <shell>``: clap_complete's scripts for herdr's clap tree.

herdr 0.8.2 ``src/cli/completion.rs`` calls ``clap_complete::generate(shell, spec::command(),
"herdr")`` (clap_complete 4.6.5, ``Cargo.lock``) and, for zsh, rewrites ``--name=[`` to
``--name[`` (space-separated long options).  The generators below follow clap_complete
4.6.5's ``aot/shells/{bash,zsh,fish,elvish,powershell}.rs`` over the tree in :mod:`.spec`,
after clap's ``Command::build`` (bin names, the ``-h/--help`` flag every subcommand gets).
"""

from .base import Exit

SUPPORTED_SHELLS = ("bash", "elvish", "fish", "powershell", "zsh")
USAGE = "usage: herdr completion <%s>" % "|".join(SUPPORTED_SHELLS)
CMD_SEP = "__subcmd__"
_AUTO_HELP = {"id": "help", "long": "help", "short": "h", "help": "Print help"}


def run(ctx, row, args):
    """run_completion_command."""
    if not args:
        raise Exit(2, USAGE)
    shell = args[0]
    if shell in ("help", "--help", "-h"):
        raise Exit(0, USAGE)
    if len(args) != 1:
        raise Exit(2, USAGE)
    if shell not in SUPPORTED_SHELLS:
        raise Exit(2, "unknown shell: %s\n%s" % (shell, USAGE))
    ctx.write_out(script(shell, ctx.release))
    return 0


def script(shell, release):
    from .spec import tree

    root = _build(tree(release), None)
    if shell == "bash":
        return _bash(root)
    if shell == "fish":
        return _fish(root)
    if shell == "elvish":
        return _elvish(root)
    if shell == "powershell":
        return _powershell(root)
    return _zsh_long_options(_zsh(root))


# -- the built tree -------------------------------------------------------------------------


class _Cmd:
    __slots__ = ("about", "aliases", "args", "bin", "name", "subs")

    def __init__(self, name, bin_name, about, aliases, args, subs):
        self.name, self.bin, self.about = name, bin_name, about
        self.aliases, self.args, self.subs = aliases, args, subs

    def opts(self):  # get_opts: options that take a value
        return [a for a in self.args if a.get("long") and a.get("value")]

    def flags(self):  # utils::flags: non-positional args without a value
        return [a for a in self.args if (a.get("long") or a.get("short")) and not a.get("value")]

    def positionals(self):
        return [a for a in self.args if not a.get("long") and not a.get("short")]

    def names(self):  # get_name_and_visible_aliases
        return [self.name] + self.aliases


def _build(spec, parent):
    name, about, args, subs, extra = spec
    bin_name = name if parent is None else parent + " " + name
    args = list(args)
    if parent is not None:  # configure_help: depth >= 1 enables clap's own help flag
        args.append(_AUTO_HELP)
    alias = extra.get("alias")
    return _Cmd(
        name,
        bin_name,
        about,
        [alias] if alias else [],
        args,
        [_build(sub, bin_name) for sub in subs],
    )


def _subcommands(cmd):
    """utils::subcommands: (name or alias, bin name)."""
    out = []
    for sub in cmd.subs:
        for name in sub.names():
            out.append((name, sub.bin))
    return out


def _all_subcommands(cmd):
    out = _subcommands(cmd)
    for sub in cmd.subs:
        out.extend(_all_subcommands(sub))
    return out


def _find(cmd, path):
    for part in path:
        cmd = next(sub for sub in cmd.subs if sub.name == part)
    return cmd


def _by_bin(cmd, bin_name):
    if cmd.bin == bin_name:
        return cmd
    for sub in cmd.subs:
        found = _by_bin(sub, bin_name)
        if found is not None:
            return found
    return None


def _positional_display(arg):
    """``impl Display for Arg`` on a positional: ``<NAME>``, ``[NAME]``, ``...`` when multiple."""
    bracket = not arg.get("req") or arg.get("min0")
    return ("[%s]" if bracket else "<%s>") % arg["value"] + ("..." if arg.get("multi") else "")


# -- bash (clap_complete aot/shells/bash.rs) -------------------------------------------------


def _bash(root):
    name = root.bin
    fn_name = name.replace("-", "__")
    return f"""_{name}() {{
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${{BASH_VERSINFO[0]}}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${{COMP_WORDS[COMP_CWORD]}}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${{COMP_WORDS[@]:0:COMP_CWORD}}"
    do
        case "${{cmd}},${{i}}" in
            ",$1")
                cmd="{fn_name}"
                ;;{_bash_all_subcommands(root, fn_name)}
            *)
                ;;
        esac
    done

    case "${{cmd}}" in
        {fn_name})
            opts="{_bash_all_options(root, root)}"
            if [[ ${{cur}} == -* || ${{COMP_CWORD}} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${{opts}}" -- "${{cur}}") )
                return 0
            fi
            case "${{prev}}" in{_bash_option_details(root, root)}
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${{opts}}" -- "${{cur}}") )
            return 0
            ;;{_bash_subcommand_details(root)}
    esac
}}

if [[ "${{BASH_VERSINFO[0]}}" -eq 4 && "${{BASH_VERSINFO[1]}}" -ge 4 || "${{BASH_VERSINFO[0]}}" -gt 4 ]]; then
    complete -F _{name} -o nosort -o bashdefault -o default {name}
else
    complete -F _{name} -o bashdefault -o default {name}
fi
"""


def _bash_all_subcommands(root, parent_fn_name):
    subcmds = []

    def add(parent, cmd):
        fn_name = "%s%s%s" % (parent, CMD_SEP, cmd.name.replace("-", CMD_SEP))
        subcmds.append((parent, cmd.name, fn_name))
        for alias in cmd.aliases:
            subcmds.append((parent, alias, fn_name))
        for sub in cmd.subs:
            add(fn_name, sub)

    for sub in root.subs:
        add(parent_fn_name, sub)
    subcmds.sort()
    cases = [""]
    for parent, name, fn_name in subcmds:
        cases.append(
            '%s,%s)\n                cmd="%s"\n                ;;' % (parent, name, fn_name)
        )
    return "\n            ".join(cases)


def _bash_subcommand_details(root):
    details = [""]
    paths = sorted(set(bin_name.replace(" ", CMD_SEP) for _, bin_name in _all_subcommands(root)))
    for sc in paths:
        cmd = _find(root, sc.split(CMD_SEP)[1:])
        details.append(
            """{subcmd})
            opts="{sc_opts}"
            if [[ ${{cur}} == -* || ${{COMP_CWORD}} -eq {level} ]] ; then
                COMPREPLY=( $(compgen -W "${{opts}}" -- "${{cur}}") )
                return 0
            fi
            case "${{prev}}" in{opts_details}
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${{opts}}" -- "${{cur}}") )
            return 0
            ;;""".format(
                subcmd=sc.replace("-", CMD_SEP),
                sc_opts=_bash_all_options(root, cmd),
                level=len(sc.split(CMD_SEP)),
                opts_details=_bash_option_details(root, cmd),
            )
        )
    return "\n        ".join(details)


def _bash_vals(arg):
    if arg.get("pv"):
        return '$(compgen -W "%s" -- "${cur}")' % " ".join(arg["pv"])
    return '$(compgen -f "${cur}")'


def _bash_option_details(root, cmd):
    opts = [""]
    for arg in cmd.opts():
        # ValueHint::AnyPath/Unknown need no compopt; no herdr option is FilePath/DirPath/Other.
        lines = ["--%s)" % arg["long"], "COMPREPLY=(%s)" % _bash_vals(arg), "return 0", ";;"]
        opts.append("\n                    ".join(lines))
        if arg.get("short"):
            lines[0] = "-%s)" % arg["short"]
            opts.append("\n                    ".join(lines))
    return "\n                ".join(opts)


def _bash_all_options(root, cmd):
    words = ["-%s" % a["short"] for a in cmd.args if a.get("short")]
    words += ["--%s" % a["long"] for a in cmd.args if a.get("long")]
    for arg in cmd.positionals():
        if arg.get("pv"):
            words.extend(arg["pv"])
        else:
            words.append(_positional_display(arg))
    words += [name for name, _ in _subcommands(cmd)]
    return " ".join(words)


# -- fish (clap_complete aot/shells/fish.rs) -------------------------------------------------


def _fish_escape(text, comma=False):
    text = text.replace("\\", "\\\\").replace("'", "\\'")
    return text.replace(",", "\\,") if comma else text


def _fish(root):
    name = root.bin.replace("-", "_")
    needs = "__fish_%s_needs_command" % name
    using = "__fish_%s_using_subcommand" % name
    optspecs = ""
    for arg in root.args:
        if not (arg.get("long") or arg.get("short")):
            continue
        optspecs += " "
        if arg.get("short"):
            optspecs += arg["short"]
        if arg.get("long"):
            if arg.get("short"):
                optspecs += "/"
            optspecs += _fish_escape(arg["long"])
        if arg.get("value"):
            optspecs += "="
    optspecs_fn = "__fish_%s_global_optspecs" % name
    out = [
        "# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.\n"
        "function %s\n\tstring join \\n%s\nend\n\n" % (optspecs_fn, optspecs),
        "function %s\n"
        "\t# Figure out if the current invocation already has a command.\n"
        "\tset -l cmd (commandline -opc)\n"
        "\tset -e cmd[1]\n"
        "\targparse -s (%s) -- $cmd 2>/dev/null\n"
        "\tor return\n"
        "\tif set -q argv[1]\n"
        "\t\t# Also print the command, so this can be used to figure out what it is.\n"
        "\t\techo $argv[1]\n"
        "\t\treturn 1\n"
        "\tend\n"
        "\treturn 0\n"
        "end\n\n" % (needs, optspecs_fn),
        "function %s\n"
        "\tset -l cmd (%s)\n"
        '\ttest -z "$cmd"\n'
        "\tand return 1\n"
        "\tcontains -- $cmd[1] $argv\n"
        "end\n\n" % (using, needs),
    ]
    buffer: list[str] = []
    _fish_inner(root.bin, [], root, buffer, needs, using)
    return "".join(out) + "".join(buffer)


def _fish_value(arg):
    if not arg.get("value"):
        return ""
    if arg.get("pv"):
        return ' -r -f -a "%s"' % "\n".join(
            "%s\\t''" % _fish_escape(value, True) for value in arg["pv"]
        )
    return " -r -F" if arg.get("hint") == "path" else " -r"


def _fish_inner(root_name, parents, cmd, buffer, needs, using):
    template = "complete -c %s" % root_name
    if not parents:
        if cmd.subs:
            template += ' -n "%s"' % needs
    else:
        condition = using
        if len(parents) == 1:
            condition += " " + parents[0]
            if cmd.subs:
                condition += "; and not __fish_seen_subcommand_from"
            for sub in cmd.subs:
                for name in sub.names():
                    condition += " " + name
        elif len(parents) == 2:
            condition += " %s; and __fish_seen_subcommand_from %s" % (parents[0], parents[1])
        else:
            return  # clap_complete stops below two levels of subcommands
        template += ' -n "%s"' % condition
    for arg in cmd.opts() + cmd.flags():
        line = template
        if arg.get("short"):
            line += " -s " + arg["short"]
        if arg.get("long"):
            line += " -l " + _fish_escape(arg["long"])
        if arg.get("help"):
            line += " -d '%s'" % _fish_escape(arg["help"].replace("\n", " "))
        line += _fish_value(arg)
        buffer.append(line + "\n")
    if not cmd.positionals():
        template += " -f"
    for sub in cmd.subs:
        for name in sub.names():
            line = template + ' -a "%s"' % name
            if sub.about:
                line += " -d '%s'" % _fish_escape(sub.about.replace("\n", " "))
            buffer.append(line + "\n")
    for sub in cmd.subs:
        for name in sub.names():
            _fish_inner(root_name, parents + [name], sub, buffer, needs, using)


# -- zsh (clap_complete aot/shells/zsh.rs) ---------------------------------------------------


def _zsh_help(text):
    for old, new in (
        ("\\", "\\\\"),
        ("'", "'\\''"),
        ("[", "\\["),
        ("]", "\\]"),
        (":", "\\:"),
        ("$", "\\$"),
        ("`", "\\`"),
        ("\n", " "),
    ):
        text = text.replace(old, new)
    return text


def _zsh(root):
    name = root.bin
    return f"""#compdef {name}

autoload -U is-at-least

_{name}() {{
    typeset -A opt_args
    typeset -a _arguments_options
    local ret=1

    if is-at-least 5.2; then
        _arguments_options=(-s -S -C)
    else
        _arguments_options=(-s -C)
    fi

    local context curcontext="$curcontext" state line
    {_zsh_args_of(root)}{_zsh_subcommands_of(root)}
}}

{_zsh_subcommand_details(root)}

if [ "$funcstack[1]" = "_{name}" ]; then
    _{name} "$@"
else
    compdef _{name} {name}
fi
"""


def _zsh_commands_fn(bin_name, cmd):
    return (
        "(( $+functions[_{u}_commands] )) ||\n"
        "_{u}_commands() {{\n"
        "    local commands; commands=({subs})\n"
        "    _describe -t commands '{b} commands' commands \"$@\"\n"
        "}}"
    ).format(u=bin_name.replace(" ", CMD_SEP), b=bin_name, subs=_zsh_subcommand_list(cmd))


def _zsh_subcommand_details(root):
    ret = [_zsh_commands_fn(root.bin, root)]
    for bin_name in sorted(set(b for _, b in _all_subcommands(root))):
        ret.append(_zsh_commands_fn(bin_name, _by_bin(root, bin_name)))
    return "\n".join(ret)


def _zsh_subcommand_list(cmd):
    segments = []
    for sub in cmd.subs:
        for name in sub.names():
            segments.append("'%s:%s' \\" % (name, _zsh_help(sub.about or "")))
    if segments:
        segments = [""] + segments + ["    "]
    return "\n".join(segments)


def _zsh_subcommands_of(parent):
    if not parent.subs:
        return ""
    cases = []
    for name, bin_name in _subcommands(parent):
        sub = _by_bin(parent, bin_name)
        segments = ["(%s)" % name]
        args = _zsh_args_of(sub)
        if args:
            segments.append(args)
        children = _zsh_subcommands_of(sub)
        if children:
            segments.append(children)
        segments.append(";;")
        cases.append("\n".join(segments))
    pos = len(parent.positionals()) + 1
    return """
    case $state in
    ({name})
        words=($line[{pos}] "${{words[@]}}")
        (( CURRENT += 1 ))
        curcontext="${{curcontext%:*:*}}:{hyphen}-command-$line[{pos}]:"
        case $line[{pos}] in
            {subcommands}
        esac
    ;;
esac""".format(
        name=parent.name,
        pos=pos,
        hyphen=parent.bin.replace(" ", "-"),
        subcommands="\n".join(cases),
    )


def _zsh_value_completion(arg):
    if arg.get("pv"):
        return "(%s)" % " ".join(arg["pv"])
    return "_files" if arg.get("hint") == "path" else "_default"


def _zsh_conflicts(cmd, arg):
    names = []
    for other in cmd.args:
        if other["id"] in arg.get("conflicts", ()):
            if other.get("short"):
                names.append("-" + other["short"])
            if other.get("long"):
                names.append("--" + other["long"])
    return "(%s)" % " ".join(names) if names else ""


def _zsh_args_of(cmd):
    segments = ['_arguments "${_arguments_options[@]}" : \\']
    opts = []
    for arg in cmd.opts():
        help_text = _zsh_help(arg.get("help") or "")
        conflicts = _zsh_conflicts(cmd, arg)
        multiple = "*" if arg.get("append") else ""
        vc = ":%s:%s" % (arg["value"], _zsh_value_completion(arg))
        if arg.get("short"):
            opts.append("'%s%s-%s+[%s]%s' \\" % (conflicts, multiple, arg["short"], help_text, vc))
        opts.append("'%s%s--%s=[%s]%s' \\" % (conflicts, multiple, arg["long"], help_text, vc))
    flags = []
    for arg in cmd.flags():
        help_text = _zsh_help(arg.get("help") or "")
        conflicts = _zsh_conflicts(cmd, arg)
        if arg.get("short"):
            flags.append("'%s-%s[%s]' \\" % (conflicts, arg["short"], help_text))
        if arg.get("long"):
            flags.append("'%s--%s[%s]' \\" % (conflicts, arg["long"], help_text))
    positionals = []
    catch_all = False
    for arg in cmd.positionals():
        multi = bool(arg.get("multi"))
        if catch_all and (arg.get("last") or multi):
            continue
        if multi and not cmd.subs:
            catch_all = True
            cardinality = "*:"
        elif not arg.get("req"):
            cardinality = ":"
        else:
            cardinality = ""
        help_text = arg.get("help")
        help_text = (" -- " + help_text) if help_text else ""
        for old, new in (("[", "\\["), ("]", "\\]"), ("'", "'\\''"), (":", "\\:")):
            help_text = help_text.replace(old, new)
        positionals.append(
            "'%s:%s%s:%s' \\" % (cardinality, arg["id"], help_text, _zsh_value_completion(arg))
        )
    for part in (opts, flags, positionals):
        if part:
            segments.append("\n".join(part))
    if cmd.subs:
        segments.append('":: :_%s_commands" \\' % cmd.bin.replace(" ", CMD_SEP))
        segments.append('"*::: :->%s" \\' % cmd.name)
    segments.append("&& ret=0")
    return "\n".join(segments)


def _zsh_long_options(script_text):
    """space_separated_zsh_long_options (src/cli/completion.rs): ``--name=[`` -> ``--name[``."""
    out = []
    rest = script_text
    while True:
        start = rest.find("--")
        if start < 0:
            break
        out.append(rest[:start])
        candidate = rest[start + 2 :]
        length = 0
        while length < len(candidate) and (
            (candidate[length].isascii() and candidate[length].isalnum())
            or candidate[length] == "-"
        ):
            length += 1
        if length and candidate[length:].startswith("=["):
            out.append("--" + candidate[:length] + "[")
            rest = candidate[length + 2 :]
        else:
            out.append("--")
            rest = candidate
    out.append(rest)
    return "".join(out)


# -- elvish (clap_complete aot/shells/elvish.rs) ---------------------------------------------


def _elvish(root):
    return """
use builtin;
use str;

set edit:completion:arg-completer[{name}] = {{|@words|
    fn spaces {{|n|
        builtin:repeat $n ' ' | str:join ''
    }}
    fn cand {{|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }}
    var command = '{name}'
    for word $words[1..-1] {{
        if (str:has-prefix $word '-') {{
            break
        }}
        set command = $command';'$word
    }}
    var completions = [{cases}
    ]
    $completions[$command]
}}
""".format(name=root.bin, cases=_elvish_inner(root, ""))


def _elvish_tip(text, fallback):
    return text.replace("\n", " ").replace("'", "''") if text is not None else fallback


def _elvish_inner(cmd, previous):
    names = [cmd.bin] if not previous else ["%s;%s" % (previous, n) for n in cmd.names()]
    completions = ""
    preamble = "\n            cand "
    for arg in cmd.opts() + cmd.flags():
        if arg.get("short"):
            tip = _elvish_tip(arg.get("help"), arg["short"])
            completions += preamble + "-%s '%s'" % (arg["short"], tip)
        if arg.get("long"):
            tip = _elvish_tip(arg.get("help"), arg["long"])
            completions += preamble + "--%s '%s'" % (arg["long"], tip)
    for sub in cmd.subs:
        for name in sub.names():
            completions += preamble + "%s '%s'" % (name, _elvish_tip(sub.about, name))
    cases = ""
    for name in names:
        cases += "\n        &'%s'= {%s\n        }" % (name, completions)
    for sub in cmd.subs:
        for name in names:
            cases += _elvish_inner(sub, name)
    return cases


# -- powershell (clap_complete aot/shells/powershell.rs) -------------------------------------


def _powershell(root):
    return """
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName '{name}' -ScriptBlock {{
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        '{name}'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {{
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {{
                break
        }}
        $element.Value
    }}) -join ';'

    $completions = @(switch ($command) {{{cases}
    }})

    $completions.Where{{ $_.CompletionText -like "$wordToComplete*" }} |
        Sort-Object -Property ListItemText
}}
""".format(name=root.bin, cases=_powershell_inner(root, ""))


def _powershell_tip(text, fallback):
    if text:
        return text.replace("\n", " ").replace("'", "''").replace("\u2019", "'\u2019")
    return fallback


def _powershell_inner(cmd, previous):
    names = [cmd.bin] if not previous else ["%s;%s" % (previous, n) for n in cmd.names()]
    completions = ""
    preamble = "\n            [CompletionResult]::new("
    for arg in cmd.opts() + cmd.flags():
        if arg.get("short"):
            short = arg["short"]
            tip = _powershell_tip(arg.get("help"), short)
            completions += (
                preamble
                + "'-%s', '-%s%s', [CompletionResultType]::ParameterName, '%s')"
                % (
                    short,
                    short,
                    " " if short.isupper() else "",
                    tip,
                )
            )
        if arg.get("long"):
            tip = _powershell_tip(arg.get("help"), arg["long"])
            completions += (
                preamble
                + "'--%s', '--%s', [CompletionResultType]::ParameterName, '%s')"
                % (
                    arg["long"],
                    arg["long"],
                    tip,
                )
            )
    for sub in cmd.subs:
        for name in sub.names():
            completions += (
                preamble
                + "'%s', '%s', [CompletionResultType]::ParameterValue, '%s')"
                % (
                    name,
                    name,
                    _powershell_tip(sub.about, name),
                )
            )
    cases = ""
    for name in names:
        cases += "\n        '%s' {%s\n            break\n        }" % (name, completions)
    for sub in cmd.subs:
        for name in names:
            cases += _powershell_inner(sub, name)
    return cases
