package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// complete runs cobra's hidden __complete command as a shell does and returns the
// candidates, without the directive line.
func complete(t *testing.T, args ...string) []string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := Main(append([]string{"__complete"}, args...), &out, &errb); code != 0 {
		t.Fatalf("__complete %v: exit %d: %s", args, code, errb.String())
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if line != "" && !strings.HasPrefix(line, ":") {
			got = append(got, strings.SplitN(line, "\t", 2)[0])
		}
	}
	return got
}

// TestCompletion: subjects, SUBJECT:FIELD paths, teams and enum flags complete from
// the example tree.
func TestCompletion(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"impact", "--repo", "../..", "orders.order-"},
			"orders.order-created-value orders.order-snapshot-value orders.order-status-changed-value"},
		{[]string{"impact", "--repo", "../..", "orders.order-created-value:product_info.detail."},
			"orders.order-created-value:product_info.detail.price orders.order-created-value:product_info.detail.sku orders.order-created-value:product_info.detail.title"},
		{[]string{"impact", "--repo", "../..", "no.such-value:x"}, ""},
		{[]string{"calendar", "--repo", "../..", "--team", "d"}, "data-warehouse"},
		{[]string{"calendar", "../..", "--team", "a"}, "accounts analytics"},
		{[]string{"lineage", "sync", "--repo", "../..", "--owner", "p"}, "payments platform"},
		{[]string{"sample", "--repo", "../..", "--topic", "ods_order_"}, "ods_order_events ods_order_snapshot ods_order_status_events"},
		{[]string{"lint", "-o", ""}, "text json github"},
		{[]string{"check", "--fail-on", ""}, "not-ready breaking"},
		{[]string{"impact", "--format", ""}, "text json"},
		{[]string{"compat", "--format", ""}, "avro protobuf json"},
		{[]string{"compat", "--level", ""}, "NONE BACKWARD FORWARD FULL BACKWARD_TRANSITIVE FORWARD_TRANSITIVE FULL_TRANSITIVE"},
		{[]string{"serve", "--log-level", ""}, "debug info warn error"},
		{[]string{"sample", "--sasl-mechanism", ""}, "PLAIN SCRAM-SHA-256 SCRAM-SHA-512"},
	}
	for _, c := range cases {
		if got := strings.Join(complete(t, c.args...), " "); got != c.want {
			t.Errorf("%v:\n got %q\nwant %q", c.args, got, c.want)
		}
	}
}

// TestCompletionEnums: every flag of the enum table exists and its usage names each
// value (so the table follows the flag), and every flag that picks from a fixed set
// (a format, a level, a mechanism, a kind) completes.
func TestCompletionEnums(t *testing.T) {
	root := New()
	byPath := map[string]*cobra.Command{}
	walk(root, func(c *cobra.Command) { byPath[strings.TrimPrefix(c.CommandPath(), "contractbot ")] = c })
	unlisted := map[string]bool{"lineage sync --kind": true} // ConsumerKinds: nine, in docs/contract-format.md
	for path, flags := range flagEnums() {
		c := byPath[path]
		if c == nil {
			t.Errorf("no command %q", path)
			continue
		}
		for name, values := range flags {
			f := c.Flags().Lookup(name)
			if f == nil {
				t.Errorf("%s has no --%s", path, name)
				continue
			}
			if unlisted[path+" --"+name] {
				continue
			}
			for _, v := range values {
				if !strings.Contains(f.Usage, v) {
					t.Errorf("%s --%s: the usage %q does not name %q", path, name, f.Usage, v)
				}
			}
		}
	}
	enumLike := func(name string) bool {
		for _, s := range []string{"format", "level", "mechanism", "kind", "fail-on", "rules"} {
			if strings.HasSuffix(name, s) {
				return true
			}
		}
		return false
	}
	n := 0
	walk(root, func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Value.Type() != "string" || !enumLike(f.Name) {
				return
			}
			n++
			if _, ok := c.GetFlagCompletionFunc(f.Name); !ok {
				t.Errorf("%s --%s picks from a fixed set but does not complete", c.CommandPath(), f.Name)
			}
		})
	})
	if n < 15 {
		t.Errorf("%d flags pick from a fixed set, want at least 15", n)
	}
}
