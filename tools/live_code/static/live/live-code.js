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
 *   3. a kernel of the page's own starts and runs the page's first widget with the cells
 *      it needs (the build lists them: tools/live_code/deps.py); other widgets run as
 *      they come into view, any cell when the reader runs it, all on `dmiLive.runAll()`;
 *      "restart & run all" restarts the kernel and runs every cell again.
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
    // What runs: the build lists, for each cell, the earlier cells it needs (the names it
    // shares with them, tools/live_code/deps.py).  Switching on runs the first widget and
    // what it needs; every other widget runs (with what it needs) when it scrolls into
    // view, any cell when the reader runs it (Shift+Enter), and every cell not run yet,
    // in page order, on dmiLive.runAll().  Each cell runs once, in an order that keeps
    // the notebook's order among cells sharing a name, so results are the notebook's.
    // If the page's cells do not match the build's list, cells run in page order.
    const deps = (cfg.cells || []).length === n ? cfg.cells : null;
    const original = nb.cells.map((cell) => cell.source);
    const execute = nb.cells.map((cell) => cell.execute.bind(cell));
    const queued = new Array(n).fill(false);
    const ran = new Set();
    let chain = Promise.resolve();
    live.mode = deps ? "dependencies" : "page order";
    live.total = n;
    live.ran = 0;  // how many cells ran
    live.widgets = deps ? deps.map((d, i) => (d.widget ? i : -1)).filter((i) => i >= 0) : [];
    function status() {
      return live.ran >= n
        ? `live ${where}: all ${n} cells ran; edit a cell and press Shift+Enter to run it`
        : `live ${where}: ${live.ran} of ${n} cells ran (those the sliders need); ` +
          "press Shift+Enter in a cell to run it with the cells it needs";
    }
    function runCell(i, source) {
      queued[i] = true;
      chain = chain.then(async () => {
        if (live.state === "error" || live.state === "off") return;
        setState("running", `running cell ${i + 1} of ${n}…`);
        const r = await execute[i](source === undefined ? original[i] : source);
        if (!r || r.error) {
          live.errors.push("cell " + (i + 1));
          setState("error", `cell ${i + 1} of ${n} raised an error (shown below it); ` +
                   "the cells after it did not run");
          cells[i] && cells[i].scrollIntoView({ block: "center" });
          return;
        }
        ran.add(i);
        live.ran = ran.size;
        if (live.ran >= n && !live.timings.cellsDone) mark("cellsDone");
        setState("ready", status());
      });
      return chain;
    }
    function run(i, source) {  // cell i after the cells it needs that have not run
      const edited = source !== undefined && source !== original[i];
      const before = deps && !edited ? deps[i].needs : [...Array(i).keys()];
      before.forEach((j) => { if (!queued[j]) runCell(j); });
      if (!queued[i] || source !== undefined) runCell(i, source);
      return chain;
    }
    live.runAll = () => { for (let i = 0; i < n; i++) if (!queued[i]) runCell(i); return chain; };
    // thebe's "restart & run all" button calls the notebook's executeAll, which (thebe
    // 0.9) neither restarts the kernel nor reruns a cell that ran here: restart it,
    // forget what ran, and run every cell in page order, as the reader edited it.
    live.restarts = 0;
    nb.executeAll = async () => {
      await chain;
      setState("running", "restarting the kernel…");
      await nb.session.kernel.restart();
      live.restarts += 1;
      queued.fill(false);
      ran.clear();
      live.ran = 0;
      nb.cells.forEach((cell, i) => runCell(i, cell.source));
      return chain;
    };
    nb.cells.forEach((cell, i) => {
      cell.execute = (source) => run(i, source);  // thebe's Shift+Enter calls this
    });
    const observer = new IntersectionObserver((entries) => {
      entries.forEach((e) => { if (e.isIntersecting) run(cells.indexOf(e.target)); });
    }, { rootMargin: "0px 0px 50% 0px" });  // start a little before a cell is in view
    if (deps) live.widgets.forEach((i) => observer.observe(cells[i]));
    else cells.forEach((cell) => observer.observe(cell));
    live.observer = observer;
    if (deps && live.widgets.length) {
      await run(live.widgets[0]);
      live.firstWidget = { cell: live.widgets[0], needs: deps[live.widgets[0]].needs.length,
                           ranBefore: live.ran };
      mark("firstWidgetRan");
    } else if (!deps) {
      const first = cells.findIndex((c) => c.getBoundingClientRect().top > window.innerHeight * 1.5);
      for (let i = 0; i < (first < 0 ? n : Math.max(first, 1)); i++) if (!queued[i]) runCell(i);
      await chain;
    }
    if (live.state === "running" || live.state === "connecting") setState("ready", status());
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
