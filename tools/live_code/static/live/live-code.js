/* "Live code" switch: run this page's code cells on a Jupyter kernel with thebe.
 *
 * Nothing is fetched until the switch is turned on.  Then:
 *   1. <root>/_live/server.json answers when the page is served by `python3 dev.py live`:
 *      one local Jupyter server serves the book and its kernels on the same origin, and
 *      the browser holds its login cookie (the URL it printed logged it in); the page
 *      sends that cookie and the XSRF header, never a token.  Without it, Binder is used
 *      if the page was built with a repository URL; otherwise the switch explains how to
 *      start a local server;
 *   2. thebe (vendored in _static/live/thebe) is loaded, every code cell becomes an
 *      editable cell with an output area (also cells whose static output was removed),
 *   3. a kernel of the page's own starts and the cells run in order, as far as the reader
 *      has scrolled (the rest as they come into view, or `dmiLive.runAll()`); widgets are
 *      live.
 * Turning the switch off shuts the kernel down and reloads the static page.  A tab closed
 * without switching off leaves its kernel idle; the local server shuts it down later.
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
    let r;
    try {
      r = await fetch(contentRoot + "_live/server.json",
                      { cache: "no-store", credentials: "same-origin" });
    } catch (e) {
      return null;  // e.g. a page opened from the file system
    }
    if (!r.ok) return null;
    const s = await r.json();
    if (!s || typeof s.baseUrl !== "string") return null;
    const base = new URL(s.baseUrl, window.location.href);
    return { baseUrl: base.href, wsUrl: base.href.replace(/^http/, "ws") };
  }

  /* One kernel per page: the server keeps one session per path, so each page asks for
   * a path of its own (in the chapter's folder, where the kernel starts). */
  function ownPath(path) {
    const id = Math.random().toString(36).slice(2, 10);
    return path.replace(/(\.ipynb)?$/, "-live-" + id + ".ipynb");
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
        baseUrl: local.baseUrl, wsUrl: local.wsUrl, token: "", appendToken: false } };
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
        kernelOptions: { kernelName: cfg.kernelName, name: cfg.kernelName,
                         path: local ? ownPath(cfg.path) : cfg.path },
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
    const where = local ? "on your local Jupyter server" : "on Binder";
    // Cells run in page order, but only as far as the reader has come: the cells up to
    // the one in view run at once, later ones when they scroll into view, when the reader
    // runs one (Shift+Enter runs every earlier cell first) or when runAll() asks.
    const execute = nb.cells.map((cell) => cell.execute.bind(cell));
    let chain = Promise.resolve();
    live.total = n;
    live.ran = 0;  // cells 1..ran have run
    let queued = 0;  // cells 1..queued are queued (or ran)
    function status() {
      return live.ran >= n
        ? `live ${where}: all ${n} cells ran; edit a cell and press Shift+Enter to run it`
        : `live ${where}: cells 1–${live.ran} of ${n} ran; the others run as you scroll ` +
          "to them (or press Shift+Enter in one)";
    }
    function runCell(i, source) {
      chain = chain.then(async () => {
        if (live.state === "error" || live.state === "off") return;
        setState("running", `running cell ${i + 1} of ${n}…`);
        const r = await execute[i](source === undefined ? nb.cells[i].source : source);
        if (!r || r.error) {
          live.errors.push("cell " + (i + 1));
          setState("error", `cell ${i + 1} of ${n} raised an error (shown below it); ` +
                   "the later cells did not run");
          cells[i] && cells[i].scrollIntoView({ block: "center" });
          return;
        }
        live.ran = Math.max(live.ran, i + 1);
        if (live.ran >= n) mark("cellsDone");
        setState("ready", status());
      });
      return chain;
    }
    function runUpTo(k) {  // queue cells 1..k that are not queued yet
      for (k = Math.min(k, n); queued < k; queued++) runCell(queued);
      return chain;
    }
    live.runAll = () => runUpTo(n);
    nb.cells.forEach((cell, i) => {
      cell.execute = (source) => {  // thebe's Shift+Enter calls this
        runUpTo(i);
        queued = Math.max(queued, i + 1);
        return runCell(i, source);
      };
    });
    const observer = new IntersectionObserver((entries) => {
      entries.forEach((e) => {
        if (e.isIntersecting) runUpTo(cells.indexOf(e.target) + 1);
      });
    }, { rootMargin: "0px 0px 50% 0px" });  // start a little before a cell is in view
    cells.forEach((cell) => observer.observe(cell));
    live.observer = observer;
    const first = cells.findIndex((c) => c.getBoundingClientRect().top > window.innerHeight * 1.5);
    await runUpTo(first < 0 ? n : Math.max(first, 1));
    mark("liveReady");
  }

  async function turnOff() {
    setState("off", "stopping the kernel…");
    if (live.observer) live.observer.disconnect();
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
