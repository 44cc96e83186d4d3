package web

import (
	"html"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// Hostile names: what a pull request (or whoever posts lineage events, or the bot's
// source of pull requests) may put where a name goes. long is 70,000 characters.
var (
	long      = strings.Repeat("long", 17_500)
	longText  = strings.Repeat("text ", 14_000) // a description of 70,000 characters
	hostileRL = "evil\u202etxt.exe"             // shows as "evilexe.txt" where the override acts
	hostileZW = "amo\u200bunt"                  // looks like "amount"
	script    = `<script>alert(1)</script>`
)

// longSubject is the subject the hostile tree adds, a name of 70,000 characters.
var longSubject = "orders." + long + "-value"

// hostileNames puts hostile names in every place the pages show one: JSON Schema
// property names (the only schema names that may hold any character), a field of
// 70,000 characters, a consumer's reads, a subject, topic and consumer of 70,000
// characters, a team's name, a calendar entry's title and notes.
func hostileNames(t *testing.T, dir string) {
	edit(t, dir, "contracts/orders/order-snapshot/order_snapshot.json", `"properties": {
    "order_id": {"type": "string"},`, `"properties": {
    "order_id": {"type": "string"},
    "`+strings.ReplaceAll(script, "/", `\/`)+`": {"type": "string", "description": "`+strings.ReplaceAll(script, "/", `\/`)+`"},
    "`+hostileRL+`": {"type": "string", "description": "right-to-left \u202eoverride"},
    "`+hostileZW+`": {"type": "integer"},
    "`+long+`": {"type": "string", "description": "`+longText+`"},`)
	edit(t, dir, "contracts/orders/order-snapshot/consumers/dwd-order-snapshot.yaml", "reads:\n", "reads:\n  - '"+script+"'\n  - '"+hostileRL+"'\n  - '"+hostileZW+"'\n  - "+long+"\n")
	edit(t, dir, "contracts/teams.yaml", "name: Order Platform", "name: '"+script+" \u202eOrder Platform "+long+"'")
	edit(t, dir, "calendar/2026-12-08-split-order-amount.yaml", "title: Split order amount", "title: "+script+" \u202eSplit "+long+" order amount")
	edit(t, dir, "calendar/2026-12-08-split-order-amount.yaml", "subjects: [orders.order-created-value,", "subjects: ["+longSubject+", orders.order-created-value,")
	write(t, dir, "contracts/orders/long/contract.yaml", `subject: `+longSubject+`
format: avro
schema: long.avsc
compatibility: BACKWARD
owner: orders
tier: standard
topic: ods_`+long+`
description: `+longText+`
`)
	write(t, dir, "contracts/orders/long/long.avsc", `{"type": "record", "name": "Long", "namespace": "acme.orders", "fields": [
  {"name": "`+long+`", "type": "string", "doc": "`+longText+`"},
  {"name": "order_id", "type": "string"}
]}
`)
	write(t, dir, "contracts/orders/long/consumers/long.yaml", `name: `+long+`
owner: orders
kind: flink-job
description: `+longText+`
reads: [`+long+`, order_id]
produces:
  dw.order-detail-value:
    order_id: [order_id]
`)
}

// hostileSource is a connected bot whose pull requests carry hostile titles and names.
func hostileSource() fakeSource {
	bad := script + " \u202e" + long
	return fakeSource{prs: []PullRequestStatus{{Repo: "acme/" + long, Number: 1, URL: "https://github.com/acme/contracts/pull/1", Title: bad, Class: "breaking",
		HeadSHA: "0123456789abcdef0123456789abcdef01234567", EvaluatedAt: pagesNow.Add(-time.Hour), Subjects: []string{"orders.order-created-value", longSubject},
		Teams: []TeamSignOff{{Team: "orders", Status: SignOffPending, Deadline: pagesNow.Add(time.Hour)}, {Team: long, Status: SignOffApproved, ApprovedBy: long}}}}}
}

// TestPagesHostileNames serves every page of a tree full of hostile names and checks,
// page by page, against the same page of the example tree: it is served; no markup
// of a name survives; outside a schema's text no name shows more than 200 of its
// characters (links keep the whole name, so attributes are not counted); no
// bidirectional override and no zero-width character is left to act; and no section
// of the page is dropped.
func TestPagesHostileNames(t *testing.T) {
	obs := &fakeObserved{}
	e := adaptedEvent(t, "spark-order-fraud-rules-complete.json")
	e.Job.Name = script + long
	obs.events = append(obs.events, e, adaptedEvent(t, "flink-dwd-order-detail-complete.json"))
	plainSrv := allPagesServer(t, fakeSignOffs())
	srv := servePages(t, exampleRepo(t, orderCreatedV2, hostileNames), hostileSource(), obs)

	pages := append(slices.Clone(everyPage), "/subjects/orders.order-snapshot-value", "/teams/orders",
		"/calendar?view=week&date=2026-12-08&team=orders", "/subjects?q=long")
	for _, p := range pages {
		resp, body := get(t, srv, p)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", p, resp.StatusCode)
			continue
		}
		hostileChecks(t, p, body)
		_, want := get(t, plainSrv, p)
		if got, want := sections(body), sections(want); !slices.Equal(got, want) {
			t.Errorf("GET %s: sections %v, want those of the example tree's page %v", p, got, want)
		}
	}
	resp, body := get(t, srv, subjectHref(longSubject))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the page of a subject named with 70,000 characters: %d", resp.StatusCode)
	}
	hostileChecks(t, "the long subject's page", body)
	if got := sections(body); !slices.Equal(got, []string{"h-fields", "h-lineage", "h-consumers", "h-schema", "h-versions", "h-open", "h-calendar"}) {
		t.Errorf("the long subject's page has sections %v", got)
	}
	// The names are there, shortened: the field table, the consumer, the heading.
	// "orders." and 192 characters, "…"; its part after the dot shortened to 40.
	shown := `<span title="orders.` + strings.Repeat("long", 48) + `…">orders.<wbr>` + strings.Repeat("long", 9) + "lon…</span>"
	if !strings.Contains(body, "<h1>"+shown+"</h1>") {
		t.Errorf("the long subject's heading is not shortened with its title: %s", regexp.MustCompile(`<h1>.*</h1>`).FindString(body))
	}
	if _, body := get(t, srv, "/subjects/orders.order-snapshot-value"); !strings.Contains(body, `<code>evil\u202etxt.<wbr>exe</code>`) ||
		!strings.Contains(body, `<code>amo\u200bunt</code>`) || !strings.Contains(body, "<code>&lt;script&gt;alert(1)&lt;/<wbr>script&gt;</code>") {
		t.Errorf("the snapshot's field table does not show the hostile names inert")
	}
}

// hostileChecks fails the test for what a hostile name left in a page.
func hostileChecks(t *testing.T, page, body string) {
	t.Helper()
	if i := strings.Index(body, "<script"); i >= 0 {
		t.Errorf("%s: unescaped markup at %q", page, body[max(0, i-40):min(len(body), i+60)])
	}
	shown := html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(outsidePre(body), ""))
	if i := strings.Index(shown, strings.Repeat("long", 51)); i >= 0 {
		t.Errorf("%s: a name shows more than 200 of its characters: %q", page, shown[max(0, i-100):i+20])
	}
	for _, r := range []string{"\u202e", "\u200b"} {
		if i := strings.Index(outsidePre(body), r); i >= 0 {
			t.Errorf("%s: %+q is left to act: %q", page, r, outsidePre(body)[max(0, i-100):i+20])
		}
	}
}

// sections are the ids of a page's sections, in order.
func sections(body string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<section aria-labelledby="([^"]+)"`).FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}
