// errkb: small, progressive helpers. Every page works without this file.
// 1. A "Copy" button on each code block. 2. Dropping a log file on the paste form.
// 3. Ctrl/Cmd+Enter submits. 4. The share button copies the permalink.
// 5. A chosen file is gzipped in the browser (CompressionStream), cut to its head and
//    tail above TRIM_BYTES (as `errkb report` does), and sent with a progress bar; on
//    failure the file stays chosen and the page says what to do.
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

  function wireShortcut() {
    var area = document.getElementById("log-text");
    if (!area || !area.form) { return; }
    area.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        if (area.form.requestSubmit) { area.form.requestSubmit(); } else { area.form.submit(); }
      }
    });
  }

  function wireShare() {
    document.querySelectorAll("[data-share]").forEach(function (button) {
      var label = button.textContent;
      button.hidden = false;
      button.addEventListener("click", function () {
        var url = new URL(button.getAttribute("data-share"), location.href).href;
        var holder = document.createElement("span");
        holder.textContent = url;
        var done = function () {
          button.textContent = button.getAttribute("data-done") || copiedLabel;
          setTimeout(function () { button.textContent = label; }, 1500);
        };
        if (navigator.clipboard) { navigator.clipboard.writeText(url).then(done, function () {}); return; }
        document.body.appendChild(holder);
        copyText(holder).then(done, function () {});
        holder.remove();
      });
    });
  }

  wireShortcut();
  wireShare();
  addCopyButtons();
  wireDrop();
})();
