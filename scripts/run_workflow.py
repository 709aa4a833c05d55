#!/usr/bin/env python3
"""Run a GitHub Actions workflow's own ``run:`` steps here, in order (local CI).

    python scripts/run_workflow.py .github/workflows/book.yml            # run it
    python scripts/run_workflow.py .github/workflows/book.yml --dry-run  # the plan only

``.ci/run`` uses this, so local CI and the published workflow cannot drift: the jobs run
in the order of their ``needs:`` (then file order), and each job's steps in order.  A
``run:`` step runs as GitHub runs it on Linux (``bash --noprofile --norc -eo pipefail``)
in the repository's root, with the workflow's, the job's and the step's ``env:`` and
``CI=true``; the first step that fails stops the run (exit code 1).  ``uses:`` steps
(checkout, setup-python, the Pages upload and deploy) cannot run here: they are skipped
and listed.  Jobs' ``if:`` conditions are not evaluated (every job runs; the condition is
shown).  In ``env:`` values, ``${{ github.server_url }}`` and ``${{ github.repository }}``
come from ``$GITHUB_SERVER_URL``/``$GITHUB_REPOSITORY`` or the ``origin`` remote when it
is a GitHub URL; a value with any other expression, or one that cannot be resolved, is
left out (and said so).  Needs PyYAML (in the project's venv).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
SHELL = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c"]
EXPR = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


def github_context(root: Path = ROOT) -> dict[str, str]:
    """The ``github.*`` values known here: from the environment or the origin remote."""
    ctx = {}
    if os.environ.get("GITHUB_SERVER_URL"):
        ctx["github.server_url"] = os.environ["GITHUB_SERVER_URL"]
    if os.environ.get("GITHUB_REPOSITORY"):
        ctx["github.repository"] = os.environ["GITHUB_REPOSITORY"]
    if len(ctx) < 2:
        proc = subprocess.run(
            ["git", "remote", "get-url", "origin"], cwd=root, capture_output=True, text=True
        )
        m = re.match(
            r"(?:https://github\.com/|git@github\.com:)([\w.-]+/[\w.-]+?)(?:\.git)?$",
            proc.stdout.strip(),
        )
        if proc.returncode == 0 and m:
            ctx.setdefault("github.server_url", "https://github.com")
            ctx.setdefault("github.repository", m.group(1))
    return ctx


def resolve_env(env: dict | None, ctx: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """``env:`` with its expressions filled from ``ctx``; and the names left out."""
    out, dropped = {}, []
    for name, value in (env or {}).items():
        value = str(value)
        exprs = EXPR.findall(value)
        if all(e in ctx for e in exprs):
            out[name] = EXPR.sub(lambda m: ctx[m.group(1)], value)
        else:
            dropped.append(f"{name}={value}")
    return out, dropped


def job_order(jobs: dict) -> list[str]:
    """Job names in an order that respects ``needs:`` (file order otherwise)."""
    order: list[str] = []

    def visit(name, path=()):
        if name in order:
            return
        if name in path:
            raise SystemExit(f"jobs need each other in a cycle: {' -> '.join(path + (name,))}")
        if name not in jobs:
            raise SystemExit(f"job {path[-1]!r} needs {name!r}, which is not a job")
        needs = jobs[name].get("needs") or []
        for dep in [needs] if isinstance(needs, str) else needs:
            visit(dep, path + (name,))
        order.append(name)

    for name in jobs:
        visit(name)
    return order


def plan(workflow: dict, ctx: dict[str, str]) -> list[dict]:
    """Every step of every job, in run order: ``{job, name, run | uses, env, skip}``."""
    steps = []
    wf_env, wf_dropped = resolve_env(workflow.get("env"), ctx)
    for job_name in job_order(workflow["jobs"]):
        job = workflow["jobs"][job_name]
        job_env, job_dropped = resolve_env(job.get("env"), ctx)
        for i, step in enumerate(job.get("steps", []), 1):
            step_env, step_dropped = resolve_env(step.get("env"), ctx)
            entry = {
                "job": job_name,
                "if": job.get("if"),
                "name": step.get("name") or step.get("run") or step.get("uses") or f"step {i}",
                "env": {"CI": "true", **wf_env, **job_env, **step_env},
                "dropped": wf_dropped + job_dropped + step_dropped,
            }
            if "run" in step:
                entry["run"] = step["run"]
                entry["cwd"] = step.get(
                    "working-directory",
                    job.get("defaults", {}).get("run", {}).get("working-directory", "."),
                )
            else:
                entry["uses"] = step.get("uses", "?")
            steps.append(entry)
    return steps


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("workflow", type=Path)
    ap.add_argument("--dry-run", action="store_true", help="print the plan, run nothing")
    ap.add_argument("--root", type=Path, default=ROOT, help="where the steps run")
    args = ap.parse_args(argv)
    workflow = yaml.safe_load(args.workflow.read_text())
    steps = plan(workflow, github_context(args.root))
    skipped = [s for s in steps if "uses" in s]
    shown_if, start_all = set(), time.monotonic()
    for s in steps:
        if s["job"] not in shown_if:
            shown_if.add(s["job"])
            cond = f" (on GitHub only if: {s['if']})" if s["if"] else ""
            print(f"\n=== job {s['job']}{cond}", flush=True)
        if "uses" in s:
            print(f"--- skipped here: uses {s['uses']}", flush=True)
            continue
        for d in s["dropped"]:
            print(f"--- note: env {d} cannot be resolved here; left unset", flush=True)
        print(f"--- step: {s['name']}\n+ {s['run'].strip()}", flush=True)
        if args.dry_run:
            continue
        t0 = time.monotonic()
        env = {**os.environ, **s["env"]}
        proc = subprocess.run([*SHELL, s["run"]], cwd=args.root / s["cwd"], env=env)
        took = time.monotonic() - t0
        if proc.returncode != 0:
            print(
                f"--- FAILED (exit {proc.returncode}) after {took:.0f} s: {s['name']}",
                flush=True,
            )
            return 1
        print(f"--- ok after {took:.0f} s: {s['name']}", flush=True)
    done = "planned" if args.dry_run else f"passed in {time.monotonic() - start_all:.0f} s"
    print(
        f"\nall run: steps {done}; skipped (uses:) " + ", ".join(s["uses"] for s in skipped),
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
