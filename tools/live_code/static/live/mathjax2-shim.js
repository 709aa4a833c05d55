/* The MathJax 2 calls that thebe's renderers and the ipywidgets labels make
 * (MathJax.Hub.Queue(["Typeset", MathJax.Hub, el]), Hub.Config, ...) mapped onto the
 * page's own MathJax 3, so that live outputs typeset maths without loading MathJax 2
 * from another server.  Idempotent: thebe loads it again as its "mathjaxUrl". */
(function () {
  "use strict";
  const MJ = window.MathJax || (window.MathJax = {});
  if (MJ.Hub && MJ.Hub.__dmiShim) {
    return;
  }
  function typeset(el) {
    if (typeof MJ.typesetPromise === "function") {
      return MJ.typesetPromise(el ? [el] : undefined).catch((e) => console.warn(e));
    }
    return Promise.resolve();
  }
  function run(item) {
    if (typeof item === "function") return item();
    if (Array.isArray(item) && item[0] === "Typeset") return typeset(item[2]);
    return undefined;  // "Require" and other MathJax 2 commands have no MathJax 3 meaning
  }
  MJ.Hub = {
    __dmiShim: true,
    config: {},
    Config: function () {},
    Configured: function () {},
    Register: { StartupHook: function () {} },
    Queue: function () {
      let p = Promise.resolve();
      Array.prototype.forEach.call(arguments, (item) => { p = p.then(() => run(item)); });
      return p;
    },
  };
  MJ.Ajax = MJ.Ajax || {};
  MJ.InputJax = MJ.InputJax || { TeX: { resetEquationNumbers: function () {} } };
})();
