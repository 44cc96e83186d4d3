package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserLayoutDesktopAndPhone opens the catalog, a subject page, the calendar and
// the sign-off page at 1280 px and at 390 px (a phone) and asserts that no page is
// wider than the window (the page never scrolls sideways; wide tables and graphs
// scroll inside their own frame), and the parts the subject page promises: the fields
// table before the folded schema, the lineage graph with subjects and consumers, its
// legend, and at 1280 px the graph's frame inside the page.
func TestBrowserLayoutDesktopAndPhone(t *testing.T) {
	ctx, consoleErrors := browser(t)
	srv := pagesServerWith(t, exampleRepo(t, orderCreatedV2), fakeSignOffs())
	b := window{tab{t, ctx}, srv.URL}
	eval, open := b.eval, b.open
	pages := []string{"/", "/subjects/orders.order-created-value", "/subjects/dw.order-detail-value",
		"/calendar?view=month&date=2026-12-01", "/calendar?view=week&date=2026-12-08", "/signoffs", "/teams/orders"}
	for _, vp := range viewports {
		b.resize(vp)
		for _, p := range pages {
			open(p)
			b.fitsWindow(p, vp.w)
		}

		open("/subjects/orders.order-created-value")
		checks := []struct{ what, js string }{
			{"the fields table comes before the schema, which is folded",
				`(() => { const f = document.querySelector("table.fields"), d = document.querySelector("details.schema");
				  return !!f && !!d && !d.open && (f.compareDocumentPosition(d) & Node.DOCUMENT_POSITION_FOLLOWING) > 0 })()`},
			{"the fields table names type, default, nullable, unit, PII, description and readers",
				`[...document.querySelectorAll("table.fields thead th")].map(th => th.textContent).join("|") === "Field|Type|Default|Nullable|Unit|PII|Description|Read by"`},
			{"the fields table says who reads amount",
				`[...document.querySelectorAll("table.fields tbody tr")].some(tr => tr.querySelector("th").textContent === "amount" && tr.textContent.includes("dwd-order-detail"))`},
			{"the lineage graph has subjects and consumers",
				`document.querySelectorAll(".graph .node-subject").length > 0 && document.querySelectorAll(".graph .node-consumer").length > 0`},
			{"the lineage graph has a legend", `document.querySelectorAll(".legend .swatch").length === 3`},
		}
		if vp.name == "desktop" {
			checks = append(checks, struct{ what, js string }{"the lineage graph's frame fits the page (a wider graph pans inside it)",
				`document.querySelector(".graph").getBoundingClientRect().right <= document.querySelector("main").getBoundingClientRect().right + 1`})
		} else {
			checks = append(checks, struct{ what, js string }{"on a phone the fields are cards: no table header, each cell names its column",
				`getComputedStyle(document.querySelector("table.fields thead")).display === "none" &&
				 getComputedStyle(document.querySelector("table.fields td[data-label]"), "::before").content.includes(":")`})
		}
		for _, c := range checks {
			if !eval(c.what, c.js) {
				t.Errorf("%s: %s", vp.name, c.what)
			}
		}
		open("/")
		if !eval("catalog columns", `[...document.querySelectorAll("table.catalog thead th")].map(th => th.textContent).join("|").includes("Topic|Format|Level|Owner|Tier|Latest|Last change|Consumers|PII")`) {
			t.Errorf("%s: the catalog lacks the topic, last change or PII column", vp.name)
		}
		if vp.name == "phone" {
			if !eval("catalog cards", `getComputedStyle(document.querySelector("table.catalog thead")).display === "none"`) {
				t.Errorf("on a phone the catalog should be one card per subject")
			}
			for _, shot := range []struct{ path, file string }{{"/", "catalog-phone.png"}, {"/subjects/orders.order-created-value", "subject-phone.png"}} {
				open(shot.path)
				png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
				if err != nil {
					t.Fatal(err)
				}
				screenshot(t, shot.file, png)
			}
		}
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("the pages logged errors in the browser:\n%s", strings.Join(errs, "\n"))
	}
}
