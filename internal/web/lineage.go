package web

import (
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/inert"
)

// Lineage limits: how far the graph follows produces links each way, and how many
// nodes a column may show (the rest are counted in a "+N more" note).
const (
	lineageHops      = 4
	lineageColumnMax = 12
)

// Layout of the lineage graph, in SVG user units, which the page draws one to a CSS
// pixel (a graph wider than its frame pans): a node holds labelRunes characters of
// 13 px monospace and a second line of 12 px text.
const (
	nodeW, nodeH = 240, 46
	colGap       = 44
	rowGap       = 12
	graphPad     = 10
	labelRunes   = 28
)

// graph is the lineage of one subject, laid out in columns: upstream subjects and the
// consumers that produce into them on the left, the subject in the middle, its
// consumers and what they produce on the right.
type graph struct {
	Width, Height int
	NodeW, NodeH  int
	Nodes         []node
	Edges         []edge
	// More notes columns cut at lineageColumnMax.
	More []string
}

type node struct {
	Key, Label, Title, Href, Kind string // Kind: subject | consumer | self
	// Meta is the node's second line: a consumer's kind and team, a subject's owner.
	Meta               string
	Col, Row           int
	X, Y, TextX, TextY int
	MetaY              int
}

type edge struct {
	X1, Y1, X2, Y2, C1, C2 int
	// Title says what flows along the edge, shown on hover: the fields a consumer
	// reads, or the output fields it computes from which inputs.
	Title string
}

func subjectHref(name string) string { return "/subjects/" + url.PathEscape(name) }

func consumerHref(c *contract.Consumer) string {
	return subjectHref(c.Subject) + "#consumer-" + url.PathEscape(c.Name)
}

// lineage walks produces links from the subject both ways and lays the nodes out.
// Columns are hops: even columns hold subjects, odd ones consumers. Inside a column
// nodes are sorted by label, so the picture is the same on every run.
func (s *snapshot) lineage(sub *contract.Subject) graph {
	cols := map[int][]node{}
	at := map[string]bool{}
	type link struct{ from, to string }
	var links []link
	titles := map[link]string{}
	add := func(col int, key, label, href, kind, title string) {
		if at[key] {
			return
		}
		at[key] = true
		meta := ""
		if kind == "consumer" {
			meta = title // "flink-job · data-warehouse"
			title = plainName(label) + " (" + plainName(title) + ")"
		} else {
			if o := s.row(label); o != nil {
				meta = o.Format + " · " + o.Owner
			}
			title = plainName(title)
		}
		cols[col] = append(cols[col], node{Key: key, Label: label, Title: title, Href: href, Kind: kind, Col: col, Meta: meta})
	}
	reads := func(c *contract.Consumer, x string) link {
		l := link{"s:" + x, "c:" + c.File}
		titles[l] = plainName(c.Name) + " reads " + plainName(x) + ": " + strings.Join(plainNames(c.Reads), ", ")
		return l
	}
	produces := func(c *contract.Consumer, out string) link {
		l := link{"c:" + c.File, "s:" + out}
		var fs []string
		for _, f := range slices.Sorted(maps.Keys(c.Produces[out])) {
			fs = append(fs, plainName(f)+" <- "+strings.Join(plainNames(c.Produces[out][f]), ", "))
		}
		titles[l] = plainName(c.Name) + " produces " + plainName(out) + ": " + strings.Join(fs, "; ")
		return l
	}
	add(0, "s:"+sub.Subject, sub.Subject, subjectHref(sub.Subject), "self", sub.Subject)

	// Downstream: the subject's consumers, what they produce, their consumers, ...
	frontier := []*contract.Subject{sub}
	for hop := 0; hop < lineageHops && len(frontier) > 0; hop++ {
		var next []*contract.Subject
		for _, x := range frontier {
			for _, c := range x.Consumers {
				ck := "c:" + c.File
				add(2*hop+1, ck, c.Name, consumerHref(c), "consumer", c.Kind+" · "+c.Owner)
				links = append(links, reads(c, x.Subject))
				for _, out := range sortedProduces(c) {
					sk := "s:" + out
					if !at[sk] {
						if o := s.subject(out); o != nil {
							next = append(next, o)
						}
					}
					add(2*hop+2, sk, out, subjectHref(out), "subject", out)
					links = append(links, produces(c, out))
				}
			}
		}
		frontier = next
	}
	// Upstream: the consumers that produce into the subject, the subjects they read, ...
	names := []string{sub.Subject}
	for hop := 0; hop < lineageHops && len(names) > 0; hop++ {
		var next []string
		for _, name := range names {
			for _, c := range s.producerConsumers(name) {
				ck := "c:" + c.File
				add(-2*hop-1, ck, c.Name, consumerHref(c), "consumer", c.Kind+" · "+c.Owner)
				links = append(links, produces(c, name))
				sk := "s:" + c.Subject
				if !at[sk] {
					next = append(next, c.Subject)
				}
				add(-2*hop-2, sk, c.Subject, subjectHref(c.Subject), "subject", c.Subject)
				links = append(links, reads(c, c.Subject))
			}
		}
		names = next
	}

	var g graph
	keys := make([]int, 0, len(cols))
	for c := range cols {
		keys = append(keys, c)
	}
	slices.Sort(keys)
	pos := map[string]node{}
	rows := 0
	for i, c := range keys {
		ns := cols[c]
		slices.SortFunc(ns, func(a, b node) int {
			if a.Kind == "self" {
				return -1
			}
			if b.Kind == "self" {
				return 1
			}
			return strings.Compare(a.Label+a.Key, b.Label+b.Key)
		})
		if len(ns) > lineageColumnMax {
			g.More = append(g.More, plural(len(ns)-lineageColumnMax, "more node")+" in column "+itoa(i+1)+" not drawn")
			ns = ns[:lineageColumnMax]
		}
		for r := range ns {
			n := &ns[r]
			n.Col, n.Row = i, r
			n.X = graphPad + i*(nodeW+colGap)
			n.Y = graphPad + r*(nodeH+rowGap)
			n.TextX, n.TextY, n.MetaY = n.X+8, n.Y+19, n.Y+37
			n.Label = inert.Shorten(inert.Visible(n.Label), labelRunes)
			n.Meta = inert.Shorten(inert.Visible(n.Meta), labelRunes+5)
			pos[n.Key] = *n
			g.Nodes = append(g.Nodes, *n)
		}
		rows = max(rows, len(ns))
	}
	seen := map[link]bool{}
	for _, l := range links {
		a, okA := pos[l.from]
		b, okB := pos[l.to]
		if !okA || !okB || seen[l] {
			continue
		}
		seen[l] = true
		x1, y1, x2, y2 := a.X+nodeW, a.Y+nodeH/2, b.X-2, b.Y+nodeH/2
		g.Edges = append(g.Edges, edge{X1: x1, Y1: y1, X2: x2, Y2: y2, C1: x1 + colGap/2, C2: x2 - colGap/2, Title: titles[l]})
	}
	g.Width = 2*graphPad + len(keys)*nodeW + max(0, len(keys)-1)*colGap
	g.Height = 2*graphPad + rows*nodeH + max(0, rows-1)*rowGap
	g.NodeW, g.NodeH = nodeW, nodeH
	return g
}

// producerConsumers returns the consumers that produce the subject name, sorted by
// file, from their subjects' folders (snapshot.subject); one that cannot be read is
// left out of the graph.
func (s *snapshot) producerConsumers(name string) []*contract.Consumer {
	var out []*contract.Consumer
	for _, ref := range s.producers[name] {
		sub := s.subject(ref.subject)
		if sub == nil {
			continue
		}
		for _, c := range sub.Consumers {
			if c.File == ref.file {
				out = append(out, c)
			}
		}
	}
	return out
}

func sortedProduces(c *contract.Consumer) []string {
	out := make([]string, 0, len(c.Produces))
	for k := range c.Produces {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func plainNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = plainName(n)
	}
	return out
}
