package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// From the header to the lineage page with observed events: the drift tables, a
// consumer file's link to its subject page, no console error, and on a phone the
// page is no wider than the window.
func TestBrowserLineagePage(t *testing.T) {
	ctx, consoleErrors := browser(t)
	obs := &fakeObserved{}
	for _, f := range []string{"flink-dwd-order-detail-complete.json", "spark-order-fraud-rules-complete.json"} {
		obs.add(t, f)
	}
	srv := lineageServer(t, exampleRepo(t), obs)
	text, navigate := tab{t, ctx}.text, tab{t, ctx}.navigate
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	navigate("open the catalog", chromedp.Navigate(srv.URL+"/"))
	navigate("follow Lineage in the header", chromedp.Click(chromedp.CSS(`header nav a[href="/lineage"]`)))
	if got := text("h1"); got != "Lineage" {
		t.Errorf("heading: %q", got)
	}
	if got := text("#h-undeclared + p + div table tbody td code"); got != "event_time" {
		t.Errorf("first field read but not declared: %q", got)
	}
	if got := text("#h-nofile + p + div table tbody th"); got != "order-fraud-rules" {
		t.Errorf("job without a consumer file: %q", got)
	}
	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(`section[aria-labelledby="h-observed"]`))) // the drift only
	if err != nil {
		t.Fatal(err)
	}
	docScreenshot(t, "lineage-drift.png", png) // docs/lineage.md shows it
	navigate("follow the consumer file", chromedp.Click(chromedp.CSS(`#h-never + p + div table tbody a[href*="#consumer-"]`)))
	if got := text("h1"); !strings.Contains(got, "orders.order-created-value") {
		t.Errorf("after the consumer file's link: %q", got)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844)); err != nil {
		t.Fatal(err)
	}
	navigate("the lineage page on a phone", chromedp.Navigate(srv.URL+"/lineage"))
	if fits, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth`)); err != nil || !fits {
		t.Errorf("on a phone the lineage page is wider than the window: %v %v", fits, err)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("the page logged errors in the browser:\n%s", strings.Join(errs, "\n"))
	}
}
