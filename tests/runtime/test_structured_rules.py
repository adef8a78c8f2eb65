"""Structured shell rules, precedence inside a layer, exceptions and packs (issue 26).

Most cases are judged by the same evaluation the hook runs (pasture.runtime.effective.load + evaluate);
the host-facing ones (allow approvals, ask on a host that cannot ask) go through `pasture hook
lifecycle` in-process (hookrun.call)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hookrun import call

from pasture.runtime import effective as E
from pasture.runtime.invocation import read

CLAUDE = ("claude-code", "2.1.332")
CODEX = ("codex", "0.171.0")

NO_RM = """
[[rules]]
name = "no-rm"
decision = "deny"
reason = "recursive deletes outside the build folders are not allowed here"
instead = "rm -rf ./build"
[rules.run]
program = "rm"
options = [["-r", "-R", "--recursive"]]
outside = ["build", "dist", "node_modules", "/tmp/*", "/var/tmp/*"]
unknown = "ask"
"""

pytestmark = pytest.mark.usefixtures("sample_pack")  # tests/runtime/conftest.py: a fixed git pack


@pytest.fixture
def judge(env, tmp_path):
    """judge(command, user=..., managed=..., project=...) -> Verdict, from the policy files written."""
    project = tmp_path / "project"
    (project / ".pasture").mkdir(parents=True, exist_ok=True)

    def run(command: str, user: str | None = None, managed: str | None = None, project_text: str | None = None):
        Path(env["PASTURE_POLICY"]).write_text(user if user is not None else "")
        if managed is not None:
            Path(env["PASTURE_MANAGED_POLICY"]).write_text(managed)
        if project_text is not None:
            (project / ".pasture" / "policy.toml").write_text(project_text)
        effective = E.load(str(project), env)
        envelope = {
            "event": "PreToolUse",
            "tool_name": "Bash",
            "tool_kind": "shell",
            "tool_input": {"command": command},
            "command": command,
        }
        return E.evaluate(effective, envelope)

    run.project = project  # type: ignore[attr-defined]
    return run


def _shell(project: Path, command: str) -> dict:
    return {
        "session_id": "s-1",
        "cwd": str(project),
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "c-1",
    }


def _decision(out: str) -> dict:
    return json.loads(out)["hookSpecificOutput"] if out.strip() else {}


# --- data is not a command ---------------------------------------------------------------------------

DATA = [
    'echo "rm -rf /srv/data"',
    "printf '%s\\n' 'rm -rf /srv/data'",
    "grep 'git reset --hard' notes.md",
    "rg -n 'rm -rf /srv' src",
    'git commit -m "fix rm -rf detection; git reset --hard is refused"',
    "cat <<'EOF'\nrm -rf /srv/data\ngit reset --hard\nEOF",
    "tee notes.md <<'EOF'\nrm -rf /srv/data\nEOF",
    "grep -c rm <<< 'rm -rf /srv/data'",
]


@pytest.mark.parametrize("command", DATA)
def test_data_given_to_a_program_is_not_a_command(judge, command):
    verdict = judge(command, user=NO_RM)
    assert verdict.decision == "proceed", (command, verdict.rule, verdict.reason)


def test_a_heredoc_or_echo_fed_to_a_shell_is_a_command(judge):
    for command in ("echo 'rm -rf /srv/data' | sh", "bash <<'EOF'\nrm -rf /srv/data\nEOF", "sh <<< 'rm -rf /srv/x'"):
        assert judge(command, user=NO_RM).decision == "deny", command


# --- program identity, options, wrappers, nesting ---------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "git reset --hard",
        "\\git reset --hard",
        '"git" reset --hard',
        "/usr/bin/git reset --hard HEAD~1",
        "git -C repo reset --hard",
        "git -c core.pager=cat --no-pager reset --hard",
        "git --git-dir=.git reset --hard",
        "sudo git reset --hard",
        "env -i PATH=/usr/bin git reset --hard",
    ],
)
def test_the_git_pack_reads_git_however_it_is_spelled(judge, command):
    verdict = judge(command)  # no policy at all: the recommended packs apply
    assert verdict.decision == "deny" and verdict.layer == "packs" and verdict.rule == "git.reset-hard", command
    assert verdict.reason.startswith("pasture pack rule git.reset-hard: ") and "Instead: git stash" in verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf /srv/data",
        "rm -fr /srv/data",
        "rm -r -f /srv/data",
        "rm --recursive --force /srv/data",
        "rm -R /srv/data",
        "cat/../../../usr/bin/rm -rf /srv/data",
        "sudo rm -rf /srv/data",
        "sudo -u root -- rm -rf /srv/data",
        "doas rm -rf /srv/data",
        "env -i X=1 rm -rf /srv/data",
        "command rm -rf /srv/data",
        "builtin rm -rf /srv/data",
        "exec rm -rf /srv/data",
        "time rm -rf /srv/data",
        "/usr/bin/time -o t.txt rm -rf /srv/data",
        "nice -n 5 rm -rf /srv/data",
        "nohup rm -rf /srv/data",
        "timeout -s KILL 5 rm -rf /srv/data",
        "stdbuf -oL rm -rf /srv/data",
        "setsid rm -rf /srv/data",
        "ionice -c 3 rm -rf /srv/data",
        "echo /srv/data | xargs rm -rf",
        "ls && rm -rf /srv/data",
        "ls | rm -rf /srv/data",
        "(cd /srv && rm -rf /srv/data)",
        "echo $(rm -rf /srv/data)",
        "cat <(rm -rf /srv/data)",
        "bash -c 'rm -rf /srv/data'",
        'sh -c "rm -rf /srv/data"',
        "zsh -c 'rm -rf /srv/data'",
        "eval 'rm -rf /srv/data'",
        "python3 -c \"import os; os.system('rm -rf /srv/data')\"",
        "python3 -c \"import subprocess; subprocess.run(['rm', '-rf', '/srv/data'])\"",
        "node -e \"require('child_process').execSync('rm -rf /srv/data')\"",
        "ruby -e 'system(\"rm -rf /srv/data\")'",
        "perl -e '`rm -rf /srv/data`'",
        "rm -rf 'unclosed /srv/data",
    ],
)
def test_a_deny_reads_every_command_the_line_runs(judge, command):
    verdict = judge(command, user=NO_RM)
    assert verdict.decision == "deny" and verdict.rule == "no-rm", (command, verdict.decision, verdict.reason)
    assert verdict.reason.endswith("Instead: rm -rf ./build")


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf build",
        "rm -rf ./build/ dist node_modules",
        "rm -rf /tmp/x",
        'rm -rf "$TMPDIR/build-$$"',
        "rm -rf ${TMPDIR}/x",
        "rm -f /srv/data",  # not recursive
        "rm -- -r",  # `--` ends options: a file named -r
        "rm -rf /tmp/build*",
        "rm --help",
    ],
)
def test_safe_forms_beside_the_denied_ones_pass(judge, command):
    verdict = judge(command, user=NO_RM)
    assert verdict.decision == "proceed", (command, verdict.rule, verdict.reason)


def test_an_unknown_target_is_asked_about_and_refused_where_the_host_cannot_ask(judge, env):
    for command in (
        'rm -rf "$DIR"',
        "rm -rf $(cat list)",
        "rm -rf src/*",
        "xargs rm -rf < list",
        "find /srv -name x -exec rm -rf {} +",
    ):
        verdict = judge(command, user=NO_RM)
        assert verdict.decision == "ask" and "only known when it runs" in verdict.reason, command
    # a `-c` script fed by `xargs -I` from anything but echo/printf: the built-in guard reads its
    # parameter as possibly any guarded path (issue 27), so it refuses before the rule can ask
    verdict = judge("ls | xargs -I{} sh -c 'rm -rf {}'", user=NO_RM)
    assert (verdict.decision, verdict.layer) == ("deny", "builtin"), verdict.reason
    project = judge.project
    out = call(*CLAUDE[:1], "PreToolUse", CLAUDE[1], _shell(project, 'rm -rf "$DIR"'), env)[1]
    assert _decision(out)["permissionDecision"] == "ask"
    from pasture.cli.policy import _gate_row
    from pasture.runtime.answer import can_ask

    assert not can_ask(_gate_row("codex")[1])
    out = call("codex", "PreToolUse", CODEX[1], _shell(project, 'rm -rf "$DIR"'), env)[1]
    assert _decision(out)["permissionDecision"] == "deny"


def test_option_values_and_false_flags_are_read_as_the_program_reads_them():
    policy = """
[[rules]]
name = "force-push"
decision = "deny"
[rules.run]
program = "git"
subcommand = "push"
options = [["-f", "--force"]]
without = ["--force-with-lease"]
"""
    from pasture.runtime.runrule import compile_run

    run = compile_run(
        {"program": "git", "subcommand": "push", "options": [["-f", "--force"]], "without": ["--force-with-lease"]},
        lambda k, v: ("re", v, ""),
    )
    from pasture.runtime.invocation import match

    def hit(line):
        return [match(run, inv, E.search) for inv in read(line)]

    assert hit("git push --force") == ["match"]
    assert hit("git push --force=true origin") == ["match"]
    assert hit("git push --force=false origin") == [None]
    assert hit("git push --force --force-with-lease") == [None]
    assert hit("git -C push push -f") == ["match"]  # -C takes `push` as its value
    assert hit("git -C repo status -f") == [None]
    assert hit("git log -- push -f") == [None]
    assert policy  # the TOML form of the same rule is compiled in the tests below


def test_a_line_the_reader_cannot_follow_is_read_conservatively_never_a_traceback(judge):
    for command in ("rm -rf 'unclosed", "echo $(rm -rf /srv/x", "rm -rf /srv/x <<EOF\nno end"):
        verdict = judge(command, user=NO_RM)
        assert verdict.decision == "deny", command
    assert judge("ls 'unclosed", user=NO_RM).decision == "proceed"


def test_interpreter_code_is_matched_by_script(judge):
    policy = """
[[rules]]
name = "no-rmtree"
decision = "deny"
[rules.run]
program = ["python", "python3"]
script = "shutil\\\\.rmtree|os\\\\.remove"
"""
    assert judge("python3 -c \"import shutil; shutil.rmtree('/home/u')\"", user=policy).decision == "deny"
    assert judge("python3 -c 'print(1)'", user=policy).decision == "proceed"
    assert judge("python3.12 -c 'import shutil; shutil.rmtree(\"/x\")'", user=policy).decision == "deny"
    assert judge("/usr/bin/python -c 'import os; os.remove(\"x\")'", user=policy).decision == "deny"
    assert judge("python3 script.py shutil.rmtree", user=policy).decision == "proceed"


def test_text_reads_what_the_program_is_given_sql_included(judge):
    policy = """
[[rules]]
name = "no-drop"
decision = "deny"
[rules.run]
program = "psql"
text = "(?i)\\\\bdrop\\\\s+(database|table)\\\\b"
"""
    assert judge('psql -c "DROP TABLE users"', user=policy).decision == "deny"
    assert judge("echo 'drop table users;' | psql app", user=policy).decision == "deny"
    assert judge("psql app <<'SQL'\nDROP DATABASE app;\nSQL", user=policy).decision == "deny"
    assert judge('psql -c "SELECT 1"', user=policy).decision == "proceed"
    assert judge("echo 'DROP TABLE users'", user=policy).decision == "proceed"


# --- precedence inside a layer -----------------------------------------------------------------------

ISSUE_REGEX = r"""
[[rules]]
name = "read-only"
tool_kind = "shell"
command = "^(ls|cat|git status)\\b"
decision = "allow"

[[rules]]
name = "no-rm"
tool_kind = "shell"
command = "rm\\s+-rf"
decision = "deny"
reason = "no rm -rf"
"""


def test_a_deny_is_not_lost_behind_an_allow_listed_before_it(judge):
    verdict = judge("ls && rm -rf build", user=ISSUE_REGEX)
    assert (verdict.decision, verdict.rule) == ("deny", "no-rm")


def test_deny_beats_ask_beats_rewrite_beats_allow_wherever_listed(judge):
    rules = {
        "allow": '[[rules]]\nname = "a"\ndecision = "allow"\n[rules.run]\nprogram = "git"\n',
        "rewrite": '[[rules]]\nname = "r"\ndecision = "rewrite"\nrewrite = { field = "command", pattern = "x", '
        'replace = "y" }\n[rules.run]\nprogram = "git"\n',
        "ask": '[[rules]]\nname = "q"\ndecision = "ask"\n[rules.run]\nprogram = "git"\n',
        "deny": '[[rules]]\nname = "d"\ndecision = "deny"\n[rules.run]\nprogram = "git"\n',
        "proceed": '[[rules]]\nname = "p"\ndecision = "proceed"\n[rules.run]\nprogram = "git"\n',
    }
    order = ["proceed", "allow", "rewrite", "ask", "deny"]
    for top in range(1, len(order)):
        chosen = order[: top + 1]
        for text in ("\n".join(rules[k] for k in chosen), "\n".join(rules[k] for k in reversed(chosen))):
            verdict = judge("git status x", user="packs = []\n" + text)
            assert verdict.decision == order[top], (chosen, verdict.decision)


# --- allow and rewrite are exact --------------------------------------------------------------------

READ_ONLY = """
packs = []
[[rules]]
name = "read-only"
decision = "allow"
[rules.run]
program = ["ls", "cat"]

[[rules]]
name = "status"
decision = "allow"
[rules.run]
program = "git"
subcommand = ["status", "log", "diff"]
"""


@pytest.mark.parametrize("policy", [READ_ONLY, ISSUE_REGEX], ids=["structured", "regex"])
@pytest.mark.parametrize(
    "command",
    [
        "ls=1 rm -rf build",
        'cat=1 python3 -c "import os"',
        "cat/../../../usr/bin/rm -rf build",
        "ls && rm -rf build",
        "ls > /etc/motd",
        "cat x | sh",
    ],
)
def test_the_readmes_allow_does_not_approve_other_programs(judge, env, policy, command):
    (judge.project / "cat").mkdir(exist_ok=True)  # the folder `cat/../../../usr/bin/rm` goes through
    judge("ls", user=policy)
    out = call(CLAUDE[0], "PreToolUse", CLAUDE[1], _shell(judge.project, command), env)[1]
    assert _decision(out).get("permissionDecision") != "allow", (command, out)


def test_a_structured_allow_approves_a_line_every_command_of_which_it_names(judge, env):
    judge("ls", user=READ_ONLY)
    for command in ("ls -la && cat README", "git status && git log -n 3 | cat", "ls 2>&1", "ls > out.txt"):
        out = call(CLAUDE[0], "PreToolUse", CLAUDE[1], _shell(judge.project, command), env)[1]
        assert _decision(out).get("permissionDecision") == "allow", (command, out)
    verdict = judge("ls && git push", user=READ_ONLY)
    assert verdict.decision == "proceed" and any("git is not one of the allowed" in n for n in verdict.notes)


LEASE = """
[[rules]]
name = "lease"
decision = "rewrite"
reason = "force-with-lease keeps others' commits"
rewrite = { field = "command", pattern = "--force\\\\b(?!-)", replace = "--force-with-lease" }
except = ["git.push-force"]
[rules.run]
program = "git"
subcommand = "push"
options = [["-f", "--force"]]
without = ["--force-with-lease"]
"""


def test_a_structured_rewrite_applies_only_to_the_one_command_it_matched(judge, env):
    judge("ls", user=LEASE)
    out = call(CLAUDE[0], "PreToolUse", CLAUDE[1], _shell(judge.project, "git push --force origin main"), env)[1]
    assert _decision(out)["updatedInput"] == {"command": "git push --force-with-lease origin main"}
    for command in ('python3 -c "print(1)" git push --force', "ls && git push --force"):
        out = call(CLAUDE[0], "PreToolUse", CLAUDE[1], _shell(judge.project, command), env)[1]
        decision = _decision(out)
        assert "updatedInput" not in decision and decision.get("permissionDecision") != "allow", (command, out)


# --- exceptions ----------------------------------------------------------------------------------------

CACHE_EXCEPTION = """
[[rules]]
name = "app-cache"
decision = "proceed"
except = ["no-rm"]
[rules.run]
program = "rm"
args = ["/opt/app/cache"]
"""


def test_an_exception_lifts_the_named_deny_only_where_it_matches(judge):
    user = NO_RM + CACHE_EXCEPTION
    assert judge("rm -rf /opt/app/cache", user=user).decision == "proceed"
    verdict = judge("rm -rf /opt/app/cache && rm -rf /srv/data", user=user)
    assert (verdict.decision, verdict.rule) == ("deny", "no-rm")
    assert judge("rm -rf /opt/app/cache2", user=user).decision == "deny"


def test_a_user_exception_leaves_a_managed_deny_standing(judge):
    verdict = judge("rm -rf /opt/app/cache", user=NO_RM + CACHE_EXCEPTION, managed=NO_RM)
    assert (verdict.decision, verdict.layer, verdict.rule) == ("deny", "managed", "no-rm")
    # an exception names rules of its own or a lower layer: the managed rule's name is unknown to the user layer
    verdict = judge("ls", user=CACHE_EXCEPTION, managed=NO_RM)
    assert "except names unknown rule(s) 'no-rm'" in verdict.failure


def test_an_exception_to_a_pack_rule_and_who_selected_the_pack(judge):
    exception = (
        '[[rules]]\nname = "mine"\ndecision = "proceed"\nexcept = ["git.reset-hard"]\n'
        '[rules.run]\nprogram = "git"\nsubcommand = "reset"\nargs = ["HEAD"]\n'
    )
    assert judge("git reset --hard HEAD", user=exception).decision == "proceed"
    assert judge("git reset --hard HEAD~3", user=exception).decision == "deny"
    # the managed layer selected the pack: a user exception (or disable) does not lift its rules
    verdict = judge("git reset --hard HEAD", user=exception, managed='packs = ["git"]\n')
    assert (verdict.decision, verdict.rule) == ("deny", "git.reset-hard")
    verdict = judge("git reset --hard", user='disable = ["git.reset-hard"]\n', managed='packs = ["git"]\n')
    assert verdict.decision == "deny" and any("only it can turn" in n for n in verdict.notes)


def test_a_project_layer_adds_packs_but_cannot_remove_or_except(judge, env):
    project = 'packs = ["git"]\ndisable = ["git.reset-hard"]\n' + CACHE_EXCEPTION.replace("no-rm", "git.reset-hard")
    verdict = judge("git reset --hard", user="packs = []\n", project_text=project)
    assert (verdict.decision, verdict.rule) == ("deny", "git.reset-hard")
    assert any("disable" in n for n in verdict.notes) and any("except" in n for n in verdict.notes)


# --- packs ------------------------------------------------------------------------------------------


def test_packs_are_on_by_default_and_chosen_by_the_managed_or_user_layer(judge):
    assert judge("git push --force").decision == "deny"
    assert judge("git push --force-with-lease").decision == "proceed"
    assert judge("git push --force", user="packs = []\n").decision == "proceed"
    assert judge("git push --force", user='packs = ["recommended"]\n').decision == "deny"
    assert judge("git push --force", user='disable = ["git.push-force"]\n').decision == "proceed"
    assert judge("git push --force", user="packs = []\n", managed='packs = ["git"]\n').decision == "deny"
    # the managed choice stands; the user may add to it
    assert judge("git push --force", user='packs = ["git"]\n', managed="packs = []\n").decision == "deny"
    assert judge("git push --force", user="packs = []\n", managed="packs = []\n").decision == "proceed"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('packs = ["gti"]\n', "unknown pack(s) 'gti'; known: recommended, git"),
        ('disable = ["git.nope"]\n', "unknown pack rule id(s) 'git.nope'; known: "),
        ('[[rules]]\nname = "x"\ndecision = "proceed"\nexcept = ["nope"]\n', "except names unknown rule(s) 'nope'"),
        ('[[rules]]\nname = "x"\ndecision = "deny"\n[rules.run]\nprogram = "rm"\nargz = ["/"]\n', "argz"),
        ('[[rules]]\nname = "x"\ndecision = "deny"\n[rules.run]\nargs = ["/"]\n', "needs program"),
        ('[[rules]]\nname = "x"\ndecision = "deny"\n[rules.run]\nprogram = "rm"\noptions = ["r"]\n', "not an option"),
        ('[[rules]]\nname = "x"\ndecision = "deny"\nexcept = ["y"]\n', "decision must be allow, rewrite or proceed"),
    ],
)
def test_bad_structured_input_is_a_policy_error_at_file_line(judge, text, said):
    verdict = judge("ls", user=text)
    assert verdict.failure and said in verdict.failure, verdict.failure
    assert ".toml:" in verdict.failure


def test_the_compiled_packs_are_cached_and_an_upgrade_recompiles_once(judge, env, tmp_path, monkeypatch):
    from pasture.runtime import packs

    judge("ls")
    E._MEMO.clear()
    assert E.load(str(judge.project), env).from_cache
    shipped = Path(packs.folder())
    copy = tmp_path / "packs"
    copy.mkdir()
    for item in shipped.glob("*.toml"):
        (copy / item.name).write_text(item.read_text())
    monkeypatch.setattr(packs, "folder", lambda: str(copy))
    monkeypatch.setattr(packs, "_CATALOG", {})
    first = E.load(str(judge.project), env)
    E._MEMO.clear()
    assert not first.from_cache and E.load(str(judge.project), env).from_cache
    (copy / "git.toml").write_text((copy / "git.toml").read_text().replace("version = 1", "version = 2"))
    monkeypatch.setattr(packs, "_CATALOG", {})
    E._MEMO.clear()
    again = E.load(str(judge.project), env)
    assert not again.from_cache and again.packs["versions"]["git"] == 2


def test_the_reader_is_shared_by_every_rule_of_an_event(judge, monkeypatch):
    from pasture.runtime import invocation

    calls = []
    real = invocation.read
    monkeypatch.setattr(invocation, "read", lambda line, depth=0, **kw: calls.append(line) or real(line, depth, **kw))
    judge("git status && rm -rf /srv/x", user=NO_RM + READ_ONLY.replace("packs = []", ""))
    assert calls == ["git status && rm -rf /srv/x"]


def test_a_rewrite_that_is_an_exception_and_changes_nothing_is_refused(judge, env):
    judge("ls", user=LEASE.replace('options = [["-f", "--force"]]', 'options = [["-f", "--force"]]\n'))
    out = call(CLAUDE[0], "PreToolUse", CLAUDE[1], _shell(judge.project, "git push -f origin main"), env)[1]
    decision = _decision(out)
    assert decision["permissionDecision"] == "deny" and "changed nothing" in decision["permissionDecisionReason"]


def test_a_shell_call_given_as_an_argv_list_is_read_too(env, judge):
    judge("ls", user=NO_RM)
    effective = E.load(str(judge.project), env)
    for argv in (["bash", "-lc", "rm -rf /srv/data"], ["rm", "-rf", "/srv/data"]):
        envelope = {"event": "PreToolUse", "tool_kind": "shell", "tool_input": {"command": argv}, "command": None}
        assert E.evaluate(effective, envelope).decision == "deny", argv
    envelope = {"event": "PreToolUse", "tool_kind": "shell", "tool_input": {"command": ["echo", "rm -rf /srv/x"]}}
    assert E.evaluate(effective, envelope).decision == "proceed"


def test_a_policy_edit_reuses_the_compiled_packs_of_the_verified_cache(judge, env, monkeypatch):
    from pasture.runtime import packs, policy

    judge("ls", user="packs = []\n")  # compiled and cached, packs included
    loaded = []
    real = policy.load_pack
    monkeypatch.setattr(policy, "load_pack", lambda path: loaded.append(path) or real(path))
    monkeypatch.setattr(packs, "_CATALOG", {})  # a new process: nothing compiled in memory
    E._MEMO.clear()
    verdict = judge("git push --force", user='packs = ["git"]\n')  # an edit: the layers compile again
    assert verdict.decision == "deny" and loaded == []  # ... the packs come from the cache
    E._MEMO.clear()
    monkeypatch.setattr(packs, "_CATALOG", {})
    monkeypatch.setattr(E, "_catalog", lambda stored, key: None)  # no usable cache: they compile
    judge("git push --force", user='packs = ["git"]\n# again\n')
    assert loaded


REGEX_LEASE = r"""
[[rules]]
name = "lease"
tool_kind = "shell"
command = "git\\s+push\\b.*--force\\b(?!-)"
decision = "rewrite"
rewrite = { field = "command", pattern = "--force\\b(?!-)", replace = "--force-with-lease" }
except = ["git.push-force"]

[[rules]]
name = "read-only"
tool_kind = "shell"
command = "^(ls|cat|python3)\\b"
decision = "allow"
"""


def test_the_issues_regex_lease_rewrite_no_longer_approves_an_interpreter_running_code(judge, env):
    judge("ls", user=REGEX_LEASE)
    command = "python3 -c \"import os; os.remove('x')\" git push --force"
    out = call(CLAUDE[0], "PreToolUse", CLAUDE[1], _shell(judge.project, command), env)[1]
    decision = _decision(out)
    assert "updatedInput" not in decision and decision.get("permissionDecision") != "allow", out
    assert "runs code given on its command line" in decision.get("permissionDecisionReason", ""), out
    out = call(CLAUDE[0], "PreToolUse", CLAUDE[1], _shell(judge.project, "python3 -c 'print(1)'"), env)[1]
    assert _decision(out).get("permissionDecision") != "allow"  # the regex allow of python3 is not given either
    out = call(CLAUDE[0], "PreToolUse", CLAUDE[1], _shell(judge.project, "git push --force origin"), env)[1]
    assert _decision(out)["updatedInput"] == {"command": "git push --force-with-lease origin"}


def test_an_exception_or_allow_vouches_for_every_argument_a_deny_for_any(judge, env):
    user = NO_RM + CACHE_EXCEPTION
    assert judge("rm -rf /opt/app/cache /srv/data", user=user).decision == "deny"
    assert judge('rm -rf /opt/app/cache "$X"', user=user).decision == "deny"  # the exception cannot vouch for $X
    allow = (
        'packs = []\n[[rules]]\nname = "readme"\ndecision = "allow"\n[rules.run]\nprogram = "cat"\nargs = ["README*"]\n'
    )
    assert judge("cat README.md", user=allow).decision == "allow"
    assert judge("cat README.md /etc/shadow", user=allow).decision == "proceed"
    assert judge("cat", user=allow).decision == "proceed"


def test_after_a_cd_out_of_the_project_relative_targets_are_not_known(judge):
    assert judge("cd ~ && rm -rf work", user=NO_RM).decision == "ask"
    assert judge("cd /srv; rm -rf data", user=NO_RM).decision == "ask"
    # a folder only known at run time: the built-in guard reads a write there as one that may land in
    # a guarded folder (issue 27) and refuses it before any rule is asked
    unknown = judge('cd "$D" && rm -rf build', user=NO_RM)
    assert (unknown.decision, unknown.layer) == ("deny", "builtin"), unknown.reason
    assert judge("cd frontend && rm -rf node_modules", user=NO_RM).decision == "proceed"
    assert judge("cd /srv && rm -rf /tmp/x", user=NO_RM).decision == "proceed"  # absolute: known wherever
    assert judge("rm -rf build && cd /srv", user=NO_RM).decision == "proceed"
