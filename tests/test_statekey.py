"""pasture/statekey.py: the user's key for authenticating pasture's caches is private, owned, and
never taken from a file that fails the checks."""

from __future__ import annotations

import os
import stat

import pytest

from pasture import statekey


@pytest.fixture
def env(tmp_path) -> dict:
    return {"HOME": str(tmp_path / "home"), "XDG_STATE_HOME": str(tmp_path / "state")}


def _key_file(env) -> str:
    return os.path.join(env["XDG_STATE_HOME"], "pasture", "key")


def test_a_key_is_made_once_0600_in_a_0700_folder(env):
    assert statekey.key(env, create=False) is None
    first = statekey.key(env)
    assert len(first) == 32 and statekey.key(env) == first == statekey.key(env, create=False)
    assert stat.S_IMODE(os.stat(_key_file(env)).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(_key_file(env))).st_mode) == 0o700


def test_sign_and_verify_bind_data_and_purpose(env):
    mac = statekey.sign(b"data", "one", env)
    assert statekey.verify(b"data", mac, "one", env)
    assert not statekey.verify(b"datA", mac, "one", env)
    assert not statekey.verify(b"data", mac, "two", env)
    assert not statekey.verify(b"data", None, "one", env)
    os.unlink(_key_file(env))
    assert not statekey.verify(b"data", mac, "one", env)  # a new key never verifies the old MACs
    assert statekey.sign(b"data", "one", env) != mac


def test_a_key_others_could_read_is_replaced(env):
    old = statekey.key(env)
    os.chmod(_key_file(env), 0o644)
    assert statekey.key(env, create=False) is None
    new = statekey.key(env)
    assert new != old and stat.S_IMODE(os.stat(_key_file(env)).st_mode) == 0o600


def test_a_key_in_a_folder_others_can_reach_is_not_believed(env):
    statekey.key(env)
    folder = os.path.dirname(_key_file(env))
    os.chmod(folder, 0o755)
    assert statekey.key(env, create=False) is None
    assert statekey.key(env) is not None and stat.S_IMODE(os.stat(folder).st_mode) == 0o700


@pytest.mark.parametrize("kind", ["symlink", "fifo", "short"])
def test_a_key_file_that_is_not_a_plain_key_is_never_read_as_one(env, tmp_path, kind):
    path = _key_file(env)
    os.makedirs(os.path.dirname(path), mode=0o700)
    if kind == "symlink":
        target = tmp_path / "planted"
        target.write_bytes(b"k" * 32)
        target.chmod(0o600)
        os.symlink(target, path)
    elif kind == "fifo":
        os.mkfifo(path, 0o600)  # reading it would block: the key is opened non-blocking
    else:
        with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "wb") as fh:
            fh.write(b"short")
    assert statekey.key(env, create=False) is None
    made = statekey.key(env)
    assert made is not None and made != b"k" * 32
    assert stat.S_ISREG(os.lstat(path).st_mode)


def test_a_folder_owned_by_someone_else_gives_no_key(env, monkeypatch):
    statekey.key(env)
    monkeypatch.setattr(os, "getuid", lambda: os.stat(_key_file(env)).st_uid + 1)
    assert statekey.key(env) is None and statekey.key(env, create=False) is None
    assert statekey.sign(b"data", "one", env) is None
