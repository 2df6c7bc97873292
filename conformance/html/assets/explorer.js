/* autoswitch explorer: renders the trace data inlined in #trace-data (conformance/html/explorer.py), one state at a
   time. The DOM is issue 14's contract: #state-index, .lane[data-process], .msg[data-epoch], #action,
   body.dataset.violations, body.at-violation, .violated, body.dataset.loop and .loop-marker. No network, no framework. */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("trace-data").textContent);
  var states = data.states;
  var last = states.length - 1;
  var loop = data.loop === null || data.loop === undefined ? null : data.loop;
  var violations = data.violations;
  var current = 0;
  var body = document.body;
  var lanes = {};

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }

  function epochColour(epoch) {
    if (epoch === null || epoch === undefined) { return "#ddd"; }
    return "hsl(" + ((epoch * 67 + 200) % 360) + ", 65%, 78%)";
  }

  function has(list, x) {
    for (var i = 0; i < list.length; i++) { if (list[i] === x) { return true; } }
    return false;
  }

  function field(label, value, name, violated) {
    var row = el("div", "field" + (violated ? " violated" : ""));
    row.dataset.field = name;
    row.appendChild(el("span", "label", label));
    row.appendChild(el("span", "value", value));
    return row;
  }

  function buildLanes() {
    var box = document.getElementById("lanes");
    var names = ["controller"].concat(data.processes);
    names.forEach(function (p) {
      var lane = el("section", "lane" + (p === "controller" ? " controller" : ""));
      lane.dataset.process = p;
      lane.appendChild(el("h2", null, p === "controller" ? "controller" : p));
      lane.appendChild(el("div", "lane-body"));
      box.appendChild(lane);
      lanes[p] = lane;
    });
  }

  function renderLog(lane, p, state, marks) {
    var log = lane.log;
    var wrap = el("div", "log");
    wrap.dataset.field = "log";
    if (log === null || log === undefined) { return null; }
    var offsets = marks.offsets || [];
    if (log.length === 0) { wrap.appendChild(el("span", "empty", "empty log")); }
    for (var o = 0; o < log.length; o++) {
      var msg = log[o][0], epoch = log[o][1];
      var cell = el("span", "msg", msg === null ? String(o) : "m" + msg);
      cell.dataset.offset = String(o);
      cell.dataset.epoch = String(epoch);
      if (msg !== null) { cell.dataset.msg = String(msg); }
      cell.style.background = epochColour(epoch);
      cell.title = "offset " + o + (msg === null ? "" : ", message " + msg) + ", epoch " + epoch;
      if (lane.flushed !== null && lane.flushed !== undefined && o >= lane.flushed) { cell.classList.add("unflushed"); }
      if (lane.confirmOffset !== null && lane.confirmOffset !== undefined && o < lane.confirmOffset) { cell.classList.add("confirmed"); }
      if (lane.minOffset !== undefined && o < lane.minOffset) { cell.classList.add("deleted"); }
      if (msg !== null && has(state.acked, msg)) { cell.classList.add("acked"); }
      if (msg !== null && has(state.seen, msg)) { cell.classList.add("seen"); }
      if (has(offsets, o)) { cell.classList.add("violated"); }
      if (lane.flushed === o) { wrap.appendChild(el("span", "marker flushed-marker", "|flushed")); }
      if (lane.confirmOffset === o) { wrap.appendChild(el("span", "marker confirm-marker", "|confirm")); }
      wrap.appendChild(cell);
    }
    if (lane.flushed === log.length) { wrap.appendChild(el("span", "marker flushed-marker", "|flushed")); }
    if (lane.confirmOffset === log.length) { wrap.appendChild(el("span", "marker confirm-marker", "|confirm")); }
    (marks.missing || []).forEach(function (m) {
      var ghost = el("span", "msg missing violated", "m" + m);
      ghost.dataset.msg = String(m);
      ghost.dataset.epoch = "";
      ghost.title = "message " + m + " is lost here: this process should hold it";
      wrap.appendChild(ghost);
    });
    return wrap;
  }

  function renderEpochFile(entries, violated) {
    var wrap = el("div", "epoch-file" + (violated ? " violated" : ""));
    wrap.dataset.field = "epochFile";
    wrap.appendChild(el("span", "label", "epoch file"));
    if (entries.length === 0) { wrap.appendChild(el("span", "empty", "empty")); }
    entries.forEach(function (e) {
      var text = "e" + e[0] + "@" + e[1] + (e.length > 2 ? "-" + (e[2] >= 1e15 ? "\u221E" : e[2]) : "");  // a last entry ends at MAX
      var cell = el("span", "entry", text);
      cell.dataset.epoch = String(e[0]);
      cell.style.background = epochColour(e[0]);
      wrap.appendChild(cell);
    });
    return wrap;
  }

  function renderProcess(p, state) {
    var lane = state.lanes[p];
    var marks = state.marks[p] || {offsets: [], missing: [], fields: []};
    var box = lanes[p].querySelector(".lane-body");
    box.textContent = "";
    lanes[p].classList.toggle("violated-lane", (marks.offsets || []).length + (marks.missing || []).length + (marks.fields || []).length > 0);
    var head = el("div", "head");
    var role = el("span", "role role-" + String(lane.role).toLowerCase(), lane.role);
    role.dataset.field = "role";
    if (has(marks.fields, "role")) { role.classList.add("violated"); }
    head.appendChild(role);
    var reg = el("span", "reg", lane.regState);
    reg.dataset.field = "regState";
    if (has(marks.fields, "regState")) { reg.classList.add("violated"); }
    head.appendChild(reg);
    var id = el("span", "broker-id", "id " + lane.metaFile);
    id.dataset.field = "metaFile";
    if (has(marks.fields, "metaFile")) { id.classList.add("violated"); }
    head.appendChild(id);
    box.appendChild(head);
    var log = renderLog(lane, p, state, marks);
    if (log) { box.appendChild(log); }
    if (lane.confirmOffset !== null && lane.confirmOffset !== undefined) {
      box.appendChild(field("confirmOffset", lane.confirmOffset, "confirmOffset", has(marks.fields, "confirmOffset")));
    }
    if (lane.flushed !== null && lane.flushed !== undefined) {
      box.appendChild(field("flushed", lane.flushed, "flushed", has(marks.fields, "flushed")));
    }
    box.appendChild(renderEpochFile(lane.epochFile, has(marks.fields, "epochFile")));
    var extra = el("div", "fields");
    Object.keys(lane.fields).sort().forEach(function (name) {
      extra.appendChild(field(name, lane.fields[name], name, has(marks.fields, name)));
    });
    box.appendChild(extra);
  }

  function renderController(state) {
    var box = lanes.controller.querySelector(".lane-body");
    var marks = state.marks.controller || {fields: []};
    box.textContent = "";
    if (data.noController) {
      box.appendChild(el("p", "empty", "no controller in a " + data.kind + " trace"));
      return;
    }
    Object.keys(state.controller.fields).forEach(function (name) {
      box.appendChild(field(name, state.controller.fields[name], name, has(marks.fields || [], name)));
    });
  }

  function renderTimeline() {
    var list = document.getElementById("timeline");
    states.forEach(function (s, i) {
      var item = el("li", "tick" + (has(violations, i) ? " violation" : "") + (s.code === "DISABLED" ? " disabled" : ""));
      var button = el("button", null, String(i));
      button.type = "button";
      button.title = i + ": " + s.action + (s.broken.length ? " - fails: " + s.broken.join(", ") : "");
      button.addEventListener("click", function () { show(i); });
      item.appendChild(button);
      if (loop !== null && i === loop) {
        item.classList.add("loop-start");
      }
      list.appendChild(item);
    });
    if (loop !== null) {
      var marker = el("li", "loop-marker", "\u21BA back to " + loop);
      marker.title = "a lasso: the last state equals state " + loop + "; the behaviour loops from there for ever";
      marker.addEventListener("click", function () { show(loop); });
      list.appendChild(marker);
    }
  }

  function show(i) {
    current = i;
    var state = states[i];
    var index = document.getElementById("state-index");
    index.textContent = String(i);
    index.dataset.index = String(i);
    var action = document.getElementById("action");
    action.textContent = "";
    action.appendChild(el("span", "step", i === 0 ? "initial state" : "step " + i + ": "));
    if (i > 0) {
      action.appendChild(el("code", "call", state.action));
      action.appendChild(el("span", "arrow", " \u2192 "));
      action.appendChild(el("span", "outcome" + (state.code === "DISABLED" ? " disabled" : ""), state.outcome || "(no answer)"));
    } else {
      action.appendChild(el("code", "call", state.action));
    }
    if (loop !== null && i >= loop) {
      action.appendChild(el("span", "in-loop", " (in the loop from state " + loop + ")"));
    }
    var verdict = document.getElementById("verdict");
    verdict.textContent = "";
    var at = state.broken.length > 0;
    body.classList.toggle("at-violation", at);
    if (at) {
      verdict.appendChild(el("strong", null, "fails here: " + state.broken.join(", ")));
    } else {
      verdict.appendChild(el("span", "ok", "every property holds here"));
    }
    renderController(state);
    data.processes.forEach(function (p) { renderProcess(p, state); });
    var changes = document.getElementById("changes");
    changes.textContent = "";
    if (state.changes.length) {
      changes.appendChild(el("h3", null, "what this step changed"));
      var ul = el("ul");
      state.changes.forEach(function (c) { ul.appendChild(el("li", null, c)); });
      changes.appendChild(ul);
    }
    var ticks = document.querySelectorAll("#timeline .tick");
    for (var t = 0; t < ticks.length; t++) { ticks[t].classList.toggle("current", t === i); }
  }

  function forward() {
    if (current < last) { show(current + 1); } else if (loop !== null) { show(Math.min(loop + 1, last)); }
  }

  function back() {
    if (current > 0) { show(current - 1); }
  }

  function onKey(event) {
    if (event.altKey || event.ctrlKey || event.metaKey) { return; }
    var key = event.key;
    if (key === "ArrowRight" || key === "j") { forward(); } else if (key === "ArrowLeft" || key === "k") { back(); } else if (key === "Home") {
      show(0);
    } else if (key === "End") { show(last); } else { return; }
    event.preventDefault();
  }

  function meta() {
    var parts = [data.kind];
    if (data.design && data.design !== "controller") { parts.push("design " + data.design); }
    if (data.policy) { parts.push("policy " + data.policy); }
    if (data.expect) { parts.push("expects " + data.expect); }
    if (data.liveness) { parts.push("liveness: " + data.liveness); }
    if (loop !== null) { parts.push("lasso: loops from state " + loop); }
    parts.push(violations.length ? "violating states: " + violations.join(", ") : "no violating state");
    document.getElementById("meta").textContent = parts.join(" \u00B7 ");
  }

  body.dataset.violations = violations.join(",");
  if (loop !== null) { body.dataset.loop = String(loop); }
  buildLanes();
  renderTimeline();
  meta();
  document.getElementById("next").addEventListener("click", forward);
  document.getElementById("prev").addEventListener("click", back);
  document.getElementById("home").addEventListener("click", function () { show(0); });
  document.getElementById("end").addEventListener("click", function () { show(last); });
  document.addEventListener("keydown", onKey);
  var start = /state=(\d+)/.exec(window.location.hash);  // a link to one state: page.html#state=N
  show(start && Number(start[1]) <= last ? Number(start[1]) : 0);
  body.dataset.ready = "1";
}());
