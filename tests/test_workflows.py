"""The GitHub Actions workflows: actionlint finds nothing, and they run what the README says."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.y*ml"))
ACTIONLINT = shutil.which("actionlint") or str(
    Path(__import__("sys").executable).parent / "actionlint"
)


def _actionlint(*paths) -> subprocess.CompletedProcess:
    if not Path(ACTIONLINT).exists():
        pytest.fail("actionlint is not installed (the test extra of pyproject.toml has it)")
    return subprocess.run(
        [ACTIONLINT, "-no-color", "-shellcheck=", "-pyflakes=", *map(str, paths)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )


def test_there_are_workflows():
    assert WORKFLOWS, "no workflow in .github/workflows"


def test_actionlint_finds_nothing():
    proc = _actionlint(*WORKFLOWS)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_actionlint_catches_a_broken_workflow(tmp_path):
    # the check above can fail: a job that needs a job that does not exist
    bad = tmp_path / ".github" / "workflows" / "bad.yml"
    bad.parent.mkdir(parents=True)
    bad.write_text(
        "on: push\njobs:\n  a:\n    needs: nope\n    runs-on: ubuntu-latest\n"
        "    steps:\n      - run: echo ${{ github.nosuchthing }}\n"
    )
    proc = _actionlint(bad)
    assert proc.returncode != 0 and "nope" in proc.stdout


def test_workflow_runs_the_readme_commands_and_publishes():
    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "book.yml").read_text())
    readme = (ROOT / "README.md").read_text()
    steps = {
        name: [s.get("run", "") or s.get("uses", "") for s in job["steps"]]
        for name, job in wf["jobs"].items()
    }
    assert "python3 dev.py test" in steps["test"] and "python3 dev.py test" in readme
    assert "python3 dev.py book" in steps["book"]
    assert any(s.startswith("actions/upload-pages-artifact@") for s in steps["book"])
    assert any(s.startswith("actions/deploy-pages@") for s in steps["deploy"])
    assert (
        wf["jobs"]["book"]["env"]["DMI_BOOK_REPO_URL"]
        == "${{ github.server_url }}/${{ github.repository }}"
    )
    assert "refs/heads/main" in wf["jobs"]["book"]["if"]
    assert wf["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}


def test_release_workflow_builds_checks_and_publishes_with_trusted_publishing():
    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text())
    # PyYAML reads the key `on` as True
    assert wf[True] == {"push": {"tags": ["v*"]}}, "releases only on a version tag"
    assert wf["permissions"] == {"contents": "read"}
    build, publish = wf["jobs"]["build"], wf["jobs"]["publish"]
    runs = [s.get("run", "") for s in build["steps"]]
    assert any(r.startswith("python3 -m build") for r in runs)
    assert any(r.startswith("python3 -m twine check") for r in runs)
    assert any("-c requirements-lock.txt" in r and "build" in r and "twine" in r for r in runs)
    assert any("GITHUB_REF_NAME" in r for r in runs), "the tag must be the built version"
    assert publish["needs"] == "build"
    assert publish["permissions"] == {"id-token": "write"}  # trusted publishing only
    uses = [s.get("uses", "") for s in publish["steps"]]
    assert any(u.startswith("pypa/gh-action-pypi-publish@") for u in uses)
    text = (ROOT / ".github" / "workflows" / "release.yml").read_text()
    assert "secrets." not in text and "password" not in text, "no stored credentials"


def _workflow() -> dict:
    return yaml.safe_load((ROOT / ".github" / "workflows" / "book.yml").read_text())


def test_workflow_lints_tests_with_a_browser_builds_and_checks_offline():
    wf = _workflow()
    runs = [s.get("run", "") for job in wf["jobs"].values() for s in job["steps"]]
    assert runs.index("python3 dev.py lint") < runs.index("python3 dev.py test")
    assert runs.index("python3 dev.py test") < runs.index("python3 dev.py book")
    assert runs.index("python3 dev.py book") < runs.index(
        ".venv/bin/python scripts/check_offline.py _build/html"
    )
    # CI=true: a missing browser fails the browser tests instead of skipping them
    assert wf["env"]["CI"] == "true"
    # a deploy is never cancelled half-way
    assert wf["concurrency"]["cancel-in-progress"] is False
    assert wf["jobs"]["deploy"]["concurrency"]["cancel-in-progress"] is False
    # pip's cache, keyed on the lock
    for job in ("test", "book"):
        setup = [s for s in wf["jobs"][job]["steps"] if "setup-python" in s.get("uses", "")]
        assert setup and setup[0]["with"]["cache"] == "pip"
        assert setup[0]["with"]["cache-dependency-path"] == "requirements-lock.txt"


def test_the_book_job_publishes_the_branch_the_launch_buttons_open():
    """The launch buttons open ``repository.branch`` of _config.yml; the book job writes
    that branch from the build it deploys (and may push it)."""
    import yaml

    branch = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["branch"]
    job = _workflow()["jobs"]["book"]
    runs = [s.get("run", "") for s in job["steps"]]
    publish = [r for r in runs if "tools/publish_notebooks.py" in r]
    assert len(publish) == 1
    assert f"--branch {branch}\n" in publish[0]
    assert f"git push --force origin {branch}" in publish[0]
    assert runs.index("python3 dev.py book") < runs.index(publish[0])
    assert job["permissions"]["contents"] == "write"


def test_ci_runs_the_workflows_own_steps():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python3 dev.py setup" in ci
    assert "scripts/run_workflow.py .github/workflows/book.yml" in ci
    import run_workflow  # scripts/ is on sys.path (conftest.py)

    steps = run_workflow.plan(_workflow(), {})
    runs = [s["run"] for s in steps if "run" in s]
    assert runs == [
        "python3 dev.py lint",
        "python3 dev.py test",
        "python3 dev.py book",
        ".venv/bin/python scripts/check_offline.py _build/html",
        ".venv/bin/python tools/publish_notebooks.py _build/html --branch notebooks\n"
        'if [ "${GITHUB_ACTIONS:-}" = "true" ]; then git push --force origin notebooks; fi\n',
    ]
    skipped = [s["uses"].split("@")[0] for s in steps if "uses" in s]
    assert "actions/upload-pages-artifact" in skipped and "actions/deploy-pages" in skipped
    assert all(s["env"]["CI"] == "true" for s in steps)


def test_runner_uses_env_order_and_stops_at_a_failing_step(tmp_path):
    wf = tmp_path / "wf.yml"
    wf.write_text(
        "on: push\nenv:\n  A: from-workflow\n  URL: ${{ github.server_url }}/x\n"
        "jobs:\n"
        "  second:\n    needs: first\n    runs-on: ubuntu-latest\n    env:\n      B: job\n"
        "    steps:\n"
        '      - run: echo "second $A $B $CI ${URL:-unset}" >> log.txt\n'
        "      - run: exit 3\n"
        "      - run: echo never >> log.txt\n"
        "  first:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - uses: actions/checkout@v4\n"
        "      - run: echo first >> log.txt\n"
    )
    proc = subprocess.run(
        [
            __import__("sys").executable,
            str(ROOT / "scripts" / "run_workflow.py"),
            str(wf),
            "--root",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        env={
            k: v
            for k, v in __import__("os").environ.items()
            if k not in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY")
        },
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert (tmp_path / "log.txt").read_text().splitlines() == [
        "first",
        "second from-workflow job true unset",
    ]
    assert "FAILED (exit 3)" in proc.stdout and "skipped here: uses actions/checkout" in proc.stdout
