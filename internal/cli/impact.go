package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/impact"
)

func newImpactCmd() *cobra.Command {
	var rf repoFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "impact SUBJECT[:FIELD.PATH]",
		Short: "Show who reads a subject or a field, directly and through lineage, as a tree",
		Long: `impact answers "who would a change here touch?": every consumer that reads the
subject (or the field, and fields under or above it), and through the produces lineage
of those consumers, the readers of every field derived from it, hop after hop.`,
		Example: `  contractbot impact orders.order-created-value:amount
  contractbot impact dws.gmv-1min-value --json`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeSubjectField,
		RunE: func(cmd *cobra.Command, args []string) error {
			subject, field, _ := strings.Cut(args[0], ":")
			src, err := rf.source()
			if err != nil {
				return err
			}
			index, err := contract.IndexSubjects(src)
			if err != nil {
				return err
			}
			dir, ok := index[subject]
			if !ok {
				names := make([]string, 0, len(index))
				for n := range index {
					names = append(names, n)
				}
				sort.Strings(names)
				return fmt.Errorf("no subject %q in the tree; subjects: %s", subject, strings.Join(names, ", "))
			}
			tree, err := contract.LoadSubjects(src, []string{dir}, index)
			if err != nil {
				return err
			}
			s := tree.Subject(subject)
			if s == nil {
				_ = writeDiagnostics(cmd.ErrOrStderr(), "text", tree)
				return fmt.Errorf("subject %s could not be loaded; fix its files first", subject)
			}
			if field != "" && !s.HasFieldPath(field) {
				return fmt.Errorf("%s has no field %q; its fields: %s", subject, field, firstPaths(s.FieldPaths(), 20))
			}
			affected := impact.Readers(tree, subject, field)
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				if affected == nil {
					affected = []impact.Affected{}
				}
				return enc.Encode(affected)
			}
			writeImpactTree(cmd.OutOrStdout(), tree, subject, field, affected)
			return nil
		},
	}
	rf.add(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the affected consumers as JSON")
	return cmd
}

// firstPaths lists at most n paths and counts the rest.
func firstPaths(paths []string, n int) string {
	if len(paths) <= n {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:n], ", "), len(paths)-n)
}

// node is a field of a subject in the printed tree: its readers, and for each reader
// the fields it derives from it.
type node struct {
	subject, field string
	readers        []reader
}

type reader struct {
	a       impact.Affected
	read    string
	derived []*node
}

// writeImpactTree prints the readers of subject:field as an indented tree.
func writeImpactTree(w io.Writer, tree *contract.Tree, subject, field string, affected []impact.Affected) {
	label := subject
	if field != "" {
		label += ":" + field
	}
	fmt.Fprintln(w, label)
	if len(affected) == 0 {
		fmt.Fprintln(w, "  nobody reads it")
		return
	}
	nodes := map[string]*node{}
	get := func(s, f string) *node {
		k := s + "\x00" + f
		if nodes[k] == nil {
			nodes[k] = &node{subject: s, field: f}
		}
		return nodes[k]
	}
	root := get(subject, field)
	linked := map[string]bool{}
	for _, a := range affected {
		for _, h := range a.Hits {
			last := h.Chain[len(h.Chain)-1]
			n := get(last.Subject, last.Field)
			if len(h.Chain) == 1 {
				n = root
			}
			n.readers = appendReader(n.readers, a, strings.Join(h.Reads, ", "))
			for i := 1; i < len(h.Chain); i++ {
				prev, cur := h.Chain[i-1], h.Chain[i]
				pn := get(prev.Subject, prev.Field)
				if i == 1 {
					pn = root
				}
				key := pn.subject + "\x00" + pn.field + "\x00" + cur.Via + "\x00" + cur.Subject + "\x00" + cur.Field
				if linked[key] {
					continue
				}
				linked[key] = true
				for ri := range pn.readers {
					if pn.readers[ri].a.Name == cur.Via {
						pn.readers[ri].derived = append(pn.readers[ri].derived, get(cur.Subject, cur.Field))
					}
				}
			}
		}
	}
	printNode(w, root, "")
}

func appendReader(rs []reader, a impact.Affected, read string) []reader {
	for _, r := range rs {
		if r.a.Name == a.Name && r.a.Subject == a.Subject {
			return rs
		}
	}
	return append(rs, reader{a: a, read: read})
}

func printNode(w io.Writer, n *node, indent string) {
	sort.Slice(n.readers, func(i, j int) bool { return n.readers[i].a.Name < n.readers[j].a.Name })
	for i, r := range n.readers {
		branch, next := "├── ", "│   "
		if i == len(n.readers)-1 {
			branch, next = "└── ", "    "
		}
		fmt.Fprintf(w, "%s%s%s (%s, team %s) reads %s\n", indent, branch, r.a.Name, r.a.Kind, r.a.Owner, r.read)
		sort.Slice(r.derived, func(i, j int) bool {
			return r.derived[i].subject+r.derived[i].field < r.derived[j].subject+r.derived[j].field
		})
		for j, d := range r.derived {
			b2, n2 := "├── ", "│   "
			if j == len(r.derived)-1 {
				b2, n2 = "└── ", "    "
			}
			fmt.Fprintf(w, "%s%s%sproduces %s.%s\n", indent+next, b2, "", d.subject, d.field)
			printNode(w, d, indent+next+n2)
		}
	}
}
