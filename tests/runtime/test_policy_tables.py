"""The policy's top-level tables ([gate], [journal], [builtin]): a wrong shape or an unknown key is
refused with the file, the line and the keys the table takes (pasture.runtime.policy._table)."""

import pytest

from pasture.runtime.policy import PolicyError, compile_layer


def refused(text: str) -> str:
    with pytest.raises(PolicyError) as info:
        compile_layer("user", "/u/policy.toml", text.encode(), "/p", True)
    return str(info.value)


@pytest.mark.parametrize(
    "name,allowed",
    [
        (
            "gate",
            "default, events, kind, timeout",
        ),  # kind "rules"'s keys (tests/runtime/test_gate_kinds.py: the others)
        ("journal", "keep_days, max_mb, path"),
        ("builtin", "protect_guard_files"),
    ],
)
def test_an_unknown_key_names_its_line_and_the_allowed_keys(name, allowed):
    message = refused(f"# a comment\n[{name}]\nbogus = 1\n")
    assert message == f"/u/policy.toml:3: [{name}] has unknown key(s) bogus; allowed: {allowed}"


@pytest.mark.parametrize("name", ["gate", "journal", "builtin"])
def test_a_table_that_is_not_a_table_is_refused(name):
    assert refused(f'{name} = "x"\n').endswith(f"[{name}] must be a table")


def test_known_keys_compile():
    layer = compile_layer(
        "user",
        "/u/policy.toml",
        b'[gate]\ndefault = "ask"\n[journal]\npath = "j.sqlite3"\n[builtin]\nprotect_guard_files = true\n',
        "/p",
        True,
    )
    assert layer["default"] == "ask" and layer["journal"] == "/p/j.sqlite3" and layer["protect"] is True
