package web

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromium finds Debian's Chromium. Without it a local run skips the browser tests,
// saying how to install it; CI (CI=true) fails instead, so the tests never silently
// stop running there.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const how = "Chromium is not installed; install it to run the browser tests: sudo apt-get install -y chromium (Debian/Ubuntu)"
	if os.Getenv("CI") == "true" {
		t.Fatal(how + " (CI=true: the browser tests must run in CI; .ci/run installs it)")
	}
	t.Skip(how)
	return ""
}

// browser starts headless Chromium and returns a tab context, with every console
// error and uncaught exception of the tab collected in errs.
func browser(t *testing.T) (ctx context.Context, errs func() []string) {
	t.Helper()
	path := chromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // start the browser and open the tab
		t.Fatalf("start Chromium (%s): %v", path, err)
	}
	var mu sync.Mutex
	var found []string
	if err := chromedp.Listen(ctx, func(ev any) {
		var msg string
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			msg = "uncaught exception: " + e.ExceptionDetails.Text
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
				msg = fmt.Sprintf("console.%s", e.Type)
			}
		case *log.EventEntryAdded:
			if e.Entry != nil && e.Entry.Level == log.EntryLevelError {
				msg = "console error: " + e.Entry.Text + " " + e.Entry.URL
			}
		}
		if msg != "" {
			mu.Lock()
			found = append(found, msg)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	return ctx, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), found...) }
}

// tab is a test's browser tab, with the steps the browser tests take.
type tab struct {
	t   *testing.T
	ctx context.Context
}

// text is the text of the first element sel matches, trimmed.
func (b tab) text(sel string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		b.t.Fatalf("text of %s: %v", sel, err)
	}
	return strings.TrimSpace(s)
}

// navigate runs steps that load a new page and waits for it; anything but a 200 fails
// the test.
func (b tab) navigate(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	resp, err := chromedp.RunResponse(b.ctx, steps...)
	if err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
	if resp.Status != 200 {
		b.t.Fatalf("%s: HTTP %d for %s", what, resp.Status, resp.URL)
	}
}

// screenshot saves a PNG a test took, for a person to look at: in
// $CONTRACTBOT_ARTIFACTS (CI keeps them), else in the test's temporary folder.
func screenshot(t *testing.T, name string, png []byte) {
	t.Helper()
	saveScreenshot(t, os.Getenv("CONTRACTBOT_ARTIFACTS"), name, png)
}

// docScreenshot saves a PNG that the docs show: under docs/img with -update, else as
// screenshot does.
func docScreenshot(t *testing.T, name string, png []byte) {
	t.Helper()
	dir := os.Getenv("CONTRACTBOT_ARTIFACTS")
	if *update {
		dir = filepath.Join("..", "..", "docs", "img")
	}
	saveScreenshot(t, dir, name, png)
}

func saveScreenshot(t *testing.T, dir, name string, png []byte) {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
}

func TestBrowserCatalogToSubjectAndDiff(t *testing.T) {
	ctx, consoleErrors := browser(t)
	srv := pagesServer(t, exampleRepo(t, orderCreatedV2))
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	text, navigate := tab{t, ctx}.text, tab{t, ctx}.navigate

	do("viewport", chromedp.EmulateViewport(1280, 900))
	navigate("open the catalog", chromedp.Navigate(srv.URL+"/"))
	if got := text("#count"); !strings.HasPrefix(got, "Showing 1–13 of 13 subjects") {
		t.Errorf("catalog count: %q", got)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, "catalog.png", png)

	do("type a search", chromedp.SendKeys(chromedp.CSS("#q"), "order-created"))
	navigate("submit the search", chromedp.Submit(chromedp.CSS("#q")))
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	if !strings.Contains(loc, "q=order-created") {
		t.Errorf("the search is not in the URL (not shareable): %s", loc)
	}
	if got := text("#count"); !strings.HasPrefix(got, "Showing 1–2 of 2 subjects (of 13") {
		t.Errorf("filtered count: %q", got)
	}

	navigate("follow the subject link", chromedp.Click(chromedp.CSS(`table.catalog a[href="/subjects/orders.order-created-value"]`)))
	if got := text("h1"); got != "orders.order-created-value" {
		t.Errorf("subject page heading: %q", got)
	}
	if got, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(".node-self text"))); err != nil || got != "orders.order-created-value" {
		t.Errorf("lineage graph: the subject's node says %q (%v)", got, err)
	}
	png, err = chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, "subject.png", png)
	png, err = chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(`section[aria-labelledby="h-lineage"]`)))
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, "lineage.png", png)

	navigate("open the diff", chromedp.Click(chromedp.CSS(`a[href$="?diff=1..2#diff"]`)))
	do("the diff shows", chromedp.WaitVisible(chromedp.CSS("#diff .add")))
	if got := text("#diff h3"); got != "Diff v1 → v2" {
		t.Errorf("diff heading: %q", got)
	}
	if got := text("#diff .add"); !strings.Contains(got, "{") && !strings.Contains(got, "sales_region") {
		t.Errorf("first added line: %q", got)
	}

	navigate("follow a lineage node", chromedp.Click(chromedp.CSS(`svg a[href="/subjects/dw.order-detail-value"]`)))
	if got := text("h1"); got != "dw.order-detail-value" {
		t.Errorf("after the lineage link: heading %q", got)
	}

	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("the pages logged errors in the browser:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserCalendarTeamAndSignOffs follows the header to the calendar, moves a
// month, follows an entry's team, and opens the sign-offs, on a phone and a desktop.
func TestBrowserCalendarTeamAndSignOffs(t *testing.T) {
	ctx, consoleErrors := browser(t)
	srv := pagesServerWith(t, exampleRepo(t), fakeSignOffs())
	text, navigate := tab{t, ctx}.text, tab{t, ctx}.navigate
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		screenshot(t, name, png)
	}

	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	navigate("open the catalog", chromedp.Navigate(srv.URL+"/"))
	navigate("follow Calendar in the header", chromedp.Click(chromedp.CSS(`header nav a[href="/calendar"]`)))
	if got := text("h1"); got != "Calendar" {
		t.Errorf("calendar heading: %q", got)
	}
	if got := text(".lead"); !strings.HasPrefix(got, "December 2026") { // the month of pagesNow
		t.Errorf("calendar month: %q", got)
	}
	navigate("open December", chromedp.Navigate(srv.URL+"/calendar?view=month&date=2026-12-01"))
	if got := text(`td.today .day .wide`); got != "1" {
		t.Errorf("today's cell: %q", got)
	}
	shot("calendar-month.png")
	navigate("next month", chromedp.Click(chromedp.CSS(`a[rel="next"]`)))
	if got := text(".lead"); !strings.HasPrefix(got, "January 2027") {
		t.Errorf("after Next month: %q", got)
	}
	navigate("previous month", chromedp.Click(chromedp.CSS(`a[rel="prev"]`)))
	navigate("follow an entry's team", chromedp.Click(chromedp.CSS(`table.month .item.entry a[href="/teams/orders"]`)))
	if got := text("h1"); got != "Order Platform (orders)" {
		t.Errorf("team heading: %q", got)
	}
	if got := text("#h-waiting + div table tbody th a"); got != "acme/contracts#57" {
		t.Errorf("what waits on orders: %q", got)
	}
	shot("team-orders.png")
	navigate("follow Sign-offs in the header", chromedp.Click(chromedp.CSS(`header nav a[href="/signoffs"]`)))
	if got := text("table.signoffs tbody tr th a"); got != "acme/contracts#57" {
		t.Errorf("first pull request on the sign-off page: %q, want the overdue #57", got)
	}
	shot("signoffs.png")

	// On a phone the month is a list of the days that have something.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844)); err != nil {
		t.Fatal(err)
	}
	navigate("open the month on a phone", chromedp.Navigate(srv.URL+"/calendar?view=month&date=2026-12-01"))
	visible, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`getComputedStyle(document.querySelector("table.month thead")).display === "none"`))
	if err != nil || !visible {
		t.Errorf("on a phone the month's weekday header should be hidden (a list of days): %v %v", visible, err)
	}
	shot("calendar-month-phone.png")

	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("the pages logged errors in the browser:\n%s", strings.Join(errs, "\n"))
	}
}
