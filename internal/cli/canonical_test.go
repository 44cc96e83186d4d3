package cli

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/publish/publishtest"
)

// Against a registry that stores Confluent's canonical forms: publish, then
// `registry diff` finds nothing; a layout-only commit (an Avro file re-indented with
// its attributes reordered, a .proto file's comments reworded) publishes no version
// and sends no event, and diff still finds nothing.
func TestPublishAndDiffAgainstCanonicalRegistry(t *testing.T) {
	dir, repo := exampleRepo(t)
	fake := publishtest.NewRegistry()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	state := filepath.Join(t.TempDir(), "state.json")
	eventsFile := filepath.Join(t.TempDir(), "events.jsonl")
	publish := []string{"publish", "--repo", dir, "--registry", srv.URL, "--events", "file:" + eventsFile, "--state", state}
	if out, errOut, code := runCLI(t, publish...); code != 0 {
		t.Fatalf("publish: exit %d: %s%s", code, out, errOut)
	}
	diff := []string{"registry", "diff", "--url", srv.URL, "--repo", dir}
	if out, errOut, code := runCLI(t, diff...); code != 0 || !strings.HasPrefix(out, "no drift") {
		t.Fatalf("diff after publish: exit %d:\n%s%s", code, out, errOut)
	}
	regs, events := fake.Registrations(), len(readEventLines(t, eventsFile))

	avsc := filepath.Join(dir, "contracts/orders/order-created/order_created.avsc")
	data, err := os.ReadFile(avsc)
	if err != nil {
		t.Fatal(err)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, data, "", "\t"); err != nil {
		t.Fatal(err)
	}
	relaid := strings.Replace(indented.String(), "\"type\": \"record\",\n\t\"name\": \"OrderCreated\",", "\"name\": \"OrderCreated\",\n\t\"type\": \"record\",", 1)
	if relaid == indented.String() {
		t.Fatal("the reordering did not apply")
	}
	if err := os.WriteFile(avsc, []byte(relaid), 0o644); err != nil {
		t.Fatal(err)
	}
	proto := filepath.Join(dir, "contracts/logistics/shipment-dispatched/shipment_dispatched.proto")
	edit(t, proto, "// A postal address.", "// A postal address, as the carrier prints it on the label.")
	commit(t, repo, "Re-indent order_created.avsc, reword a comment")

	out, errOut, code := runCLI(t, publish...)
	if code != 0 {
		t.Fatalf("publish of a layout-only commit: exit %d: %s%s", code, out, errOut)
	}
	if fake.Registrations() != regs || len(readEventLines(t, eventsFile)) != events {
		t.Errorf("a layout-only commit registered %d schema(s) and sent %d event(s):\n%s", fake.Registrations()-regs, len(readEventLines(t, eventsFile))-events, out)
	}
	publishGolden(t, "layout-only.txt", regexp.MustCompile(`[0-9a-f]{40}`).ReplaceAllString(out, "<commit>"), srv.URL, state, eventsFile)
	if out, errOut, code := runCLI(t, diff...); code != 0 || !strings.HasPrefix(out, "no drift") {
		t.Fatalf("diff after a layout-only commit: exit %d:\n%s%s", code, out, errOut)
	}
}
