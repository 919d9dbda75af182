// Alcazaba web pages: zoom and pan of the board picture (mouse, touch, keyboard), the replay
// controls (buttons, slider, arrow keys) and the live updates (server-sent events). The pages
// read without it; it is served from this site only (no inline script, no other host).
"use strict";

(function () {
  const body = document.body;

  // ------------------------------------------------------------------ zoom and pan
  function zoomable(box) {
    const img = box.querySelector("img");
    if (!img) { return; }
    let scale = 1, x = 0, y = 0;
    const pointers = new Map();
    let pinch = null;

    function clamp() {
      const w = box.clientWidth, h = box.clientHeight;
      const iw = img.clientWidth * scale, ih = img.clientHeight * scale;
      x = Math.min(0, Math.max(w - iw, x));
      y = Math.min(0, Math.max(Math.min(0, h - ih), y));
      if (scale <= 1) { x = 0; y = 0; }
    }
    function apply() {
      clamp();
      img.style.transform = "translate(" + x + "px," + y + "px) scale(" + scale + ")";
    }
    function maxScale() {
      // at most four times the picture's own pixels
      return Math.max(1, 4 * (img.naturalWidth || 1) / Math.max(1, img.clientWidth));
    }
    function zoomAt(factor, cx, cy) {
      const next = Math.min(maxScale(), Math.max(1, scale * factor));
      const k = next / scale;
      x = cx - (cx - x) * k;
      y = cy - (cy - y) * k;
      scale = next;
      apply();
    }
    function center() { return [box.clientWidth / 2, box.clientHeight / 2]; }
    box.zoomBy = function (what) {
      const c = center();
      if (what === "in") { zoomAt(1.5, c[0], c[1]); }
      else if (what === "out") { zoomAt(1 / 1.5, c[0], c[1]); }
      else { scale = 1; x = 0; y = 0; apply(); }
    };
    box.addEventListener("wheel", function (e) {
      e.preventDefault();
      const r = box.getBoundingClientRect();
      zoomAt(e.deltaY < 0 ? 1.2 : 1 / 1.2, e.clientX - r.left, e.clientY - r.top);
    }, { passive: false });
    box.addEventListener("dblclick", function (e) {
      const r = box.getBoundingClientRect();
      zoomAt(2, e.clientX - r.left, e.clientY - r.top);
    });
    box.addEventListener("pointerdown", function (e) {
      box.setPointerCapture(e.pointerId);
      pointers.set(e.pointerId, [e.clientX, e.clientY]);
      if (pointers.size === 2) {
        const p = Array.from(pointers.values());
        pinch = Math.hypot(p[0][0] - p[1][0], p[0][1] - p[1][1]);
      }
    });
    box.addEventListener("pointermove", function (e) {
      const old = pointers.get(e.pointerId);
      if (!old) { return; }
      pointers.set(e.pointerId, [e.clientX, e.clientY]);
      if (pointers.size === 2 && pinch) {
        const p = Array.from(pointers.values());
        const d = Math.hypot(p[0][0] - p[1][0], p[0][1] - p[1][1]);
        const r = box.getBoundingClientRect();
        zoomAt(d / pinch, (p[0][0] + p[1][0]) / 2 - r.left, (p[0][1] + p[1][1]) / 2 - r.top);
        pinch = d;
      } else if (pointers.size === 1) {
        x += e.clientX - old[0];
        y += e.clientY - old[1];
        apply();
      }
    });
    function up(e) { pointers.delete(e.pointerId); if (pointers.size < 2) { pinch = null; } }
    box.addEventListener("pointerup", up);
    box.addEventListener("pointercancel", up);
    box.addEventListener("keydown", function (e) {
      const step = 60;
      const c = center();
      let used = true;
      if (e.key === "+" || e.key === "=") { zoomAt(1.25, c[0], c[1]); }
      else if (e.key === "-") { zoomAt(0.8, c[0], c[1]); }
      else if (e.key === "0") { box.zoomBy("reset"); }
      else if (e.key === "ArrowLeft") { x += step; apply(); }
      else if (e.key === "ArrowRight") { x -= step; apply(); }
      else if (e.key === "ArrowUp") { y += step; apply(); }
      else if (e.key === "ArrowDown") { y -= step; apply(); }
      else { used = false; }
      if (used) { e.preventDefault(); e.stopPropagation(); }
    });
    img.addEventListener("load", apply);
  }

  function setupZoom() {
    document.querySelectorAll(".zoom").forEach(zoomable);
    document.querySelectorAll(".zoomctl").forEach(function (ctl) {
      ctl.hidden = false;
      const box = ctl.closest("figure").querySelector(".zoom");
      ctl.querySelectorAll("button").forEach(function (b) {
        b.addEventListener("click", function () { box.zoomBy(b.dataset.zoom); });
      });
    });
  }

  // ------------------------------------------------------------------ replay
  function setupReplay() {
    const slider = document.getElementById("slider");
    if (!slider) { return; }
    const picture = document.getElementById("picture");
    const full = document.getElementById("fullsize");
    const at = document.getElementById("at");
    const items = Array.from(document.querySelectorAll("#log li[data-move]"));
    const seqOf = { 0: "0" };
    items.forEach(function (li) { seqOf[li.dataset.move] = li.dataset.seq; });
    const first = Number(slider.min), last = Number(slider.max);
    let position = Number(slider.value);

    let pending = null;
    function show(n, lazy) {
      n = Math.max(first, Math.min(last, n));
      position = n;
      const src = slider.dataset.base + (seqOf[n] || "0") + ".png";
      // dragging the slider asks for the picture once it rests (not one per position passed)
      window.clearTimeout(pending);
      if (lazy) {
        pending = window.setTimeout(function () { picture.src = src; }, 150);
      } else {
        picture.src = src;
      }
      picture.alt = picture.alt.replace(/move \d+$/, "move " + n);
      full.href = src;
      slider.value = String(n);
      at.textContent = String(n);
      items.forEach(function (li) { li.hidden = Number(li.dataset.move) > n; });
      document.querySelectorAll("a.step").forEach(function (a) {
        const target = { first: first, prev: Math.max(first, n - 1), next: Math.min(last, n + 1), last: last }[a.dataset.step];
        a.href = slider.dataset.page + target;
      });
      history.replaceState(null, "", slider.dataset.page + n);
    }
    document.querySelectorAll("a.step").forEach(function (a) {
      a.addEventListener("click", function (e) {
        e.preventDefault();
        const s = a.dataset.step;
        show(s === "first" ? first : s === "last" ? last : s === "prev" ? position - 1 : position + 1);
      });
    });
    slider.addEventListener("input", function () { show(Number(slider.value), true); });
    document.addEventListener("keydown", function (e) {
      if (e.target && (e.target.closest && e.target.closest(".zoom"))) { return; }
      if (e.key === "ArrowLeft") { show(position - 1); e.preventDefault(); }
      else if (e.key === "ArrowRight") { show(position + 1); e.preventDefault(); }
      else if (e.key === "Home") { show(first); e.preventDefault(); }
      else if (e.key === "End") { show(last); e.preventDefault(); }
    });
  }

  // ------------------------------------------------------------------ live updates
  function setupLive() {
    // The server announces the game's change stamp: it changes with a move, and also with a
    // resignation, an abort, a new seat holder or a new deadline, which change no version.
    const address = body.dataset.live;
    if (!address || !window.EventSource) { return; }
    let stamp = body.dataset.stamp;
    let wanted = stamp;
    let busy = false;
    const source = new EventSource(address);
    source.addEventListener("change", function (e) {
      wanted = JSON.parse(e.data).stamp;
      refresh();
    });
    function refresh() {
      if (wanted === stamp || busy) { return; }
      busy = true;
      fetch(window.location.href, { credentials: "omit", cache: "no-store" }).then(function (r) {
        if (r.status === 404) {  // the page is gone for good (a seat that changed hands): stop
          source.close();
          wanted = stamp;
          throw new Error("gone");
        }
        if (!r.ok) { throw new Error("status " + r.status); }
        return r.text();
      }).then(function (text) {
        const doc = new DOMParser().parseFromString(text, "text/html");
        stamp = doc.body.dataset.stamp;
        body.dataset.stamp = stamp;
        body.dataset.version = doc.body.dataset.version;
        // the pictures change source (zoom and pan stay); the text parts are replaced
        const fresh = doc.querySelectorAll("#live img");
        const old = document.querySelectorAll("#live img");
        if (fresh.length !== old.length) {  // a picture came or went: the whole part anew
          const live = document.getElementById("live");
          live.replaceWith(document.adoptNode(doc.getElementById("live")));
          setupZoom();
          body.dispatchEvent(new CustomEvent("alcazaba:updated", { detail: stamp }));
          return;
        }
        fresh.forEach(function (img, i) {
          if (old[i] && old[i].getAttribute("src") !== img.getAttribute("src")) {
            old[i].src = img.getAttribute("src");
            old[i].alt = img.alt;
          }
        });
        const links = doc.querySelectorAll("#live figcaption a");
        document.querySelectorAll("#live figcaption a").forEach(function (a, i) {
          if (links[i]) { a.href = links[i].getAttribute("href"); }
        });
        const side = doc.querySelector("#live .side");
        const mine = document.querySelector("#live .side");
        if (side && mine) { mine.replaceWith(document.adoptNode(side)); }
        body.dispatchEvent(new CustomEvent("alcazaba:updated", { detail: stamp }));
      }).then(function () {
        busy = false;
        refresh();
      }, function () {  // the server is away for a moment: try again a little later
        busy = false;
        if (wanted !== stamp) { window.setTimeout(refresh, 3000); }
      });
    }
  }

  setupZoom();
  setupReplay();
  setupLive();
}());
