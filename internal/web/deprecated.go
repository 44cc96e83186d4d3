package web

import (
	"cmp"
	"slices"
	"strings"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/report"
)

// deprecatedRow is a consumer's read of a deprecated field, as the health report and
// a team's page show it.
type deprecatedRow struct {
	report.DeprecatedRead
	Href, SubjectHref, TeamHref string
	// Since and RemoveAfter are days ("" when not set); Due: remove_after has passed.
	Since, RemoveAfter string
	Due                bool
}

func deprecatedRows(reads []report.DeprecatedRead, today string) []deprecatedRow {
	out := make([]deprecatedRow, 0, len(reads))
	for _, d := range reads {
		ref := newConsumerRef(d.Consumer)
		row := deprecatedRow{DeprecatedRead: d, Href: ref.Href, SubjectHref: ref.SubjectHref, TeamHref: ref.TeamHref}
		if !d.Since.IsZero() {
			row.Since = d.Since.UTC().Format("2006-01-02")
		}
		if !d.RemoveAfter.IsZero() {
			row.RemoveAfter = d.RemoveAfter.UTC().Format("2006-01-02")
			row.Due = row.RemoveAfter < today
		}
		out = append(out, row)
	}
	return out
}

// teamDeprecatedReads lists the reads of deprecated fields by the consumers team id
// owns, the soonest remove_after first (those without one last), then by subject,
// consumer and field.
func teamDeprecatedReads(tree *contract.Tree, id string) []report.DeprecatedRead {
	var out []report.DeprecatedRead
	for _, sub := range tree.Subjects {
		for _, c := range sub.Consumers {
			if c.Owner == id {
				out = append(out, report.DeprecatedReads(sub, c)...)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b report.DeprecatedRead) int {
		if a.RemoveAfter.IsZero() != b.RemoveAfter.IsZero() {
			if a.RemoveAfter.IsZero() {
				return 1
			}
			return -1
		}
		return cmp.Or(a.RemoveAfter.Compare(b.RemoveAfter), strings.Compare(a.Subject, b.Subject),
			strings.Compare(a.Name, b.Name), strings.Compare(a.Field, b.Field))
	})
	return out
}
