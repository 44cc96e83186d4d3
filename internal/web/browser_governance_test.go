package web

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserGovernanceParts opens the health report, a team's page with deprecated
// reads and a job's state with its recoverability at 1280 px and at 390 px (a phone):
// no page is wider than the window, each new part fits inside it (a wide table scrolls
// inside its own frame), and on a phone their tables are cards. Screenshots
// health.png, team-deprecated-phone.png and job-state-phone.png.
func TestBrowserGovernanceParts(t *testing.T) {
	ctx, consoleErrors := browser(t)
	repo, head := statePR(t, gmvLong, gmvBackToInt)
	srv := pagesServerWith(t, repo, statePRs(head))
	// The health page's history part is computed after a first page: wait for it.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, body := get(t, srv, "/report"); !strings.Contains(body, "Being computed") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the history audit did not finish within 60 s")
		}
	}
	b := window{tab{t, ctx}, srv.URL}
	eval, open := b.eval, b.open
	// fits: the element exists, and its box lies inside the window.
	fits := func(sel string) string {
		return `(() => { const els = document.querySelectorAll(` + "`" + sel + "`" + `);
		  return els.length > 0 && [...els].every(e => { const r = e.getBoundingClientRect(); return r.left >= 0 && r.right <= window.innerWidth && r.width > 0 }) })()`
	}
	pages := []struct {
		path  string
		parts []string // selectors of the new parts
		cards string   // a table that is cards on a phone
		shot  string   // screenshot (desktop for health.png, else phone)
	}{
		{"/report", []string{"#h-unused ~ .scroll", "#h-deprecated ~ .scroll", "#h-broken ~ ul li", "nav a[aria-current=page][href='/report']"}, "table.health", "health.png"},
		{"/teams/data-warehouse#h-deprecated", []string{"p.warning", "#h-deprecated ~ .scroll"}, "table.deprecated", "team-deprecated-phone.png"},
		{"/subjects/dw.order-detail-value#consumer-dws-gmv-1min", []string{"#consumer-dws-gmv-1min .jobstate", "#consumer-dws-gmv-1min .jobstate .scroll", "#consumer-dws-gmv-1min .recover .bad"}, "table.state", "job-state-phone.png"},
	}
	for _, vp := range viewports {
		b.resize(vp)
		for _, p := range pages {
			open(p.path)
			b.fitsWindow(p.path, vp.w)
			for _, sel := range p.parts {
				if !eval("fits "+sel, fits(sel)) {
					t.Errorf("%s at %d px: %s is missing or does not fit the window", p.path, vp.w, sel)
				}
			}
			cards := `getComputedStyle(document.querySelector("` + p.cards + ` thead")).display === "none"`
			if got := eval("cards", cards); got != (vp.name == "phone") {
				t.Errorf("%s at %d px: %s is cards: %v, want %v", p.path, vp.w, p.cards, got, vp.name == "phone")
			}
			if (p.shot == "health.png") == (vp.name == "desktop") {
				shot := chromedp.CaptureScreenshot() // the window, scrolled to the part on a phone
				if vp.name == "desktop" {
					shot = chromedp.FullScreenshot(100) // 100: PNG
				}
				png, err := chromedp.Run(ctx, shot)
				if err != nil {
					t.Fatal(err)
				}
				screenshot(t, p.shot, png)
			}
		}
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("the pages logged errors in the browser:\n%s", strings.Join(errs, "\n"))
	}
}

// window is a browser tab over a pages server at url, for the layout tests.
type window struct {
	tab
	url string
}

// eval runs a script that returns a boolean.
func (b window) eval(what, js string) bool {
	b.t.Helper()
	ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](js))
	if err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
	return ok
}

// open navigates to a path of the server, failing on anything but 200.
func (b window) open(path string) {
	b.t.Helper()
	resp, err := chromedp.RunResponse(b.ctx, chromedp.Navigate(b.url+path))
	if err != nil || resp.Status != 200 {
		b.t.Fatalf("open %s: %v %v", path, resp, err)
	}
}

// fitsWindow fails the test when the page open is wider than the window (it would
// scroll sideways); width is the window's, for the message.
func (b window) fitsWindow(path string, width int64) {
	b.t.Helper()
	if !b.eval("overflow", `document.documentElement.scrollWidth <= window.innerWidth`) {
		w, _ := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
		b.t.Errorf("%s at %d px: the page is %d px wide and scrolls sideways", path, width, w)
	}
}

// viewport is a browser window's size.
type viewport struct {
	name string
	w, h int64
}

// viewports are the windows the layout tests use: a desktop and a phone.
var viewports = []viewport{{"desktop", 1280, 900}, {"phone", 390, 844}}

// resize sets the tab's window to vp.
func (b window) resize(vp viewport) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.EmulateViewport(vp.w, vp.h)); err != nil {
		b.t.Fatal(err)
	}
}
