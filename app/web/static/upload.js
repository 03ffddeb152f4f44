// errkb: the paste form's file upload, progressive. Without this file (or without
// CompressionStream) the form posts as a plain multipart form, as it always did.
// With it: the file is gzipped here, a file above TRIM_BYTES is cut to its head and
// tail with a marker line where the middle was (as `errkb report` sends a tail), the
// upload shows its progress, and a failure keeps the chosen file and says what to do.
(function () {
  "use strict";
  var TRIM_BYTES = 16 * 1024 * 1024;
  var HEAD_BYTES = 2 * 1024 * 1024;
  var TAIL_BYTES = 6 * 1024 * 1024;
  var form = document.querySelector("form[data-paste]");
  var input = document.getElementById("log-file");
  if (!form || !input || typeof CompressionStream === "undefined" || !window.XMLHttpRequest) { return; }
  var box = form.querySelector("[data-upload]");
  var bar = form.querySelector("[data-progress]");
  var status = form.querySelector("[data-status]");
  var lang = document.body.getAttribute("data-lang") === "zh" ? "zh-CN" : "en";

  function size(bytes) {
    var units = ["B", "KB", "MB", "GB"];
    var i = 0;
    while (bytes >= 1024 && i < units.length - 1) { bytes /= 1024; i += 1; }
    return bytes.toLocaleString(lang, { maximumFractionDigits: i ? 1 : 0 }) + " " + units[i];
  }

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (_, key) { return values[key] !== undefined ? values[key] : ""; });
  }

  function say(text, failed) {
    box.hidden = false;
    status.textContent = text;
    status.classList.toggle("failed", !!failed);
  }

  function isGzip(file) {
    return file.slice(0, 2).arrayBuffer().then(function (buffer) {
      var head = new Uint8Array(buffer);
      return head.length === 2 && head[0] === 0x1f && head[1] === 0x8b;
    });
  }

  // The head (up to a line end), a marker line, the tail (from a line start).
  function trimmed(file) {
    var tailStart = file.size - TAIL_BYTES;
    var left = tailStart - HEAD_BYTES;
    var marker = "\n[errkb: " + left.toLocaleString("en") + " bytes of this log were left out here by the browser]\n";
    return Promise.all([
      file.slice(0, HEAD_BYTES).arrayBuffer(), file.slice(tailStart).arrayBuffer()
    ]).then(function (parts) {
      var head = new Uint8Array(parts[0]);
      var tail = new Uint8Array(parts[1]);
      var headEnd = head.lastIndexOf(10);
      var tailStartAt = tail.indexOf(10);
      return new Blob([
        head.subarray(0, headEnd >= 0 ? headEnd + 1 : head.length),
        marker,
        tail.subarray(tailStartAt >= 0 ? tailStartAt + 1 : 0)
      ]);
    });
  }

  function gzipped(blob) {
    return new Response(blob.stream().pipeThrough(new CompressionStream("gzip"))).blob();
  }

  function prepare(file) {
    return isGzip(file).then(function (already) {
      if (already) { return { blob: file, name: file.name }; }
      var cut = file.size > TRIM_BYTES;
      if (cut) {
        say(fill(form.getAttribute("data-trimmed"), {
          size: size(file.size), head: size(HEAD_BYTES), tail: size(TAIL_BYTES)
        }));
      } else {
        say(form.getAttribute("data-compressing"));
      }
      return (cut ? trimmed(file) : Promise.resolve(file)).then(gzipped).then(function (blob) {
        return { blob: blob, name: file.name.replace(/(\.gz)?$/, ".gz"), cut: cut };
      });
    });
  }

  function failed(why) {
    form.classList.remove("sending");
    bar.hidden = true;
    say(fill(form.getAttribute("data-failed"), { why: why }), true);
  }

  function send(prepared) {
    var data = new FormData();
    data.append("lang", form.querySelector("input[name=lang]").value);
    data.append("text", "");
    data.append("log", prepared.blob, prepared.name);
    var request = new XMLHttpRequest();
    request.open("POST", form.action);
    request.upload.addEventListener("progress", function (event) {
      if (!event.lengthComputable) { return; }
      bar.value = Math.round((event.loaded / event.total) * 100);
      var note = fill(form.getAttribute("data-sending"), { done: size(event.loaded), total: size(event.total) });
      say(prepared.cut ? status.textContent.split("\n")[0] + "\n" + note : note);
    });
    request.addEventListener("load", function () {
      if (request.status < 400 && /\/r\/\d+\//.test(request.responseURL)) {
        location.assign(request.responseURL);
      } else if (request.status < 400) {
        document.open(); document.write(request.responseText); document.close();
      } else {
        var page = new DOMParser().parseFromString(request.responseText, "text/html");
        var alert = page.querySelector(".alert");
        failed(alert ? alert.textContent.trim() : "HTTP " + request.status);
      }
    });
    request.addEventListener("error", function () { failed("network error"); });
    request.addEventListener("timeout", function () { failed("timeout"); });
    request.send(data);
  }

  form.addEventListener("submit", function (event) {
    var file = input.files && input.files[0];
    if (!file) { return; }
    event.preventDefault();
    if (form.classList.contains("sending")) { return; }
    form.classList.add("sending");
    bar.value = 0;
    bar.hidden = false;
    prepare(file).then(send, function (error) { failed(String(error && error.message || error)); });
  });
})();
