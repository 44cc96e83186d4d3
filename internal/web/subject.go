package web

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/report"
	"github.com/contractbot/contractbot/internal/versions"
)

type subjectPage struct {
	layout
	S *contract.Subject
	// Departing is the subject's topic in the topic sampler's last round, when its
	// messages departed from the contract; Sample names the round.
	Departing *report.Departing
	Sample    string
	Team      teamView
	Schema    template.HTML // the highlighter's output: escaped tokens in spans
	// SchemaLines counts the schema text's lines (the folded schema says it).
	SchemaLines int
	Fields      []fieldRow
	// ReadsAll are the consumers that read every field (reads: ["*"]).
	ReadsAll []reader
	// Versions newest first; Indexed is false when the versions index failed.
	Versions []versionRow
	Indexed  bool
	Diff     *diffView
	// DiffError explains a diff parameter that names no versions.
	DiffError string
	Consumers []consumerRow
	Graph     graph
	Entries   []*contract.Entry
	// Connected: a sign-off source is configured; Open are its pull requests that
	// change this subject.
	Connected bool
	Open      []PullRequestStatus
	OpenError string
}

type versionRow struct {
	versions.Version
	// DiffPrev links to the diff with the previous version ("" for version 1).
	DiffPrev string
}

type consumerRow struct {
	C        *contract.Consumer
	Team     teamView
	Anchor   string
	Produces []produced
	// State is the job's state and recoverability (nil without state:).
	State *jobState
}

type produced struct{ Subject, Href string }

type diffView struct {
	From, To int
	Lines    []diffLine
	Same     bool
}

// folderCacheSize bounds the subjects the pages keep loaded alone (subjectAt).
const folderCacheSize = 256

// folderKey names a subject's folder at a commit.
type folderKey struct {
	head plumbing.Hash
	dir  string
}

// subjectAt returns the subject named name at s's commit, schema parsed, loaded alone
// from its folder (contract.LoadSubject: a few milliseconds) and kept among the last
// folderCacheSize loaded: the pages keep no whole tree between requests. nil, nil
// when the commit has no such subject.
func (p *Pages) subjectAt(s *snapshot, name string) (*contract.Subject, error) {
	r := s.row(name)
	if r == nil {
		return nil, nil
	}
	p.mu.Lock()
	if p.folders == nil {
		p.folders, _ = lru.New[folderKey, *contract.Subject](folderCacheSize)
	}
	folders := p.folders
	p.mu.Unlock()
	key := folderKey{s.head, r.dir}
	if sub, ok := folders.Get(key); ok {
		return sub, nil
	}
	src, err := contract.NewGitSource(p.Tree.Repo, s.head.String())
	if err != nil {
		return nil, err
	}
	t, err := contract.LoadSubject(src, r.dir)
	if err != nil {
		return nil, err
	}
	sub := t.Subject(name)
	if sub == nil {
		return nil, fmt.Errorf("load subject %s: its folder %s names another subject", name, r.dir)
	}
	folders.Add(key, sub)
	return sub, nil
}

// withSchema returns sub with its schema: sub itself, or, when the tree was loaded
// without schemas (Tree.WithoutSchemas), the subject loaded alone at the snapshot's
// commit (subjectAt).
func (p *Pages) withSchema(s *snapshot, sub *contract.Subject) *contract.Subject {
	if !p.Tree.WithoutSchemas || p.Tree.Repo == nil {
		return sub
	}
	full, err := p.subjectAt(s, sub.Subject)
	if err == nil && full != nil {
		return full
	}
	p.Log.Warn("pages: the subject's schema could not be read; its page shows none", "subject", sub.Subject, "err", err)
	return sub
}

func (p *Pages) subject(w http.ResponseWriter, r *http.Request) {
	s, err := p.current()
	if err != nil {
		p.unavailable(w, err)
		return
	}
	name := r.PathValue("subject")
	sub, err := p.subjectAt(s, name)
	if err != nil {
		p.unavailable(w, err)
		return
	}
	if sub == nil {
		p.notFound(w, s, "subject "+strconv.Quote(name))
		return
	}
	// Without the bot the page is a function of the commit, the request and the
	// minute (planned changes that have ended drop off): served from memory.
	var sampled *report.Sampled
	gen := ""
	if p.Sampler != nil {
		sampled, gen = p.Sampler.Sampled()
	}
	key := ""
	if p.SignOffs == nil {
		key = s.pageKey(r, p.now().UTC().Format("2006-01-02T15:04")+"\x00"+gen)
		if p.serveCached(w, r, s, key) {
			return
		}
	}
	schema := sub // loaded alone, with its schema
	d := subjectPage{layout: s.frame(sub.Subject, "subject"), S: sub,
		Team: newTeamView(s.skeleton, sub.Owner), Schema: highlight(sub.Format, schema.SchemaText), Indexed: s.versions != nil}
	if sampled != nil {
		for i, dp := range sampled.Departing {
			if dp.Subject == sub.Subject {
				d.Departing, d.Sample = &sampled.Departing[i], sampled.Source
			}
		}
	}
	d.Fields, d.ReadsAll = fieldsTable(schema)
	d.SchemaLines = bytes.Count(schema.SchemaText, []byte("\n")) + 1
	vs := s.versions[sub.Subject]
	for i := len(vs) - 1; i >= 0; i-- {
		v := versionRow{Version: vs[i]}
		if i > 0 {
			v.DiffPrev = subjectHref(sub.Subject) + "?diff=" + strconv.Itoa(i) + ".." + strconv.Itoa(i+1) + "#diff"
		}
		d.Versions = append(d.Versions, v)
	}
	q := r.URL.Query()
	if q.Get("diff") != "" || q.Get("from") != "" {
		a, b, err := parseDiff(q.Get("diff"), q.Get("from"), q.Get("to"), len(vs))
		if err != nil {
			d.DiffError = err.Error()
		} else if dv, err := p.diff(vs[a-1], vs[b-1]); err != nil {
			p.Log.Error("pages: reading a schema version failed", "subject", sub.Subject, "err", err)
			d.DiffError = "the schema versions could not be read from the repository"
		} else {
			d.Diff = dv
		}
	}
	d.Graph = s.lineage(sub)
	now := p.now()
	for _, e := range s.skeleton.Entries { // sorted by start
		if e.End.After(now) && slices.Contains(e.Subjects, sub.Subject) {
			d.Entries = append(d.Entries, e)
		}
	}
	if p.SignOffs != nil {
		d.Connected = true
		prs, err := p.SignOffs.OpenPullRequests(r.Context())
		if err != nil {
			p.Log.Error("pages: reading the open pull requests failed", "err", err)
			d.OpenError = "The bot's state could not be read right now; try again in a minute."
		}
		for _, pr := range prs {
			if slices.Contains(pr.Subjects, sub.Subject) {
				d.Open = append(d.Open, pr)
			}
		}
	}
	unknown := ""
	switch {
	case !d.Connected:
		unknown = "The bot is not connected to this server, so the pending changes of open pull requests are not known here."
	case d.OpenError != "":
		unknown = "The bot's state could not be read right now, so the pending changes are not known; try again in a minute."
	}
	for _, c := range sub.Consumers {
		row := consumerRow{C: c, Team: newTeamView(s.skeleton, c.Owner), Anchor: "consumer-" + c.Name,
			State: p.newJobState(r.Context(), s, sub, c, d.Open, unknown, d.Entries)}
		for _, out := range sortedProduces(c) {
			row.Produces = append(row.Produces, produced{out, subjectHref(out)})
		}
		d.Consumers = append(d.Consumers, row)
	}
	if key != "" {
		p.renderCached(w, s, key, subjectTmpl, d)
		return
	}
	p.render(w, http.StatusOK, subjectTmpl, d)
}

func (p *Pages) diff(a, b versions.Version) (*diffView, error) {
	ta, err := p.Tree.ReadBlob(plumbing.NewHash(a.Blob))
	if err != nil {
		return nil, err
	}
	tb, err := p.Tree.ReadBlob(plumbing.NewHash(b.Blob))
	if err != nil {
		return nil, err
	}
	return &diffView{From: a.Version, To: b.Version, Lines: lineDiff(string(ta), string(tb)), Same: a.Blob == b.Blob}, nil
}

// teamView is a team as the pages show it; Known is false for an owner that
// teams.yaml does not list.
type teamView struct {
	ID, Name, Slack string
	GitHub          []string
	Known           bool
}

func newTeamView(tree *contract.Tree, id string) teamView {
	t := tree.Teams[id]
	if t == nil {
		return teamView{ID: id}
	}
	return teamView{ID: id, Name: t.Name, Slack: t.Slack, GitHub: t.GitHub, Known: true}
}
