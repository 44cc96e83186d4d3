package checker

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/contractbot/contractbot/internal/inert"
)

// WriteText prints a result the way a compiler prints errors: one finding a line,
// `file:line:col: RULE message`, then the field changes, then a one-line summary.
func WriteText(w io.Writer, r *Result) error {
	for _, f := range r.Findings {
		against := ""
		if f.Against > 0 {
			against = fmt.Sprintf(" (against version %d)", f.Against)
		}
		if _, err := fmt.Fprintf(w, "%s:%d:%d: %s %s%s\n", inert.Terminal(f.File), f.Line, f.Column, f.Rule, inert.Terminal(f.Message), against); err != nil {
			return err
		}
	}
	if len(r.Changes) > 0 {
		fmt.Fprintln(w, "changes:")
		for _, c := range r.Changes {
			loc := ""
			if c.Line > 0 {
				loc = fmt.Sprintf(" (%s:%d:%d)", inert.Terminal(c.File), c.Line, c.Column)
			}
			fmt.Fprintf(w, "  %-22s %-10s %s%s\n", c.Kind, c.Effect, inert.Terminal(inert.Name(c.Path)), loc)
		}
	}
	verdict := "compatible"
	if !r.Compatible {
		verdict = fmt.Sprintf("incompatible: %d finding(s)", len(r.Findings))
	}
	_, err := fmt.Fprintf(w, "%s: %s, %d field change(s)\n", r.Level, verdict, len(r.Changes))
	return err
}

// WriteJSON prints a result as indented JSON, with empty lists rather than null.
func WriteJSON(w io.Writer, r *Result) error {
	out := *r
	if out.Findings == nil {
		out.Findings = []Finding{}
	}
	if out.Changes == nil {
		out.Changes = []Change{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
