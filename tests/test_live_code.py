"""The live-code machinery without a browser: vendoring, page configuration, local server.

The server's defences are attacked in ``test_live_security.py``; the browser run itself
(a kernel, a slider, a figure that changes) is ``tests/test_browser_live.py`` (through
``scripts/check_live.py``'s checks).
"""

from __future__ import annotations

import ast
import io
import json
import re
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import live_server  # noqa: E402
import vendor_js  # noqa: E402
from live_code import binder_settings, page_config, switch_html  # noqa: E402
from sphinx.errors import ExtensionError  # noqa: E402


def make_tarball(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


PKG = {
    "package/package.json": json.dumps({"name": "demo", "version": "1.2.3"}).encode(),
    "package/lib/index.js": b"console.log('index');",
    "package/lib/12.index.js": b"console.log('chunk');",
    "package/lib/index.js.map": b"{}",
    "package/lib/types/x.js": b"",
    "package/src/index.ts": b"",
}


@pytest.fixture
def demo():
    data = make_tarball(PKG)
    pin = vendor_js.Pin(
        name="demo",
        version="1.2.3",
        integrity=vendor_js.integrity_of(data),
        files=("package.json", "lib/*.js"),
        dest="demo",
    )
    return data, pin


def test_integrity_matches_npm_format():
    # npm's dist.integrity is "sha512-" + base64 of the SHA-512 digest (88 characters)
    assert vendor_js.integrity_of(b"") == (
        "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlO"
        "DJ6+SfaPg=="
    )


def test_verify_rejects_a_tampered_tarball(demo):
    data, pin = demo
    vendor_js.verify(data, pin)
    tampered = bytearray(data)
    tampered[len(tampered) // 2] ^= 0x01
    with pytest.raises(vendor_js.IntegrityError, match="does not match the pinned"):
        vendor_js.verify(bytes(tampered), pin)
    with pytest.raises(vendor_js.IntegrityError):
        vendor_js.extract(bytes(tampered), pin, Path("/nonexistent"))


def test_verify_needs_sha512(demo):
    data, pin = demo
    sha1_pin = vendor_js.Pin("demo", "1.2.3", "sha1-AAAA", pin.files, "demo")
    with pytest.raises(ValueError, match="sha512"):
        vendor_js.verify(data, sha1_pin)


def test_extract_ships_only_the_listed_files(demo, tmp_path):
    data, pin = demo
    written = vendor_js.extract(data, pin, tmp_path)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in written) == [
        "lib/12.index.js",
        "lib/index.js",
        "package.json",
    ]
    assert (tmp_path / "lib/index.js").read_bytes() == PKG["package/lib/index.js"]


def test_extract_rejects_another_package_or_path_escapes(tmp_path):
    other = make_tarball({"package/package.json": b'{"name": "demo", "version": "9.9.9"}'})
    pin = vendor_js.Pin("demo", "1.2.3", vendor_js.integrity_of(other), ("package.json",), "d")
    with pytest.raises(vendor_js.IntegrityError, match="expected demo@1.2.3"):
        vendor_js.extract(other, pin, tmp_path / "a")
    escape = make_tarball({"package/../../evil.js": b"x", **PKG})
    pin = vendor_js.Pin("demo", "1.2.3", vendor_js.integrity_of(escape), ("lib/*.js",), "d")
    with pytest.raises(vendor_js.IntegrityError, match="unexpected member"):
        vendor_js.extract(escape, pin, tmp_path / "b")
    assert not (tmp_path.parent / "evil.js").exists()


def test_fetch_verifies_before_caching(demo, tmp_path, monkeypatch):
    data, pin = demo
    monkeypatch.setenv("DMI_BOOK_VENDOR_CACHE", str(tmp_path / "cache"))
    calls = []
    served = {"data": data}

    def fake_npm(p):
        calls.append(p.name)
        return served["data"]

    monkeypatch.setattr(vendor_js, "_fetch_with_npm", fake_npm)
    assert vendor_js.fetch(pin) == data
    assert vendor_js.fetch(pin) == data  # second time from the cache
    assert calls == ["demo"]
    cached = tmp_path / "cache" / pin.tarball_name
    cached.write_bytes(b"damaged")  # a damaged cache entry is fetched again
    assert vendor_js.fetch(pin) == data and calls == ["demo", "demo"]
    # a registry answer that does not match the pin is refused and not cached
    cached.unlink()
    served["data"] = data[:-1] + bytes([data[-1] ^ 1])
    with pytest.raises(vendor_js.IntegrityError):
        vendor_js.fetch(pin)
    assert not cached.exists()


def test_http_fallback_needs_a_configured_registry(demo, monkeypatch, tmp_path):
    _, pin = demo
    monkeypatch.setattr(vendor_js.shutil, "which", lambda name: None)
    for key in ("NPM_CONFIG_REGISTRY", "npm_config_registry"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.npmrc
    monkeypatch.setenv("DMI_BOOK_VENDOR_CACHE", str(tmp_path / "cache"))
    with pytest.raises(RuntimeError, match="NPM_CONFIG_REGISTRY"):
        vendor_js.fetch(pin)


def test_vendor_reuses_a_stamped_folder(demo, tmp_path, monkeypatch):
    data, pin = demo
    calls = []
    monkeypatch.setattr(vendor_js, "fetch", lambda p: calls.append(p) or data)
    folder = vendor_js.vendor(tmp_path, (pin,))["demo"]
    assert (folder / "lib/index.js").exists() and len(calls) == 1
    vendor_js.vendor(tmp_path, (pin,))
    assert len(calls) == 1
    (folder / ".integrity").write_text("sha512-other")  # another pin: vendored afresh
    vendor_js.vendor(tmp_path, (pin,))
    assert len(calls) == 2


def test_pins_are_exact_and_cover_what_the_pages_load():
    names = {p.name: p for p in vendor_js.PINS}
    assert set(names) == {"thebe", "requirejs"}
    for pin in vendor_js.PINS:
        assert re.fullmatch(r"\d+\.\d+\.\d+", pin.version), pin
        assert re.fullmatch(r"sha512-[A-Za-z0-9+/]{86}==", pin.integrity), pin
    js = (ROOT / "tools/live_code/static/live/live-code.js").read_text()
    assert "live/requirejs/require.js" in js and "require.js" in names["requirejs"].files
    assert "lib/*.js" in names["thebe"].files and "lib/thebe.css" in names["thebe"].files
    assert "live/thebe/lib/thebe.css" in js
    assert page_config("book/x.ipynb", "python3", None)["thebe"] == "live/thebe/lib/index.js"


def test_binder_settings():
    assert binder_settings({}) is None
    opts = {
        "repository_url": "https://github.com/owner/repo.git",
        "repository_branch": "dev",
        "launch_buttons": {"binderhub_url": "https://binder.example/"},
    }
    assert binder_settings(opts) == {
        "repo": "owner/repo",
        "ref": "dev",
        "binderUrl": "https://binder.example",
        "repoProvider": "github",
    }
    assert binder_settings({**opts, "repository_branch": ""})["ref"] == "main"
    assert binder_settings({**opts, "launch_buttons": {}}) is None
    for bad in ("https://gitlab.com/owner/repo", "https://github.com/owner"):
        with pytest.raises(ExtensionError, match="repository.url"):
            binder_settings({**opts, "repository_url": bad})


def test_switch_html_carries_safe_json():
    cfg = page_config("book/06_x.ipynb", "python3", None)
    cfg["path"] = "book/</script><b>.ipynb"
    html = switch_html(cfg)
    assert 'role="switch"' in html and 'aria-checked="false"' in html
    body = re.search(r'id="dmi-live-config">(.*?)</script>', html, re.S).group(1)
    assert json.loads(body)["path"] == "book/</script><b>.ipynb"
    assert "python3 dev.py live" in html


def test_live_server_command_line():
    cmd = live_server.jupyter_command("python", Path("/repo"), 9000)
    assert "--ServerApp.ip=127.0.0.1" in cmd and "--ServerApp.port=9000" in cmd
    assert not any("token" in c.lower() for c in cmd)  # passed in JUPYTER_TOKEN instead
    # traitlets reads a dict option as a Python literal (JSON's false is rejected)
    ext = next(c for c in cmd if c.startswith("--ServerApp.jpserver_extensions="))
    extensions = ast.literal_eval(ext.split("=", 1)[1])
    assert extensions["jupyterlab"] is False and extensions["live_server"] is True


def test_login_url_carries_the_token_once():
    url = live_server.login_url(8123, "/book/06 x.html", "abc")
    assert url == "http://127.0.0.1:8123/book/book/06%20x.html?token=abc"


def test_thebe_loader_url_is_local_and_written_once():
    from sphinx.builders.html._assets import _JavaScript

    import live_code

    body = (
        'const THEBE_JS_URL = "https://unpkg.com/thebe@0.8.2/lib/index.js"; '
        'const thebe_selector = ".thebe,.cell"'
    )
    context = {
        "js_tag": lambda js: (
            f"<script>{js.attributes.get('body', '')}</script>"
            if not js.filename
            else f"<script src={js.filename}>"
        )
    }
    live_code._local_thebe_url(None, "page", "page.html", context, None)
    tags = [
        context["js_tag"](js)
        for js in (_JavaScript(None, body=body), _JavaScript("", body=body), _JavaScript("a.js"))
    ]
    assert tags[1] == "" and tags[2] == "<script src=a.js>"
    assert "unpkg" not in tags[0] and '"_static/live/thebe/lib/index.js"' in tags[0]
    assert 'const thebe_selector = ".thebe,.cell"' in tags[0]
