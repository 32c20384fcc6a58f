// Live progress of a run's page: follows /runs/{id}/events and reloads the page when the
// run has finished. Without JavaScript the page shows the run's state when loaded.
(function () {
  "use strict";
  var run = document.getElementById("run");
  if (!run || run.dataset.active !== "true" || !window.EventSource) return;
  var source = new EventSource(run.dataset.events);
  function set(id, value) {
    var el = document.getElementById(id);
    if (el) el.textContent = String(value);
  }
  source.addEventListener("progress", function (event) {
    var p = JSON.parse(event.data);
    set("run-done", p.done);
    set("run-total", p.total);
    set("run-pass", p.pass);
    set("run-fail", p.fail);
    set("run-error", p.error);
    set("run-unsupported", p.unsupported);
    var bar = document.getElementById("run-progress");
    if (bar) {
      bar.max = p.total || 1;
      bar.value = p.done;
    }
    var status = document.querySelector("#run-status .badge");
    if (status) {
      status.textContent = p.status;
      status.className = "badge r-" + p.status;
    }
  });
  source.addEventListener("done", function () {
    source.close();
    window.location.reload();
  });
})();
