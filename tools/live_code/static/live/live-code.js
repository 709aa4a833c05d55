/* "Live code" switch: run this page's code cells on a Jupyter kernel with thebe.
 *
 * Nothing is fetched until the switch is turned on.  Then:
 *   1. <root>/_live/server.json (served by `python3 dev.py live`) gives a local Jupyter
 *      server's URL and token; without it, Binder is used if the page was built with a
 *      repository URL; otherwise the switch explains how to start a local server;
 *   2. thebe (vendored in _static/live/thebe) is loaded, every code cell becomes an
 *      editable cell with an output area (also cells whose static output was removed),
 *   3. a kernel starts and the cells run in order; widgets are live.
 * Turning the switch off shuts the kernel down and reloads the static page.
 */
(function () {
  "use strict";
  const here = document.currentScript ? document.currentScript.src : "";
  const staticRoot = new URL("..", here || window.location.href).href;  // .../_static/
  const contentRoot = new URL("..", staticRoot).href;  // the book's root
  const live = { state: "off", timings: {}, errors: [] };
  window.dmiLive = live;

  function el(sel, root) { return (root || document).querySelector(sel); }
  function setState(state, text) {
    live.state = state;
    const box = el(".dmi-live");
    if (!box) return;
    box.setAttribute("data-dmi-live-state", state);
    const sw = el(".dmi-live-switch", box);
    sw.setAttribute("aria-checked", state === "off" || state === "unavailable" ? "false" : "true");
    el(".dmi-live-status", box).textContent = text || "";
  }
  function mark(name) { live.timings[name] = Math.round(performance.now()); }

  function loadScript(src) {
    return new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = src;
      s.onload = resolve;
      s.onerror = () => reject(new Error("could not load " + src));
      document.head.appendChild(s);
    });
  }
  function loadCss(href) {
    const l = document.createElement("link");
    l.rel = "stylesheet";
    l.href = href;
    document.head.appendChild(l);
  }

  async function localServer() {
    try {
      const r = await fetch(contentRoot + "_live/server.json", { cache: "no-store" });
      if (!r.ok) return null;
      const s = await r.json();
      return s && s.baseUrl ? s : null;
    } catch (e) {
      return null;  // e.g. a page opened from the file system
    }
  }

  /* Mark each code cell's source and give each exactly one output placeholder:
   * thebe pairs sources and outputs by their order on the page. */
  function prepareCells() {
    const cells = [];
    document.querySelectorAll("article div.cell").forEach((cell) => {
      const pre = cell.querySelector(".cell_input pre");
      if (!pre) return;  // no source on the page (remove-input): cannot run it
      pre.setAttribute("data-dmi-live-source", "");
      pre.setAttribute("data-executable", "true");
      pre.setAttribute("data-language", "python");
      let out = cell.querySelector(".cell_output");
      if (!out) {
        out = document.createElement("div");
        out.className = "cell_output docutils container dmi-live-output";
        cell.appendChild(out);
      }
      out.setAttribute("data-dmi-live-output", "");
      cell.classList.add("dmi-live-cell");
      cell.querySelectorAll("button.copybtn").forEach((b) => b.remove());
      cells.push(cell);
    });
    return cells;
  }

  async function turnOn() {
    if (live.state !== "off" && live.state !== "unavailable") return;
    live.errors = [];
    mark("switchOn");
    setState("connecting", "looking for a Jupyter server…");
    const cfg = JSON.parse(el("#dmi-live-config").textContent);
    const local = await localServer();
    let server;
    if (local) {
      server = { useBinder: false, serverSettings: {
        baseUrl: local.baseUrl, wsUrl: local.wsUrl, token: local.token, appendToken: true } };
      live.server = "local:" + local.baseUrl;
    } else if (cfg.binder) {
      server = { useBinder: true, binderOptions: cfg.binder };
      live.server = "binder:" + cfg.binder.binderUrl;
    } else {
      setState("unavailable",
        "No Jupyter server: run `python3 dev.py live` in the book's repository, " +
        "then open the page it prints.");
      return;
    }
    setState("loading", "loading the live-code scripts…");
    // thebe's MathJax 2 typesetter and the widget labels call MathJax.Hub: a small shim
    // maps it onto the page's MathJax 3 (no MathJax is loaded from elsewhere).
    await loadScript(staticRoot + "live/mathjax2-shim.js");
    loadCss(staticRoot + "live/thebe/lib/thebe.css");
    // thebe's widget manager fetches require.js from a CDN address before it builds the
    // first widget (and waits for it forever if that fails): serve the vendored copy.
    if (!window.fetch.dmiLive) {
      const fetch0 = window.fetch.bind(window);
      window.fetch = Object.assign((input, init) => {
        const url = typeof input === "string" ? input : (input && input.url) || "";
        if (/\/ajax\/libs\/require\.js\/[0-9.]+\/require(\.min)?\.js$/.test(url)) {
          return fetch0(staticRoot + "live/requirejs/require.js", init);
        }
        return fetch0(input, init);
      }, { dmiLive: true });
    }
    if (!window.thebe || !window.thebe.bootstrap) await loadScript(staticRoot + cfg.thebe);
    mark("thebeLoaded");
    const cells = prepareCells();
    window.thebe.on("status", (evt, data) => {
      if (data && data.status && live.state === "connecting") {
        el(".dmi-live-status").textContent = "kernel: " + data.status;
      }
      if (data && data.status === "server-ready") mark("serverReady");
    });
    setState("connecting", (local ? "starting a kernel on " + local.baseUrl
                                  : "starting a kernel on Binder (this can take minutes)…"));
    let result;
    try {
      result = await window.thebe.bootstrap(Object.assign({
        requestKernel: true,
        selector: "[data-dmi-live-source]",
        outputSelector: "[data-dmi-live-output]",
        mountActivateWidget: false,
        mountStatusWidget: false,
        mountRunAllButton: false,
        mountRestartButton: false,
        mountRestartAllButton: true,
        mathjaxUrl: staticRoot + "live/mathjax2-shim.js",
        codeMirrorConfig: { theme: "default", mode: "python", lineNumbers: false },
        kernelOptions: { kernelName: cfg.kernelName, name: cfg.kernelName, path: cfg.path },
      }, server));
    } catch (e) {
      live.errors.push(String(e));
      setState("error", "could not start a kernel: " + e);
      return;
    }
    if (!result || !result.session) {
      setState("error", "could not start a kernel (see the browser console)");
      return;
    }
    mark("kernelReady");
    live.session = result.session;
    const nb = result.notebook;
    const n = nb.cells.length;
    for (let i = 0; i < n; i++) {
      setState("running", `running cell ${i + 1} of ${n}…`);
      const cell = nb.cells[i];
      const r = await cell.execute(cell.source);
      if (!r || r.error) {
        live.errors.push("cell " + (i + 1));
        setState("error", `cell ${i + 1} of ${n} raised an error (shown below it); ` +
                 "the later cells did not run");
        cells[i] && cells[i].scrollIntoView({ block: "center" });
        return;
      }
    }
    mark("cellsDone");
    setState("ready", `live: ${n} cells ran` + (local ? " on your local Jupyter server" : " on Binder") +
             "; edit a cell and press Shift+Enter to run it");
  }

  async function turnOff() {
    setState("off", "stopping the kernel…");
    try {
      if (live.session) await live.session.shutdown();
    } catch (e) { /* the page reloads anyway */ }
    window.location.reload();
  }

  function toggle() {
    return live.state === "off" || live.state === "unavailable" ? turnOn() : turnOff();
  }
  live.toggle = toggle;

  function init() {
    const sw = el(".dmi-live-switch");
    if (!sw) return;
    sw.addEventListener("click", () => { toggle(); });
    // sphinx-book-theme's launch menu ("Live Code") calls initThebeSBT().
    window.initThebeSBT = () => { if (live.state === "off") toggle(); };
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
