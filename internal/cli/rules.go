package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/contractbot/contractbot/checker"
)

// ruleListing is one format's rule tables as `compat --list-rules --json` prints them.
type ruleListing struct {
	Format string      `json:"format"`
	Name   string      `json:"name"`
	Tables []ruleTable `json:"tables"`
}

type ruleTable struct {
	Name    string         `json:"name"`
	Applies string         `json:"applies"`
	Rules   []checker.Rule `json:"rules"`
}

// writeRules prints the rule tables of engines, in the table's order: per format a
// heading, then per table its name, when it applies, and one rule a line (id, purpose).
func writeRules(w io.Writer, engines []checker.Engine, asJSON bool) error {
	var list []ruleListing
	for _, e := range engines {
		d := e.Describe()
		l := ruleListing{Format: string(d.Format), Name: d.Name}
		for _, t := range e.RuleTables() {
			l.Tables = append(l.Tables, ruleTable{Name: t.Name, Applies: t.Applies, Rules: t.Rules})
		}
		list = append(list, l)
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for i, l := range list {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		fmt.Fprintf(tw, "%s (format: %s)\n", l.Name, l.Format)
		for _, t := range l.Tables {
			fmt.Fprintf(tw, "\n  %s\n  %s\n", t.Name, t.Applies)
			for _, r := range t.Rules {
				fmt.Fprintf(tw, "    %s\t%s\n", r.ID, r.Purpose)
			}
		}
	}
	return tw.Flush()
}
