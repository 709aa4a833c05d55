"""Repository hygiene: pins agree, every chapter is in the TOC, no committed outputs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text().splitlines():
        line = line.strip().lstrip("- ").strip()
        m = re.fullmatch(r"([A-Za-z0-9_.\-\[\]]+)==([^\s;#]+)", line)
        if m:
            pins[m.group(1).lower()] = m.group(2)
    return pins


def test_environment_yml_matches_requirements():
    req = {**_pins(ROOT / "requirements.txt"), **_pins(ROOT / "requirements-dev.txt")}
    env = _pins(ROOT / "environment.yml")
    assert req, "no pins found in requirements files"
    assert env == req


def test_lock_agrees_with_top_level_pins():
    req = {**_pins(ROOT / "requirements.txt"), **_pins(ROOT / "requirements-dev.txt")}
    lock = _pins(ROOT / "requirements-lock.txt")
    mismatched = {k: (v, lock.get(k)) for k, v in req.items() if lock.get(k) != v}
    assert not mismatched


def test_pyproject_ranges_admit_pins():
    from packaging.requirements import Requirement

    import tomllib

    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pins = _pins(ROOT / "requirements.txt")
    assert {Requirement(d).name.lower() for d in deps} == set(pins)
    for d in deps:
        r = Requirement(d)
        assert r.specifier.contains(pins[r.name.lower()]), (d, pins[r.name.lower()])


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
