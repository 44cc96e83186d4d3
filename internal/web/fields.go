package web

import (
	"net/url"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/contract"
)

// fieldRow is one row of a subject's fields table: what the schema says of the field
// (type, default, nullability, its doc), what contract.yaml adds (unit, PII, doc), and
// which consumers read it.
type fieldRow struct {
	Path  string
	Depth int
	// Described is false when the format's schema cannot describe its fields: the
	// row then has the path and contract.yaml's metadata only.
	Described bool
	Info      checker.FieldInfo
	Meta      contract.FieldMeta
	// Doc is contract.yaml's doc of the field, else the schema's.
	Doc     string
	Readers []reader
}

// reader is a consumer that reads a field: by its path or its parent's.
type reader struct{ Name, Href string }

// fieldsTable builds the rows of sub's fields table, in the schema's order when the
// format describes its fields (sorted paths otherwise), and the consumers that read
// every field ("*").
func fieldsTable(sub *contract.Subject) (rows []fieldRow, readsAll []reader) {
	var infos []checker.FieldInfo
	if s, err := sub.Schema(); err == nil && s != nil {
		if d, ok := s.(checker.FieldDescriber); ok {
			infos = d.DescribeFields()
		}
	}
	described := infos != nil
	if !described {
		for _, p := range sub.FieldPaths() {
			infos = append(infos, checker.FieldInfo{Path: p, Depth: strings.Count(p, ".")})
		}
	}
	for _, c := range sub.Consumers {
		for _, r := range c.Reads {
			if r == "*" {
				readsAll = append(readsAll, reader{c.Name, "#consumer-" + url.PathEscape(c.Name)})
				break
			}
		}
	}
	for _, fi := range infos {
		row := fieldRow{Path: fi.Path, Depth: min(fi.Depth, 4), Described: described, Info: fi, Meta: sub.Fields[fi.Path]}
		row.Doc = row.Meta.Doc
		if row.Doc == "" {
			row.Doc = fi.Doc
		}
		for _, c := range sub.Consumers {
			for _, r := range c.Reads {
				if r == fi.Path || strings.HasPrefix(fi.Path, r+".") {
					row.Readers = append(row.Readers, reader{c.Name, "#consumer-" + url.PathEscape(c.Name)})
					break
				}
			}
		}
		rows = append(rows, row)
	}
	return rows, readsAll
}
