package avro

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/checker"
)

// loadFixture reads testdata/previous/<name>*.avsc (oldest first) and
// testdata/current/<name>.avsc.
func loadFixture(t *testing.T, name string) ([]checker.Input, checker.Input) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "previous", name+"*.avsc"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no previous versions for fixture %q", name)
	}
	sort.Strings(paths)
	var prev []checker.Input
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		prev = append(prev, checker.Input{Path: filepath.ToSlash(strings.TrimPrefix(p, "testdata/")), Data: data})
	}
	cur := filepath.Join("testdata", "current", name+".avsc")
	data, err := os.ReadFile(cur)
	if err != nil {
		t.Fatal(err)
	}
	return prev, checker.Input{Path: "current/" + name + ".avsc", Data: data}
}

// findingKey pins what a finding must be, without its message text.
func findingKey(f checker.Finding) string {
	return fmt.Sprintf("%s %s:%d:%d %s %s v%d", f.Rule, f.File, f.Line, f.Column, f.Path, f.Direction, f.Against)
}

func changeKey(c checker.Change) string {
	s := fmt.Sprintf("%s %s %s %s:%d:%d", c.Kind, c.Path, c.Effect, c.File, c.Line, c.Column)
	if c.OldPath != "" {
		s += " from " + c.OldPath
	}
	return s
}

func TestCheckFixtures(t *testing.T) {
	tests := []struct {
		fixture string
		level   checker.Level
		want    []string
	}{
		{"orders", checker.Backward, []string{
			"TYPE_MISMATCH current/orders.avsc:7:25 user_id backward v1",
			"MISSING_ENUM_SYMBOLS current/orders.avsc:9:67 status backward v1",
			"TYPE_MISMATCH current/orders.avsc:10:24 coupon backward v1",
			"TYPE_MISMATCH current/orders.avsc:16:31 product_info.detail.price backward v1",
			"FIXED_SIZE_MISMATCH current/orders.avsc:20:67 checksum backward v1",
			"READER_FIELD_MISSING_DEFAULT_VALUE current/orders.avsc:22:5 channel backward v1",
		}},
		{"orders", checker.Forward, []string{
			"TYPE_MISMATCH current/orders.avsc:8:24 amount forward v1",
			"TYPE_MISMATCH current/orders.avsc:16:31 product_info.detail.price forward v1",
			"FIXED_SIZE_MISMATCH current/orders.avsc:20:67 checksum forward v1",
			"READER_FIELD_MISSING_DEFAULT_VALUE previous/orders.avsc:17:13 product_info.detail.weight_g forward v1",
		}},
		{"orders", checker.None, nil},
		{"tree", checker.Full, []string{
			"TYPE_MISMATCH current/tree.avsc:7:46 meta forward v1",
			"READER_FIELD_MISSING_DEFAULT_VALUE current/tree.avsc:8:5 weight backward v1",
		}},
		// Non-transitive: only the latest version (2) counts, which has a default for source.
		{"history", checker.Full, []string{
			"MISSING_ENUM_SYMBOLS current/history.avsc:3:61 kind forward v2",
		}},
		{"history", checker.FullTransitive, []string{
			"MISSING_ENUM_SYMBOLS current/history.avsc:3:61 kind forward v1",
			"MISSING_ENUM_SYMBOLS current/history.avsc:3:61 kind forward v2",
			"READER_FIELD_MISSING_DEFAULT_VALUE current/history.avsc:4:3 source backward v1",
		}},
		{"history", checker.BackwardTransitive, []string{
			"READER_FIELD_MISSING_DEFAULT_VALUE current/history.avsc:4:3 source backward v1",
		}},
		{"history", checker.Backward, nil},
		{"evolve", checker.Full, []string{
			"TYPE_MISMATCH current/evolve.avsc:3:31 weight forward v1",
			"READER_FIELD_MISSING_DEFAULT_VALUE current/evolve.avsc:11:5 tracking.id backward v1",
			"TYPE_MISMATCH current/evolve.avsc:13:46 tags forward v1",
			"MISSING_UNION_BRANCH current/evolve.avsc:14:21 value backward v1",
			"MISSING_UNION_BRANCH current/evolve.avsc:14:38 value forward v1",
			"MISSING_ENUM_SYMBOLS current/evolve.avsc:15:61 mode forward v1",
			"READER_FIELD_MISSING_DEFAULT_VALUE previous/evolve.avsc:5:3 address forward v1",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture+"/"+string(tt.level), func(t *testing.T) {
			prev, cur := loadFixture(t, tt.fixture)
			res, err := Compat(prev, cur, checker.Options{Level: tt.level})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range res.Findings {
				got = append(got, findingKey(f))
				if f.Message == "" || f.Pointer == "" && f.Path != "" {
					t.Errorf("finding without message or pointer: %+v", f)
				}
				// A person must learn which field it is about.
				if f.Path != "" && !strings.Contains(f.Message, fmt.Sprintf("%q", f.Path)) {
					t.Errorf("message does not name field %q: %s", f.Path, f.Message)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(tt.want, "\n     "))
			}
			if res.Compatible != (len(tt.want) == 0) {
				t.Errorf("Compatible = %v with %d findings", res.Compatible, len(tt.want))
			}
		})
	}
}

func TestDiffFixtures(t *testing.T) {
	tests := []struct {
		fixture string
		want    []string
	}{
		{"orders", []string{
			"promoted amount meaning current/orders.avsc:8:24",
			"unit_changed amount meaning current/orders.avsc:8:40",
			"added channel meaning current/orders.avsc:22:5",
			"fixed_size_changed checksum breaking current/orders.avsc:20:67",
			"default_removed coupon meaning current/orders.avsc:10:5",
			"nullability_changed coupon breaking current/orders.avsc:10:24",
			"logical_type_changed created_at meaning current/orders.avsc:21:28",
			"removed note breaking previous/orders.avsc:22:5",
			"type_changed product_info.detail.price breaking current/orders.avsc:16:31",
			"renamed product_info.detail.weight_grams breaking current/orders.avsc:17:14 from product_info.detail.weight_g",
			"enum_symbols_removed status breaking current/orders.avsc:9:67",
			"type_changed user_id breaking current/orders.avsc:7:25",
		}},
		{"tree", []string{
			"promoted meta meaning current/tree.avsc:7:46",
			"added weight meaning current/tree.avsc:8:5",
		}},
		{"history", []string{
			"enum_symbols_added kind meaning current/history.avsc:3:61",
			"default_removed source meaning current/history.avsc:4:3",
		}},
		{"evolve", []string{
			"renamed destination breaking current/evolve.avsc:5:4 from address",
			"renamed destination.city breaking current/evolve.avsc:6:6 from address.city",
			"renamed destination.zip breaking current/evolve.avsc:7:6 from address.zip",
			"doc_changed id harmless current/evolve.avsc:2:36",
			"default_changed mode meaning current/evolve.avsc:15:97",
			"enum_symbols_added mode meaning current/evolve.avsc:15:61",
			"logical_type_changed price meaning current/evolve.avsc:4:21",
			"promoted tags meaning current/evolve.avsc:13:46",
			"added tracking.id meaning current/evolve.avsc:11:5",
			"promoted value meaning current/evolve.avsc:14:21",
			"union_branches_changed value breaking current/evolve.avsc:14:21",
			"default_added weight meaning current/evolve.avsc:3:73",
			"nullability_changed weight meaning current/evolve.avsc:3:22",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			prev, cur := loadFixture(t, tt.fixture)
			res, err := Compat(prev, cur, checker.Options{Level: checker.None})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range res.Changes {
				got = append(got, changeKey(c))
				if c.Message == "" {
					t.Errorf("change without message: %+v", c)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("changes:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(tt.want, "\n     "))
			}
		})
	}
}

// A field moved into a nested record is reported as moved, keyed by its new path.
func TestDiffMoved(t *testing.T) {
	old := mustParse(t, "old.avsc", []byte(`{"type":"record","name":"R","fields":[
  {"name":"price","type":"double"},
  {"name":"detail","type":{"type":"record","name":"D","fields":[{"name":"sku","type":"string"}]}}]}`))
	next := mustParse(t, "new.avsc", []byte(`{"type":"record","name":"R","fields":[
  {"name":"detail","type":{"type":"record","name":"D","fields":[{"name":"sku","type":"string"},
    {"name":"price","type":"double"}]}}]}`))
	var got []string
	for _, c := range Diff(old, next) {
		got = append(got, changeKey(c))
	}
	want := []string{"moved detail.price breaking new.avsc:3:5 from price"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Every rule in the table has an id, a purpose and a message.
func TestRuleTable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range ruleTable() {
		if r.id == "" || r.purpose == "" || r.check == nil || r.message == nil || seen[r.id] {
			t.Errorf("incomplete or duplicate rule %q", r.id)
		}
		seen[r.id] = true
	}
	if len(Rules()) != 6 {
		t.Errorf("%d rules, want the 6 kinds of the reference implementation", len(Rules()))
	}
}
