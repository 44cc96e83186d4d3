package publish

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/events"
	"github.com/contractbot/contractbot/internal/registry"
	"github.com/contractbot/contractbot/internal/versions"
)

// history makes the example repository with three more commits on the branch:
// a breaking Protobuf change to an imported file (pull request 12, squashed), a level
// change alone (pull request 7, merged), and a commit that touches no contract.
func history(t *testing.T) (string, *git.Repository, plumbing.Hash) {
	t.Helper()
	dir, repo := exampleRepo(t)
	edit(t, filepath.Join(dir, "contracts/common/money/money.proto"), "  int32 nanos = 3;\n", "  reserved 3;\n")
	commit(t, repo, "Drop Money.nanos (#12)", 1)
	edit(t, filepath.Join(dir, "contracts/orders/order-created/contract.yaml"), "compatibility: BACKWARD_TRANSITIVE", "compatibility: FULL_TRANSITIVE")
	commit(t, repo, "Merge pull request #7 from acme/full\n\nTighten the level.", 2)
	edit(t, filepath.Join(dir, "contracts/orders/order-created/contract.yaml"), "Source of the whole", "The source of the whole")
	head := commit(t, repo, "Reword a description", 3)
	return dir, repo, head
}

type run struct {
	reg    *fakeRegistry
	events string
	state  string
}

func newRun(t *testing.T) *run {
	d := t.TempDir()
	return &run{reg: newFakeRegistry(), events: filepath.Join(d, "events.jsonl"), state: filepath.Join(d, "published.json")}
}

// publish runs a publisher; wrap may replace its sink and marker to inject failures.
func (r *run) publish(t *testing.T, repo *git.Repository, head plumbing.Hash, wrap func(*Publisher)) ([]Summary, error) {
	t.Helper()
	sink, err := events.OpenFile(r.events)
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	m, err := OpenFileMarker(r.state)
	if err != nil {
		t.Fatal(err)
	}
	p := &Publisher{Repo: repo, Registry: r.reg, Sink: sink, Marker: m, Source: "https://github.com/acme/contracts"}
	if wrap != nil {
		wrap(p)
	}
	return p.Publish(context.Background(), head)
}

func TestPublishHistory(t *testing.T) {
	_, repo, head := history(t)
	r := newRun(t)
	sums, err := r.publish(t, repo, head, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 4 {
		t.Fatalf("%d commits published, want 4", len(sums))
	}
	if n := len(sums[0].Published); n != 13 {
		t.Errorf("first commit published %d subjects, want the 13 of the example tree", n)
	}
	// Referenced subjects come before the subjects that import them.
	pos := map[string]int{}
	for i, it := range sums[0].Published {
		pos[it.Subject] = i
	}
	if pos["common.money-value"] > pos["payments.payment-authorized-value"] {
		t.Errorf("common.money-value must be registered before its importer: %v", pos)
	}
	if got := sums[1].Published; len(got) != 1 || got[0].Subject != "common.money-value" || got[0].Version != 2 || got[0].LevelOnly {
		t.Errorf("the money change published %+v, want common.money-value version 2", got)
	}
	if got := sums[2].Published; len(got) != 1 || got[0].Subject != "orders.order-created-value" || !got[0].LevelOnly || got[0].Level != "FULL_TRANSITIVE" {
		t.Errorf("the level change published %+v", got)
	}
	if len(sums[3].Published) != 0 {
		t.Errorf("a description change published %+v", sums[3].Published)
	}
	if refs := r.reg.refs["payments.payment-authorized-value"]; len(refs) != 1 ||
		refs[0] != (registry.Reference{Name: "common/money/money.proto", Subject: "common.money-value", Version: 1}) {
		t.Errorf("payments' references %+v, want common/money/money.proto -> common.money-value version 1", refs)
	}
	if r.reg.levels["orders.order-created-value"] != "FULL_TRANSITIVE" {
		t.Errorf("level in the registry: %q", r.reg.levels["orders.order-created-value"])
	}
	if v := r.reg.versions(); v["common.money-value"] != 2 || v["orders.order-created-value"] != 1 {
		t.Errorf("registry versions %v", v)
	}

	evs := readEvents(t, r.events)
	if len(evs) != 15 {
		t.Fatalf("%d events, want 15", len(evs))
	}
	money := evs[13]
	if money.Subject != "common.money-value" || money.Data.Class != "BREAKING" || money.Data.Previous == nil || money.Data.Previous.Version != 1 {
		t.Errorf("money event %+v", money.Data)
	}
	if money.Data.PullRequest == nil || money.Data.PullRequest.Number != 12 {
		t.Errorf("pull request %+v, want 12", money.Data.PullRequest)
	}
	if len(money.Data.Changes) == 0 || len(money.Data.Affected) == 0 {
		t.Errorf("the breaking change carries no field changes or consumers: %+v", money.Data)
	}
	// The consumers read amount.nanos through the importing subject.
	affected := map[string]events.Consumer{}
	for _, a := range money.Data.Affected {
		affected[a.Name] = a
	}
	for _, name := range []string{"fraud-detector", "dwd-payment-detail"} {
		if a, ok := affected[name]; !ok || a.Subject != "payments.payment-authorized-value" || !a.Direct {
			t.Errorf("%s is not named as a direct consumer of the importer: %+v", name, money.Data.Affected)
		}
	}
	if a := affected["clickhouse-payment-detail"]; a.Direct || a.Hops != 1 {
		t.Errorf("the lineage consumer one hop away is missing: %+v", money.Data.Affected)
	}
	level := evs[14]
	if level.Data.PullRequest == nil || level.Data.PullRequest.Number != 7 || level.Data.Previous != nil || level.Data.Level != "FULL_TRANSITIVE" {
		t.Errorf("level event %+v", level.Data)
	}
	// The level change names the old level and every consumer of the subject, as
	// check does.
	if level.Data.OldLevel != "BACKWARD_TRANSITIVE" {
		t.Errorf("level event: old level %q, want BACKWARD_TRANSITIVE", level.Data.OldLevel)
	}
	var names []string
	for _, a := range level.Data.Affected {
		names = append(names, a.Name)
	}
	if !slices.Contains(names, "dwd-order-detail") || len(names) < 2 {
		t.Errorf("level event reaches %v, want every consumer of orders.order-created-value", names)
	}
	if money.ID != events.ID(sums[1].Commit, "common.money-value", 2) {
		t.Errorf("event id %s is not derived from commit, subject and version", money.ID)
	}

	// A second run has nothing to do.
	again, err := r.publish(t, repo, head, nil)
	if err != nil || len(again) != 0 {
		t.Errorf("rerun published %v (%v)", again, err)
	}
}

// TestPublishCrashes interrupts a publish at each step and reruns it: the registry
// ends with the same versions as an uninterrupted run, and the events sent are the
// same ids (some sent twice, none missing, a subject's in commit order).
func TestPublishCrashes(t *testing.T) {
	_, repo, head := history(t)
	clean := newRun(t)
	if _, err := clean.publish(t, repo, head, nil); err != nil {
		t.Fatal(err)
	}
	wantVersions := clean.reg.versions()
	wantIDs := ids(readEvents(t, clean.events))

	cases := []struct {
		name string
		wrap func(r *run) func(*Publisher)
	}{
		{"register answer lost", func(r *run) func(*Publisher) { r.reg.failAt["RegisterSchema"] = 3; return nil }},
		{"level not set", func(r *run) func(*Publisher) { r.reg.failAt["SetConfig"] = 12; return nil }},
		{"after register, before the event", func(r *run) func(*Publisher) {
			return func(p *Publisher) { p.Sink = &flakySink{Sink: p.Sink, failAt: 5} }
		}},
		{"after the money event, before the mark", func(r *run) func(*Publisher) {
			return func(p *Publisher) { p.Marker = &flakyMarker{Marker: p.Marker, failAt: 2} }
		}},
		{"after all events, before the last mark", func(r *run) func(*Publisher) {
			return func(p *Publisher) { p.Marker = &flakyMarker{Marker: p.Marker, failAt: 3} }
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRun(t)
			if _, err := r.publish(t, repo, head, tc.wrap(r)); err == nil {
				t.Fatal("the injected failure did not stop the run")
			}
			if _, err := r.publish(t, repo, head, nil); err != nil {
				t.Fatalf("rerun: %v", err)
			}
			if got := r.reg.versions(); !reflect.DeepEqual(got, wantVersions) {
				t.Errorf("registry versions %v, want %v", got, wantVersions)
			}
			evs := readEvents(t, r.events)
			if got := ids(evs); !reflect.DeepEqual(got, wantIDs) {
				t.Errorf("event ids differ from an uninterrupted run:\n got %v\nwant %v", got, wantIDs)
			}
			inOrder(t, evs)
		})
	}
}

// ids returns the distinct event ids, sorted.
func ids(evs []events.Event) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range evs {
		if !seen[e.ID] {
			seen[e.ID] = true
			out = append(out, e.ID)
		}
	}
	sort.Strings(out)
	return out
}

// inOrder checks that, once duplicates are dropped, each subject's events come in
// commit order.
func inOrder(t *testing.T, evs []events.Event) {
	t.Helper()
	last := map[string]string{}
	seen := map[string]bool{}
	for _, e := range evs {
		if seen[e.ID] {
			continue
		}
		seen[e.ID] = true
		if prev := last[e.Subject]; prev != "" && e.Time.Format("15:04") < prev {
			t.Errorf("%s: event of %s after one of %s", e.Subject, e.Time.Format("15:04"), prev)
		}
		last[e.Subject] = e.Time.Format("15:04")
	}
}

func TestPublishWithoutRegistry(t *testing.T) {
	_, repo, head := history(t)
	r := newRun(t)
	sums, err := r.publish(t, repo, head, func(p *Publisher) { p.Registry = nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 4 || len(readEvents(t, r.events)) != 15 || len(r.reg.calls) != 0 {
		t.Errorf("%d commits, events %d, registry calls %v", len(sums), len(readEvents(t, r.events)), r.reg.calls)
	}
	for _, it := range sums[1].Published {
		if it.RegisteredID != 0 {
			t.Errorf("registered id %d without a registry", it.RegisteredID)
		}
	}
}

func TestPublishIncremental(t *testing.T) {
	dir, repo, head := history(t)
	r := newRun(t)
	if _, err := r.publish(t, repo, head, nil); err != nil {
		t.Fatal(err)
	}
	edit(t, filepath.Join(dir, "contracts/common/money/money.proto"), "reserved 3;\n", "reserved 3;\n  string note = 4;\n")
	next := commit(t, repo, "Add Money.note (#13)", 4)
	sums, err := r.publish(t, repo, next, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 1 || len(sums[0].Published) != 1 || sums[0].Published[0].Version != 3 {
		t.Fatalf("published %+v, want common.money-value version 3 only", sums)
	}
	if evs := readEvents(t, r.events); len(evs) != 16 || evs[15].Data.Previous.Version != 2 {
		t.Errorf("%d events; last %+v", len(evs), evs[len(evs)-1].Data)
	}
}

func TestPublishIncompatible(t *testing.T) {
	_, repo, head := history(t)
	r := newRun(t)
	_, err := r.publish(t, repo, head, func(p *Publisher) { p.Registry = incompatible{r.reg} })
	if !registry.IsIncompatible(err) || !strings.Contains(err.Error(), "contractbot registry diff") {
		t.Fatalf("err %v", err)
	}
	if m, _ := OpenFileMarker(r.state); m != nil {
		if done, _ := m.Done(context.Background(), head.String()); done {
			t.Error("a commit was marked although its version was refused")
		}
	}
}

type incompatible struct{ *fakeRegistry }

func (i incompatible) RegisterSchema(context.Context, string, registry.Schema) (int, error) {
	return 0, &registry.Error{StatusCode: 409, Code: 409, Message: "Schema being registered is incompatible with an earlier schema"}
}

// TestPublishReusesIndex: an index kept between runs is extended, not rebuilt; one
// that is ahead of the work is replaced, with the same outcome.
func TestPublishReusesIndex(t *testing.T) {
	_, repo, head := history(t)
	c, err := repo.CommitObject(head)
	if err != nil {
		t.Fatal(err)
	}
	mid := c.ParentHashes[0] // the level change
	r := newRun(t)
	var kept *versions.Index
	if _, err := r.publish(t, repo, mid, func(p *Publisher) { p.Progress = func(Summary) { kept = p.Index } }); err != nil {
		t.Fatal(err)
	}
	if kept == nil || kept.Head != mid.String() {
		t.Fatalf("the first run left no index at %s", mid)
	}
	var used *versions.Index
	sums, err := r.publish(t, repo, head, func(p *Publisher) { p.Index = kept; p.Progress = func(Summary) { used = p.Index } })
	if err != nil || len(sums) != 1 || used != kept || kept.Head != head.String() {
		t.Fatalf("sums %v err %v; index reused %v, at %s", sums, err, used == kept, kept.Head)
	}

	// An index ahead of the work (at head, state empty) is replaced.
	fresh := newRun(t)
	ahead, err := versions.Build(repo, head)
	if err != nil {
		t.Fatal(err)
	}
	sums, err = fresh.publish(t, repo, head, func(p *Publisher) { p.Index = ahead })
	if err != nil || len(sums) != 4 || len(readEvents(t, fresh.events)) != 15 {
		t.Fatalf("with an index ahead: %d commits, err %v", len(sums), err)
	}
}

// TestPublishEventNamesContractChanges: a commit that changes only the data contract
// (a rule added, the tier changed) publishes a version whose event lists each change
// in changes, as check listed them, instead of "changes": [].
func TestPublishEventNamesContractChanges(t *testing.T) {
	dir, repo, head := history(t)
	r := newRun(t)
	if _, err := r.publish(t, repo, head, nil); err != nil {
		t.Fatal(err)
	}
	cy := filepath.Join(dir, "contracts/common/money/contract.yaml")
	edit(t, cy, "tier: core\n", "tier: standard\n")
	edit(t, cy, "fields:\n", "rules:\n  - name: units-positive\n    kind: CONDITION\n    type: CEL\n    mode: WRITE\n    expr: message.units >= 0\nfields:\n")
	next := commit(t, repo, "money: a rule, standard tier (#14)", 4)
	if _, err := r.publish(t, repo, next, nil); err != nil {
		t.Fatal(err)
	}
	evs := readEvents(t, r.events)
	last := evs[len(evs)-1].Data
	var got []string
	for _, c := range last.Changes {
		got = append(got, c.Kind+" "+c.Path+" "+c.Old+"->"+c.New+" "+c.Effect)
	}
	want := []string{
		"metadata-changed metadata.properties.tier core->standard harmless",
		"rule-added rules.units-positive ->WRITE CONDITION meaning",
	}
	if last.Subject != "common.money-value" || !slices.Equal(got, want) {
		t.Errorf("%s changes:\n%s\nwant:\n%s", last.Subject, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
