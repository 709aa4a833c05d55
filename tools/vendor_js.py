"""Vendor the book's live-code JavaScript from the npm registry, pinned and verified.

The HTML book ships every script it runs: nothing is loaded from another server when a
page is read.  The live-code switch (``tools/live_code``) needs thebe, which is taken
here from its npm package at build time:

* the version and the registry's ``sha512`` integrity are pinned in :data:`PINS`
  (``npm view thebe@0.9.3 dist.integrity`` prints the same value);
* the tarball is fetched with ``npm pack`` when npm is installed, otherwise over HTTP
  from the registry named by ``NPM_CONFIG_REGISTRY`` (or ``registry=`` in ``~/.npmrc``);
* its integrity is checked before anything is unpacked, and a mismatch is an error;
* verified tarballs are cached in ``$DMI_BOOK_VENDOR_CACHE`` (default
  ``~/.cache/dmi-book/npm``), so later builds work offline.

Usage::

    python tools/vendor_js.py DEST      # unpack every pinned package under DEST/
"""

from __future__ import annotations

import base64
import fnmatch
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Pin:
    """One npm package: exact version, registry integrity, files to ship."""

    name: str
    version: str
    integrity: str  # "sha512-<base64>", as in the registry's dist.integrity
    files: tuple[str, ...]  # glob patterns relative to the package root
    dest: str  # folder name under the destination

    @property
    def tarball_name(self) -> str:
        """File name of the tarball, as ``npm pack`` writes it."""
        return f"{self.name.lstrip('@').replace('/', '-')}-{self.version}.tgz"


PINS: tuple[Pin, ...] = (
    # thebe: in-page cells on a Jupyter kernel, with ipywidgets 8 support bundled
    # (@jupyter-widgets/controls 5, jupyterlab-manager 5).  lib/ is a webpack bundle:
    # index.js loads its numbered chunks from its own folder.  Source maps are left out.
    Pin(
        name="thebe",
        version="0.9.3",
        integrity="sha512-Rb/7kVhtlffXra3kIe7OuIGE7awsm2/fGWxw21DiNfnWLnUQiDl9AWqYdshPwZPG/"
        "5DzLpsJRPix2xtCPtJmQQ==",
        files=("package.json", "lib/*.js", "lib/thebe.css", "lib/*.LICENSE.txt"),
        dest="thebe",
    ),
    # require.js: thebe's widget manager loads it before it creates any widget, from a
    # CDN address written into thebe; live-code.js answers that request with this copy.
    Pin(
        name="requirejs",
        version="2.3.8",
        integrity="sha512-7/cTSLOdYkNBNJcDMWf+luFvMriVm7eYxp4BcFCsAX0wF421Vyce5SXP17c+Jd5otXKGNeh"
        "IonFlyQXSowL6Mw==",
        files=("package.json", "require.js"),
        dest="requirejs",
    ),
)


class IntegrityError(RuntimeError):
    """A tarball's content does not match its pinned integrity."""


def integrity_of(data: bytes) -> str:
    """Return the npm-style ``sha512-<base64>`` integrity string of ``data``."""
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")


def verify(data: bytes, pin: Pin) -> None:
    """Raise :class:`IntegrityError` unless ``data`` is the pinned tarball of ``pin``."""
    algo, _, _ = pin.integrity.partition("-")
    if algo != "sha512":
        raise ValueError(
            f"pin {pin.name}@{pin.version}: integrity must be sha512, got {pin.integrity!r}"
        )
    got = integrity_of(data)
    if got != pin.integrity:
        raise IntegrityError(
            f"{pin.name}@{pin.version}: tarball integrity {got} does not match the "
            f"pinned {pin.integrity}; refusing to use it"
        )


def cache_dir() -> Path:
    """Folder of verified tarballs (``$DMI_BOOK_VENDOR_CACHE`` or ``~/.cache/dmi-book/npm``)."""
    env = os.environ.get("DMI_BOOK_VENDOR_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "dmi-book" / "npm"


def _registry_url() -> str | None:
    """The npm registry's base URL from the environment or ``~/.npmrc``, if set there."""
    for key in ("NPM_CONFIG_REGISTRY", "npm_config_registry"):
        if os.environ.get(key):
            return os.environ[key].rstrip("/")
    npmrc = Path.home() / ".npmrc"
    if npmrc.exists():
        for line in npmrc.read_text().splitlines():
            key, sep, value = line.partition("=")
            if sep and key.strip() == "registry" and value.strip():
                return value.strip().rstrip("/")
    return None


def _fetch_with_npm(pin: Pin) -> bytes:
    npm = shutil.which("npm")
    if npm is None:
        raise FileNotFoundError("npm")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [npm, "pack", f"{pin.name}@{pin.version}", "--pack-destination", tmp, "--silent"],
            check=True,
            cwd=tmp,
            stdout=subprocess.DEVNULL,
        )
        return (Path(tmp) / pin.tarball_name).read_bytes()


def _fetch_with_http(pin: Pin) -> bytes:
    registry = _registry_url()
    if registry is None:
        raise RuntimeError(
            f"cannot fetch {pin.name}@{pin.version}: npm is not installed and no registry "
            "is configured; set NPM_CONFIG_REGISTRY to the npm registry's URL"
        )
    basename = pin.name.split("/")[-1]
    url = f"{registry}/{pin.name}/-/{basename}-{pin.version}.tgz"
    with urllib.request.urlopen(url, timeout=60) as resp:  # noqa: S310 (https registry)
        return resp.read()


def fetch(pin: Pin) -> bytes:
    """Return the verified tarball of ``pin``: from the cache, else from the registry."""
    cached = cache_dir() / pin.tarball_name
    if cached.exists():
        data = cached.read_bytes()
        try:
            verify(data, pin)
            return data
        except IntegrityError:
            cached.unlink()  # a stale or damaged cache entry: fetch it again
    try:
        data = _fetch_with_npm(pin)
    except FileNotFoundError:
        data = _fetch_with_http(pin)  # no npm on this machine
    except subprocess.CalledProcessError as err:
        print(
            f"vendor_js: npm pack {pin.name}@{pin.version} failed ({err}); trying the "
            "registry over HTTP",
            file=sys.stderr,
        )
        data = _fetch_with_http(pin)
    verify(data, pin)
    cached.parent.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_suffix(".part")
    tmp.write_bytes(data)
    tmp.replace(cached)
    return data


def extract(data: bytes, pin: Pin, dest: Path) -> list[Path]:
    """Unpack the files of ``pin`` that match ``pin.files`` into ``dest`` (after verifying).

    Returns the written paths.  Members outside the package folder, links and other
    special members are rejected.
    """
    verify(data, pin)
    written = []
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            parts = Path(member.name).parts
            if len(parts) < 2 or parts[0] != "package" or ".." in parts:
                raise IntegrityError(
                    f"unexpected member {member.name!r} in {pin.name}@{pin.version}"
                )
            rel = "/".join(parts[1:])
            if not any(
                fnmatch.fnmatchcase(rel, pat) and rel.count("/") == pat.count("/")
                for pat in pin.files
            ):
                continue
            out = dest / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(tar.extractfile(member).read())
            written.append(out)
    meta = json.loads((dest / "package.json").read_text())
    if (meta.get("name"), meta.get("version")) != (pin.name, pin.version):
        raise IntegrityError(
            f"tarball holds {meta.get('name')}@{meta.get('version')}, "
            f"expected {pin.name}@{pin.version}"
        )
    return written


def vendor(dest: Path, pins: tuple[Pin, ...] = PINS) -> dict[str, Path]:
    """Make ``dest/<pin.dest>/`` hold each pinned package's files; return the folders.

    A folder whose stamp already names the pinned integrity is left as it is.
    """
    out = {}
    for pin in pins:
        folder = Path(dest) / pin.dest
        stamp = folder / ".integrity"
        if not (stamp.exists() and stamp.read_text() == pin.integrity):
            if folder.exists():
                shutil.rmtree(folder)
            folder.mkdir(parents=True)
            extract(fetch(pin), pin, folder)
            stamp.write_text(pin.integrity)
        out[pin.name] = folder
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    for name, folder in vendor(Path(sys.argv[1])).items():
        print(f"{name}: {folder}")
