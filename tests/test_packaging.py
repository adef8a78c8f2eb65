"""Every install works the same: the data folders travel inside the distribution and are found through
the import system.

The wheel and sdist tests build the real artifacts (python -m build, isolated, as a user's pip
would), install the wheel into a fresh target folder and run pasture from there with no access to
this checkout: generate into a copy of the repository, check, deny through the hook, install into a
temp project. .ci/run repeats the same in a fresh venv with its dependencies from PyPI, plus pipx.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest
from repo_paths import REPO

import pasture
from pasture import resources

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
DATA = {
    "pasture.templates": "templates",
    "pasture.profiles": "profiles",
    "pasture.captures": "captures",
    "pasture_contracts": "generated/python/pasture_contracts",
}


def test_every_code_package_and_data_folder_is_listed():
    config = PYPROJECT["tool"]["setuptools"]
    code = sorted(
        "pasture"
        + ("." + ".".join(p.parent.relative_to(REPO / "pasture").parts) if p.parent != REPO / "pasture" else "")
        for p in (REPO / "pasture").rglob("__init__.py")
        if "__pycache__" not in p.parts
    )
    missing = [name for name in code if name not in config["packages"]]
    assert not missing, f"add {missing} to [tool.setuptools] packages in pyproject.toml"
    assert set(config["packages"]) == set(code) | set(DATA)
    for name, folder in DATA.items():
        assert config["package-dir"][name] == folder
        assert (REPO / folder / "__init__.py").is_file()


def test_resources_are_real_folders_found_without_path_arithmetic():
    # A fresh interpreter: other tests import throwaway pasture_contracts packages into this one.
    probe = (
        "import json; from pasture import resources as r; print(json.dumps([r.templates_folder(), "
        "r.bundled_project(), r.package_folder('pasture_contracts'), r.import_roots()]))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd="/")
    assert done.returncode == 0, done.stderr
    templates, bundled, tables, roots = json.loads(done.stdout)
    assert templates == str(REPO / "templates") and bundled == str(REPO)
    assert tables == str(REPO / "generated" / "python" / "pasture_contracts")
    assert roots == [str(REPO), str(REPO / "generated" / "python")]
    with pytest.raises(resources.MissingResource, match="reinstall"):
        resources.package_folder("pasture.no_such_data")


def test_no_module_outside_resources_locates_data_from_its_own_file():
    offenders = []
    for path in (REPO / "pasture").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "__file__" in text and ("parents[" in text or "dirname(os.path.dirname" in text):
            offenders.append(str(path.relative_to(REPO)))
    assert offenders == []


HOOK_PAYLOAD = {
    "session_id": "s",
    "tool_use_id": "t",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "cat probe"},
}
POLICY = (
    '[[rules]]\nname = "p"\ndecision = "deny"\nreason = "probe is off limits"\ntool_kind = "shell"\ncommand = "probe"\n'
)


def _isolated(
    path: list[str], code: str, *args: str, stdin: bytes | None = None, cwd: Path | None = None, env: dict | None = None
) -> subprocess.CompletedProcess:
    """`python -I -S`: no site, no .pth (no editable finder), only ``path`` on sys.path."""
    boot = f"import sys; sys.path[:0] = {path!r}; " + code
    return subprocess.run(
        [sys.executable, "-I", "-S", "-c", boot, *args],
        input=stdin,
        capture_output=True,
        timeout=300,
        cwd=cwd,
        env={**os.environ, **(env or {})},
    )


def _hook(path: list[str], tmp: Path) -> subprocess.CompletedProcess:
    (tmp / "policy.toml").write_text(POLICY)
    code = (
        "from pasture.runtime.lifecycle import main; "
        "sys.exit(main(['--harness', 'claude-code', '--event', 'PreToolUse', '--host-version', '2.1.328']))"
    )
    return _isolated(
        path,
        code,
        stdin=json.dumps({**HOOK_PAYLOAD, "cwd": str(tmp)}).encode(),
        env={"PASTURE_POLICY": str(tmp / "policy.toml"), "PASTURE_JOURNAL": str(tmp / "j.sqlite3")},
    )


def test_lean_launcher_imports_from_the_recorded_roots(tmp_path):
    """What the lean hook launcher does: put dirname(dirname(pkg.__file__)) of both packages on sys.path."""
    files = [str(REPO / "pasture" / "__init__.py"), str(REPO / "generated/python/pasture_contracts/__init__.py")]
    roots = [os.path.dirname(os.path.dirname(f)) for f in files]
    done = _isolated(roots, "import pasture, pasture_contracts; print(pasture.__file__, pasture_contracts.__file__)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().split() == files
    hooked = _hook(roots, tmp_path)
    assert b'"permissionDecision": "deny"' in hooked.stdout, hooked


# --- the built artifacts --------------------------------------------------------------------------


def _build(kind: str, source: Path, out: Path) -> Path:
    done = subprocess.run(
        [sys.executable, "-m", "build", f"--{kind}", "--outdir", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (artifact,) = out.glob("*.whl" if kind == "wheel" else "*.tar.gz")
    return artifact


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory):
    # Three isolated builds (python -m build): about 20-60 s, so these tests are `slow`.
    """(wheel from the tree, sdist, wheel built from that sdist)."""
    base = tmp_path_factory.mktemp("dist")
    src = base / "src"  # a clean export: what is committed plus this work tree's edits, no caches
    shutil.copytree(
        REPO,
        src,
        ignore=shutil.ignore_patterns(
            ".git", ".cache", "__pycache__", "*.egg-info", "build", "dist", ".pasture", "node_modules"
        ),
    )
    wheel = _build("wheel", src, base / "wheel")
    sdist = _build("sdist", src, base / "sdist")
    unpacked = base / "unpacked"
    shutil.unpack_archive(sdist, unpacked)
    (tree,) = unpacked.iterdir()
    from_sdist = _build("wheel", tree, base / "from-sdist")
    return wheel, sdist, from_sdist


def _names(wheel: Path) -> list[str]:
    return sorted(zipfile.ZipFile(wheel).namelist())


@pytest.mark.slow
def test_wheel_carries_templates_profiles_captures_and_tables(artifacts):
    names = _names(artifacts[0])
    for folder, prefix, pattern in (
        ("templates", "pasture/templates/", "*.j2"),
        ("profiles", "pasture/profiles/", "*.yaml"),
        ("captures", "pasture/captures/", "*.json"),
        ("generated/python/pasture_contracts", "pasture_contracts/", "*.py"),
        ("pasture/packs", "pasture/packs/", "*.toml"),  # the protection packs (issue 26)
    ):
        expected = {
            prefix + p.relative_to(REPO / folder).as_posix()
            for p in (REPO / folder).rglob(pattern)
            if "__pycache__" not in p.parts
        }
        assert expected and expected <= set(names), sorted(expected - set(names))[:5]
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert not [n for n in names if n.startswith(("tests/", "benchmarks/")) or "__pycache__" in n]


@pytest.mark.slow
def test_wheel_from_the_sdist_is_the_same_wheel(artifacts):
    wheel, sdist, from_sdist = artifacts
    assert _names(from_sdist) == _names(wheel)
    import tarfile

    members = {m.split("/", 1)[1] for m in tarfile.open(sdist).getnames() if "/" in m}
    for needed in (
        "README.md",
        "LICENSE",
        "CHANGELOG.md",
        "ARCHITECTURE.md",
        "CONTRIBUTING.md",
        "tests/conftest.py",
        "tests/host_schemas/README.md",
        "benchmarks/bench_generate.py",
    ):
        assert needed in members, needed


@pytest.mark.slow
def test_installed_wheel_runs_without_the_checkout(artifacts, tmp_path):
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-compile", "--target", str(site), str(artifacts[0])],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    # The wheel first, then this environment's third-party packages (click, pydantic, ...), never the
    # checkout: without site there is no editable finder.
    path = [str(site), sysconfig.get_paths()["purelib"]]
    where = _isolated(
        path, "import pasture, pasture_contracts; print(pasture.__file__); print(pasture_contracts.__file__)"
    )
    assert where.returncode == 0, where.stderr
    assert all(line.startswith(str(site)) for line in where.stdout.decode().split())

    def run_pasture(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
        return _isolated(
            path,
            "from pasture.entry import main; sys.argv = ['pasture', *sys.argv[1:]]; sys.exit(main())",
            *args,
            cwd=cwd,
            env={"PASTURE_NO_CACHE": "1"},
        )

    version = run_pasture("--version")
    assert version.stdout.decode() == f"pasture {pasture.__version__}\n"
    copy = tmp_path / "repo"
    for folder in ("profiles", "captures", "templates", "generated"):
        shutil.copytree(REPO / folder, copy / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.rmtree(copy / "generated")
    generated = run_pasture("generate", "--root", str(copy))
    assert generated.returncode == 0, generated.stderr
    for rel in ("manifest.json", "claude-code@2.1.328/settings.json", "python/pasture_contracts/__init__.py"):
        assert (copy / "generated" / rel).read_bytes() == (REPO / "generated" / rel).read_bytes(), rel
    checked = run_pasture("check", "--root", str(copy))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    hooked = _hook(path, tmp_path)
    assert b'"permissionDecision": "deny"' in hooked.stdout, hooked
    project = tmp_path / "project"
    project.mkdir()
    installed = run_pasture("install", "claude-code", "--project", str(project), "--json", cwd=project)
    assert installed.returncode in (0, 3), installed.stdout + installed.stderr
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert "PreToolUse" in settings["hooks"]
