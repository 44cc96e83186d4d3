package web

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/go-git/go-git/v5"

	"github.com/contractbot/contractbot/internal/clock"
)

// widths are the windows every page is measured at: two desktops and a phone.
var widths = []viewport{{"desktop", 1280, 900}, {"wide", 1920, 1080}, {"phone", 390, 844}}

// everyPage is each kind of page, with the example tree's data (a subject with nested
// fields, one that consumers produce, a team, the calendar's two views, the sign-offs
// of a connected bot, the lineage page with observed events, the health report).
var everyPage = []string{
	"/",
	"/subjects?domain=orders&q=order",
	"/subjects/orders.order-created-value",
	"/subjects/dw.order-detail-value",
	"/teams",
	"/teams/data-warehouse",
	"/calendar?view=month&date=2026-12-01",
	"/calendar?view=week&date=2026-12-08",
	"/signoffs",
	"/lineage",
	"/report",
}

// allPagesServer serves the example tree (with a second version of
// orders.order-created-value, then changes) with a connected bot and observed
// lineage, so that every part of every page shows.
func allPagesServer(t *testing.T, signOffs SignOffSource, changes ...func(t *testing.T, dir string)) *httptest.Server {
	t.Helper()
	obs := &fakeObserved{}
	for _, f := range []string{"flink-dwd-order-detail-complete.json", "spark-order-fraud-rules-complete.json"} {
		obs.add(t, f)
	}
	return servePages(t, exampleRepo(t, append([]func(*testing.T, string){orderCreatedV2}, changes...)...), signOffs, obs)
}

// servePages serves the pages of repo with a sign-off source and observed lineage.
func servePages(t *testing.T, repo *git.Repository, signOffs SignOffSource, obs ObservedLineage) *httptest.Server {
	mux := http.NewServeMux()
	(&Pages{Tree: &Tree{Repo: repo}, Clock: clock.Func(func() time.Time { return pagesNow }),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), SignOffs: signOffs, Observed: obs}).Mount(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// measure is the script the width test runs on each page: it returns every problem
// it finds, one sentence each.
//
//   - overflow: an element whose content is wider than its box (scrollWidth past
//     clientWidth) without being a frame that scrolls, or a box that reaches past the
//     window outside such a frame; a frame that scrolls only where it is meant to
//     (the lineage graph, the schema text and a diff).
//   - split: an identifier (a subject, topic, team, consumer, field path, level, file,
//     a column's heading) whose text breaks onto a new line anywhere but after a
//     space, ".", "_", "-" or "/": each character's line box is read with
//     Range.getClientRects, and a character below the one before it starts a line.
//   - lineage text smaller than 12 px as drawn (its font size times the graph's scale).
//   - a placeholder wider than its input.
//   - at 1920 px, a page that leaves more than a tenth of the window unused.
const measure = `(() => {
  const problems = [], W = window.innerWidth;
  const describe = e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className && typeof e.className === "string" ? "." + e.className.trim().split(/\s+/).join(".") : "") +
    ' "' + (e.textContent || "").trim().replace(/\s+/g, " ").slice(0, 60) + '"';
  const scrolls = e => ["auto", "scroll"].includes(getComputedStyle(e).overflowX);
  const mayScroll = e => e.matches(".graph, .scroll:has(> pre)");
  for (const e of document.body.querySelectorAll("*")) {
    if (e.closest("svg, .skip") || e.getClientRects().length === 0) continue;
    const cs = getComputedStyle(e);
    if (cs.display === "inline" || cs.display === "contents") continue;
    if (scrolls(e)) {
      if (e.scrollWidth > e.clientWidth + 1 && !mayScroll(e)) problems.push("scrolls sideways (" + e.scrollWidth + " px in " + e.clientWidth + "): " + describe(e));
      continue;
    }
    if (cs.overflowX === "hidden" || cs.overflowX === "clip") continue;
    let frame = e.parentElement;
    while (frame && !scrolls(frame)) frame = frame.parentElement;
    if (frame && mayScroll(frame)) continue;
    if (e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0) problems.push("overflows its box (" + e.scrollWidth + " px in " + e.clientWidth + "): " + describe(e));
    const r = e.getBoundingClientRect();
    if (!frame && (r.right > W + 1 || r.left < -1)) problems.push("reaches past the window (" + Math.round(r.left) + " to " + Math.round(r.right) + " of " + W + "): " + describe(e));
  }
  if (document.documentElement.scrollWidth > W) problems.push("the page is " + document.documentElement.scrollWidth + " px wide");

  const ids = "table.catalog tbody td, table.catalog tbody th, thead th, h1, table.fields tbody th, code:not(pre code), a[href^='/subjects/'], a[href^='/teams/']";
  const allowed = " \n\t._-/,";
  for (const e of document.body.querySelectorAll(ids)) {
    if (e.closest("svg") || e.getClientRects().length === 0) continue;
    const walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
    let prev = null, text = "", split = -1;
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      for (let i = 0; i < n.data.length; i++) {
        const ch = n.data[i], range = document.createRange();
        range.setStart(n, i); range.setEnd(n, i + 1);
        const rects = range.getClientRects();
        if (rects.length === 0 || /\s/.test(ch)) { text += ch; if (prev) prev.ch = ch; continue; }
        const r = rects[0];
        if (prev && r.top >= prev.bottom - 1 && !allowed.includes(prev.ch) && split < 0) split = text.length;
        prev = {bottom: r.bottom, ch};
        text += ch;
      }
    }
    if (split >= 0) problems.push("breaks inside a word: " + e.tagName.toLowerCase() + ' "' + (text.slice(0, split) + "|" + text.slice(split)).trim().replace(/\s+/g, " ") + '"');
  }

  for (const t of document.querySelectorAll(".graph svg text")) {
    const px = parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
    if (px < 11.95) problems.push("lineage text drawn at " + px.toFixed(1) + " px: " + t.textContent);
  }

  const ctx = document.createElement("canvas").getContext("2d");
  for (const i of document.querySelectorAll("input[placeholder]")) {
    if (i.getClientRects().length === 0 || !i.placeholder) continue;
    const cs = getComputedStyle(i);
    ctx.font = cs.fontStyle + " " + cs.fontWeight + " " + cs.fontSize + " " + cs.fontFamily;
    const room = i.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    const need = ctx.measureText(i.placeholder).width;
    if (need > room) problems.push('the placeholder "' + i.placeholder + '" needs ' + Math.round(need) + " px in " + Math.round(room));
  }

  if (W >= 1900) {
    const m = document.querySelector("main").getBoundingClientRect();
    if (m.width < W * 0.9) problems.push("the page uses " + Math.round(m.width) + " px of " + W);
  }
  return JSON.stringify(problems);
})()`

// TestBrowserEveryPageAtThreeWidths opens every page at 1280, 1920 and 390 px and
// measures it (see measure): nothing overflows, no identifier is split inside a word,
// the lineage graph's text is at least 12 px, placeholders fit, wide windows are used.
func TestBrowserEveryPageAtThreeWidths(t *testing.T) {
	ctx, consoleErrors := browser(t)
	srv := allPagesServer(t, fakeSignOffs())
	b := window{tab{t, ctx}, srv.URL}
	for _, vp := range widths {
		b.resize(vp)
		for _, p := range everyPage {
			b.open(p)
			for _, problem := range b.problems() {
				t.Errorf("%s at %d px: %s", p, vp.w, problem)
			}
		}
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("the pages logged errors in the browser:\n%s", strings.Join(errs, "\n"))
	}
}

// problems runs measure on the page open.
func (b window) problems() []string {
	b.t.Helper()
	out, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](measure))
	if err != nil {
		b.t.Fatalf("measure: %v", err)
	}
	var problems []string
	if err := json.Unmarshal([]byte(out), &problems); err != nil {
		b.t.Fatal(err)
	}
	return problems
}

// TestBrowserHostileNamesAtThreeWidths measures the pages of a tree full of hostile
// names (pages_hostile_test.go: names of 70,000 characters, markup, a right-to-left
// override, zero-width characters) as TestBrowserEveryPageAtThreeWidths does, except
// that a table of such names may scroll in its frame and a 40-character part that is
// wider than its column may break: nothing may reach past its box or the window.
func TestBrowserHostileNamesAtThreeWidths(t *testing.T) {
	ctx, consoleErrors := browser(t)
	obs := &fakeObserved{}
	e := adaptedEvent(t, "spark-order-fraud-rules-complete.json")
	e.Job.Name = script + long
	obs.events = append(obs.events, e, adaptedEvent(t, "flink-dwd-order-detail-complete.json"))
	srv := servePages(t, exampleRepo(t, orderCreatedV2, hostileNames), hostileSource(), obs)
	b := window{tab{t, ctx}, srv.URL}
	pages := append(slices.Clone(everyPage), "/subjects/orders.order-snapshot-value", "/teams/orders", subjectHref(longSubject))
	for _, vp := range widths {
		b.resize(vp)
		for _, p := range pages {
			b.open(p)
			for _, problem := range b.problems() {
				if !strings.HasPrefix(problem, "scrolls sideways") && !strings.HasPrefix(problem, "breaks inside a word") {
					t.Errorf("%s at %d px: %s", p[:min(len(p), 60)], vp.w, problem)
				}
			}
		}
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("the pages logged errors in the browser:\n%s", strings.Join(errs, "\n"))
	}
}
