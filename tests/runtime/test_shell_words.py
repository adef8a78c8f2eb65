"""The guard's hand-written shell word splitter splits exactly as shlex does (see shellwrites' docstring).

shlex is the reference: `shlex.shlex(posix=True, punctuation_chars=";&|()<>")` with whitespace_split
and no comment characters, which is what generator.runtime.shellwrites used before it was replaced to keep
`re` and `enum` off the hook path. Same words, or the same ValueError, for every input.
"""

import shlex

import pytest
from hypothesis import given, settings, strategies as st

from generator.runtime.shellwrites import split_words


def reference(text: str) -> list[str]:
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    return list(lexer)


def outcome(split, text):
    try:
        return ("words", split(text))
    except ValueError as exc:
        return ("error", str(exc))


CASES = [
    "", "   ", "echo pasture-probe > probe.txt", "rm -rf .pasture", "a>b", "a&&b||c;d|e&f", "cat<in>>out 2>&1",
    "echo 'it''s'", 'echo "a \\"b\\" \\\\ \\$c"', "echo a\\ b", "''", "'' \"\"", "x''>y", "\"\">x", ">'q'", "a;;b",
    "(cd src && rm x)", "echo 'unclosed", 'echo "unclosed', "trailing\\", '"esc at end\\', "tab\there\rcr",
    "sed -i 's/a/b/' .pasture/policy.toml", "printf '%s' \"$(cat x)\" | tee -a ~/.config/pasture/policy.toml",
    "é ünïcode > ファイル", "a\\>b", "a\\'b", "\"a'b\"", "'a\"b'", ">>|&&", "&>out", "|&",
]


@pytest.mark.parametrize("text", CASES)
def test_known_commands_split_as_shlex_does(text):
    assert outcome(split_words, text) == outcome(reference, text)


ALPHABET = st.sampled_from(list("ab ;&|()<>'\"\\\t\r\n-./~$*=é") + ["rm", ".pasture", "2>", "&&"])


@settings(max_examples=3000, deadline=None)
@given(st.lists(ALPHABET, max_size=24).map("".join))
def test_generated_commands_split_as_shlex_does(text):
    assert outcome(split_words, text) == outcome(reference, text)


def test_the_splitter_is_not_a_copy_of_a_trivial_split():
    # The properties above would also hold for shlex itself; this pins that quoting is really read.
    assert split_words("echo 'a b'>\"c d\"") == ["echo", "a b", ">", "c d"]
    with pytest.raises(ValueError, match="No closing quotation"):
        split_words("echo 'a")
