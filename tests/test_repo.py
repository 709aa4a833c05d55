"""Repository hygiene: one lock file for every pin, every chapter in the TOC, no outputs."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import tomllib
from itertools import chain
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]


def _dev():
    """dev.py as a module (it is a script at the repository root, not a package)."""
    spec = importlib.util.spec_from_file_location("dev", ROOT / "dev.py")
    dev = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dev)
    return dev


def _lock() -> dict[str, Version]:
    pins = {}
    for line in _dev().lock_pins():
        m = re.fullmatch(r"([A-Za-z0-9_.\-]+)==(\S+)", line)
        assert m, f"requirements-lock.txt: not an exact pin: {line!r}"
        name = canonicalize_name(m.group(1))
        assert name not in pins, f"requirements-lock.txt pins {name} twice"
        pins[name] = Version(m.group(2))
    return pins


def _requirements() -> list[Requirement]:
    """Every requirement of pyproject.toml: dependencies and all extras, but dmi_lib itself."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = [*project["dependencies"], *chain(*project["optional-dependencies"].values())]
    return [r for r in map(Requirement, reqs) if canonicalize_name(r.name) != "dmi-lib"]


def test_the_lock_pins_every_requirement_inside_its_range():
    lock = _lock()
    missing = [str(r) for r in _requirements() if canonicalize_name(r.name) not in lock]
    outside = [
        (str(r), str(lock[canonicalize_name(r.name)]))
        for r in _requirements()
        if canonicalize_name(r.name) in lock
        and not r.specifier.contains(lock[canonicalize_name(r.name)], prereleases=True)
    ]
    assert not missing, f"requirements without a pin in requirements-lock.txt: {missing}"
    assert not outside, f"pins outside pyproject.toml's ranges: {outside}"


def test_the_lock_is_the_only_file_of_pins():
    assert sorted(p.name for p in ROOT.glob("requirements*.txt")) == ["requirements-lock.txt"]
    exact = [str(r) for r in _requirements() if any(s.operator == "==" for s in r.specifier)]
    assert not exact, f"pyproject.toml names ranges, the lock the versions: {exact}"


def test_environment_yml_is_written_from_pyproject_and_the_lock():
    assert (ROOT / "environment.yml").read_text() == _dev().environment_yml(), (
        "environment.yml is out of date: run `python3 dev.py lock`"
    )


def test_environment_yml_installs_the_lock_but_the_study_extra():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    pinned = {canonicalize_name(p.split("==")[0]): Version(p.split("==")[1]) for p in pip[:-2]}
    study = {canonicalize_name(Requirement(r).name) for r in _dev().study_packages()}
    lock = _lock()
    assert study and study <= set(lock) and not study & set(pinned)
    assert pinned == {k: v for k, v in lock.items() if k not in study}
    assert pip[-2:] == ["-e .[dev]", "-e ./dmi_book"]


def test_every_install_is_constrained_by_the_lock():
    dev = _dev()
    commands = dev.install_commands("python")
    assert all(cmd[-2:] == ["-c", "requirements-lock.txt"] for cmd in commands)
    # dmi_lib with its dev extras, and the book's package dmi_book beside it
    assert commands[0][-6:-2] == ["-e", ".[dev]", "-e", "./dmi_book"]
    # crowd-kit without its dependencies, from the one list of the `study` extra, also
    # on Binder (postBuild)
    assert dev.study_command("python") in commands
    assert "--no-deps" in dev.study_command("python")
    assert set(dev.study_packages()) <= set(dev.study_command("python"))
    assert "python dev.py _install-study" in (ROOT / "postBuild").read_text()


def test_the_environment_stamp_follows_the_project_table_and_the_lock(tmp_path, monkeypatch):
    dev = _dev()
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    (tmp_path / "requirements-lock.txt").write_text((ROOT / "requirements-lock.txt").read_text())
    (tmp_path / "dmi_book").mkdir()
    book = tmp_path / "dmi_book" / "pyproject.toml"
    book.write_text((ROOT / "dmi_book" / "pyproject.toml").read_text())
    monkeypatch.setattr(dev, "ROOT", tmp_path)
    before = dev.env_digest()
    with open(tmp_path / "pyproject.toml", "a") as f:
        f.write("\n[tool.example]\nsetting = 1\n")  # tool settings: no reinstall
    assert dev.env_digest() == before
    with open(tmp_path / "requirements-lock.txt", "a") as f:
        f.write("example==1.0\n")
    assert dev.env_digest() != before
    after_lock = dev.env_digest()
    book.write_text(
        book.read_text().replace('dependencies = ["dmi_lib[book]"]', "dependencies = []")
    )
    assert dev.env_digest() != after_lock  # the book package's requirements changed


def _notebooks():
    return sorted(
        p for p in (ROOT / "book").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
    )


def _toc_entries() -> set[str]:
    toc = (ROOT / "_toc.yml").read_text()
    return set(re.findall(r"(?:root|file):\s*([^\s#]+)", toc))


def test_every_chapter_is_in_the_toc():
    entries = _toc_entries()
    missing = [
        str(p.relative_to(ROOT))
        for p in _notebooks()
        if str(p.relative_to(ROOT).with_suffix("")) not in entries
    ]
    assert not missing, f"chapters missing from _toc.yml: {missing}"


def test_toc_entries_exist():
    for entry in _toc_entries():
        assert any((ROOT / f"{entry}{ext}").exists() for ext in (".ipynb", ".md")), entry


@pytest.mark.parametrize("nb", _notebooks(), ids=lambda p: p.name)
def test_notebook_has_no_outputs(nb):
    data = json.loads(nb.read_text())
    dirty = [
        i
        for i, c in enumerate(data["cells"])
        if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count"))
    ]
    assert not dirty, f"{nb.name}: cells {dirty} have stored outputs; clear them"


@pytest.mark.parametrize("nb", _notebooks(), ids=lambda p: p.name)
def test_notebook_has_no_absolute_paths(nb):
    text = nb.read_text()
    assert "/work/" not in text and "/root/" not in text and "/home/" not in text


@pytest.mark.parametrize("nb", _notebooks(), ids=lambda p: p.name)
def test_proof_titles_do_not_repeat_their_type(nb):
    # sphinx-proof prints the type word itself (proof_title_format " %t" in _config.yml)
    pattern = re.compile(r"^[`:]{3,}\{prf:(\w+)\}\s+(\w+)", re.M)
    cells = json.loads(nb.read_text())["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    repeats = [
        m.group(0) for m in pattern.finditer(text) if m.group(1).lower() == m.group(2).lower()
    ]
    assert not repeats, f"{nb.name}: run tools/fix_proof_titles.py ({repeats})"


def test_dev_test_provides_a_browser_with_apt_as_root(monkeypatch):
    dev = _dev()
    found = iter([None, "/usr/bin/chromium"])
    monkeypatch.setattr(dev, "find_chromium", lambda: next(found))
    monkeypatch.setattr(dev.os, "geteuid", lambda: 0)
    monkeypatch.setattr(dev.shutil, "which", lambda name: "/usr/bin/apt-get")
    ran = []
    monkeypatch.setattr(dev, "run", lambda *cmd, **kw: ran.append(cmd))
    assert dev.ensure_browser() is True
    assert ran == [
        ("/usr/bin/apt-get", "update"),
        ("/usr/bin/apt-get", "install", "-y", "--no-install-recommends", "chromium"),
    ]


@pytest.mark.parametrize("ci, says", [("true", "will FAIL"), ("", "SKIPPED")])
def test_dev_test_without_a_browser_says_what_to_do(monkeypatch, capsys, ci, says):
    dev = _dev()
    monkeypatch.setattr(dev, "find_chromium", lambda: None)
    monkeypatch.setattr(dev.os, "geteuid", lambda: 1000)  # not root: no apt-get
    monkeypatch.setenv("CI", ci)
    monkeypatch.setattr(dev, "run", lambda *a, **k: pytest.fail("must not install"))
    assert dev.ensure_browser() is False
    out = capsys.readouterr().out
    assert "No Chromium" in out and "CHROMIUM=/path/to/chrome" in out and says in out


def test_browser_fixture_fails_under_ci_without_a_browser(tmp_path):
    # the suite's `chromium` fixture: CI=true and no browser -> the browser tests FAIL
    test = tmp_path / "test_x.py"
    test.write_text("def test_needs_a_browser(chromium):\n    pass\n")
    real = ROOT / "tests" / "conftest.py"
    (tmp_path / "conftest.py").write_text(
        "import runpy\n"
        f"_ns = runpy.run_path({str(real)!r})\n"
        "globals().update({k: v for k, v in _ns.items() if not k.startswith('__')})\n"
    )

    def run_pytest(ci: str, *extra: str):
        env = {**os.environ, "CI": ci, "CHROMIUM": str(tmp_path / "none")}
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
        cmd += [str(test), "--rootdir", str(tmp_path), "-c", "/dev/null", *extra]
        return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path)

    proc = run_pytest("true")
    assert proc.returncode == 1 and "CI=true: a missing browser is a failure" in proc.stdout, (
        proc.stdout + proc.stderr
    )
    proc = run_pytest("", "-rs")
    assert proc.returncode == 0 and "NO CHROMIUM" in proc.stdout, proc.stdout + proc.stderr
