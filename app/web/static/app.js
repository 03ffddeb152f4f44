// errkb: small, progressive helpers. Every page works without this file.
// 1. A "Copy" button on each code block. 2. Dropping a log file on the paste form.
(function () {
  "use strict";
  var body = document.body;
  var copyLabel = body.getAttribute("data-copy") || "Copy";
  var copiedLabel = body.getAttribute("data-copied") || "Copied";

  // navigator.clipboard exists only on HTTPS and localhost; plain-HTTP intranet
  // deployments fall back to selecting the text and the older copy command.
  function copyText(node) {
    if (navigator.clipboard) { return navigator.clipboard.writeText(node.innerText); }
    var range = document.createRange();
    range.selectNodeContents(node);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    var done = document.execCommand && document.execCommand("copy");
    selection.removeAllRanges();
    return done ? Promise.resolve() : Promise.reject(new Error("copy refused"));
  }

  function addCopyButtons() {
    document.querySelectorAll(".prose pre, pre.draft").forEach(function (pre) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "copy";
      button.textContent = copyLabel;
      button.addEventListener("click", function () {
        var code = pre.querySelector("code") || pre;
        copyText(code).then(function () {
          button.textContent = copiedLabel;
          setTimeout(function () { button.textContent = copyLabel; }, 1500);
        }, function () { /* nothing copied: the text stays selectable by hand */ });
      });
      pre.classList.add("has-copy");
      pre.appendChild(button);
    });
  }

  function wireDrop() {
    var zone = document.querySelector("[data-drop]");
    var input = document.getElementById("log-file");
    var text = document.querySelector("[data-drop-text]");
    if (!zone || !input) { return; }
    function show() {
      if (input.files && input.files.length && text) { text.textContent = input.files[0].name; }
      zone.classList.toggle("chosen", !!(input.files && input.files.length));
    }
    input.addEventListener("change", show);
    ["dragenter", "dragover"].forEach(function (name) {
      zone.addEventListener(name, function (event) { event.preventDefault(); zone.classList.add("over"); });
    });
    ["dragleave", "drop"].forEach(function (name) {
      zone.addEventListener(name, function () { zone.classList.remove("over"); });
    });
    zone.addEventListener("drop", function (event) {
      event.preventDefault();
      if (event.dataTransfer && event.dataTransfer.files.length) {
        input.files = event.dataTransfer.files;
        show();
      }
    });
  }

  addCopyButtons();
  wireDrop();
})();
