package web

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/go-git/go-git/v5"
)

// TestREADMEScreenshots takes the README's pictures from what `contractbot serve
// --repo .` serves for this repository (the example tree at its root), at the commit
// checked out, without a bot and without lineage events, on 2026-12-01 (the clock
// pagesNow, so the calendar and the ages are those of the example's planned changes).
// It runs with -update only, and writes docs/img:
//
//	go test ./internal/web -run TestREADMEScreenshots -update
//
// Each picture is the window (1280 by 800 px, or a 390 by 844 px phone), or one part
// of the page, so none is larger than it needs to be.
func TestREADMEScreenshots(t *testing.T) {
	if !*update {
		t.Skip("takes the README's screenshots; run with -update")
	}
	repo, err := git.PlainOpenWithOptions("../..", &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		t.Fatalf("open this repository: %v", err)
	}
	srv := servePages(t, repo, nil, nil)
	// The health page's history part is computed after a first request.
	get(t, srv, "/report")
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if _, body := get(t, srv, "/report"); !strings.Contains(body, "Being computed") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the history audit did not finish within 2 minutes")
		}
	}

	ctx, consoleErrors := browser(t)
	b := window{tab{t, ctx}, srv.URL}
	for _, s := range []struct {
		file, path string
		vp         viewport
		part       string // a CSS selector: only that part of the page
	}{
		{"catalog.png", "/", viewport{"desktop", 1280, 800}, ""},
		{"subject.png", "/subjects/orders.order-created-value", viewport{"desktop", 1280, 800}, ""},
		{"lineage.png", "/subjects/orders.order-created-value", viewport{"desktop", 1280, 800}, `section[aria-labelledby="h-lineage"]`},
		{"calendar-month.png", "/calendar?view=month&date=2026-12-01", viewport{"desktop", 1280, 800}, ""},
		{"health.png", "/report", viewport{"desktop", 1280, 800}, ""},
		{"catalog-phone.png", "/", viewport{"phone", 390, 844}, ""},
		{"subject-phone.png", "/subjects/orders.order-created-value", viewport{"phone", 390, 844}, ""},
		{"job-state-phone.png", "/subjects/dw.order-detail-value", viewport{"phone", 390, 844}, "#consumer-dws-gmv-1min"},
		{"team-phone.png", "/teams/data-warehouse", viewport{"phone", 390, 844}, ""},
	} {
		b.resize(s.vp)
		b.open(s.path)
		shot := chromedp.CaptureScreenshot()
		if s.part != "" {
			shot = chromedp.Screenshot(chromedp.CSS(s.part))
		}
		png, err := chromedp.Run(ctx, shot)
		if err != nil {
			t.Fatalf("%s: %v", s.file, err)
		}
		docScreenshot(t, s.file, png)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("the pages logged errors in the browser: %v", errs)
	}
}
