#!/usr/bin/env python3
"""Drop the repeated type word from sphinx-proof block titles in the chapters.

sphinx-proof prints the block type itself ("Theorem") before the title, so a title
written as "Theorem 2.2 (DMI-clustering)" would read "Theorem Theorem 2.2 ...".
With ``proof_title_format: " %t"`` in _config.yml the title should start with the
number: ``{prf:theorem} 2.2 (DMI-clustering)``.  This script rewrites the notebooks
in place; tests/test_repo.py checks that no title repeats its type word.
"""

import re
import sys
from pathlib import Path

PATTERN = re.compile(r"^(?P<fence>[`:]{3,})\{prf:(?P<type>\w+)\}\s+(?P<word>\w+)\s+(?P<rest>.*)$")


def fix_line(line: str) -> str:
    m = PATTERN.match(line)
    if m and m.group("word").lower() == m.group("type").lower():
        return f"{m.group('fence')}{{prf:{m.group('type')}}} {m.group('rest')}"
    return line


def main(paths) -> int:
    import nbformat

    changed = 0
    for path in map(Path, paths):
        nb = nbformat.read(path, as_version=4)
        dirty = False
        for cell in nb["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            src = cell["source"]
            new = "\n".join(fix_line(line) for line in src.split("\n"))
            if new != src:
                cell["source"] = new
                dirty = True
        if dirty:
            nbformat.write(nb, path)
            changed += 1
    print(f"rewrote {changed} notebook(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or sorted(Path("book").glob("*.ipynb"))))
