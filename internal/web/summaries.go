package web

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/atomicfile"
	"github.com/contractbot/contractbot/internal/contract"
)

// summaryCacheFormat is the layout of Pages.SummaryCache; a file of another layout is
// ignored and rewritten.
const summaryCacheFormat = 1

// summaryFile is the content of a summary cache: the catalog's summary of each
// subject folder of the last commit summarised, by the folder's Git tree hash (which
// covers contract.yaml and the names in consumers/, all that a summary reads). The
// folder's path is not part of it: a moved folder keeps its summary, under its new
// path.
type summaryFile struct {
	Format int
	ByTree map[string]contract.Summary
}

// summaries returns the catalog's summaries of the subject folders at head: from
// SummaryCache for every folder whose tree is the one it recorded, read from the
// repository for the others; the cache is then rewritten with the folders of head.
func (p *Pages) summaries(head plumbing.Hash) ([]contract.Summary, error) {
	src, err := contract.NewGitSource(p.Tree.Repo, head.String())
	if err != nil {
		return nil, err
	}
	if p.SummaryCache == "" {
		return contract.Summaries(src)
	}
	dirs, trees, err := contract.SubjectDirTrees(src)
	if err != nil {
		return nil, err
	}
	cached := p.readSummaries()
	out := make([]contract.Summary, 0, len(dirs))
	var missing []string
	for _, dir := range dirs {
		s, ok := cached[trees[dir]]
		if !ok || trees[dir] == "" {
			missing = append(missing, dir)
			continue
		}
		s.Dir, s.Domain, s.Name = dir, path.Base(path.Dir(dir)), path.Base(dir)
		out = append(out, s)
	}
	if len(missing) == 0 && len(cached) == len(dirs) {
		return out, nil
	}
	read, err := contract.SummariesOf(src, missing)
	if err != nil {
		return nil, err
	}
	out = append(out, read...)
	f := summaryFile{Format: summaryCacheFormat, ByTree: make(map[string]contract.Summary, len(out))}
	for _, s := range out {
		if h := trees[s.Dir]; h != "" {
			s.Dir, s.Domain, s.Name = "", "", ""
			f.ByTree[h] = s
		}
	}
	p.writeCacheFile(p.SummaryCache, f, "the catalog's summaries", "every contract.yaml")
	return out, nil
}

// writeCacheFile writes v to file (gob, atomically), or warns that the next start
// reads instead: what is cached, what a start reads without it.
func (p *Pages) writeCacheFile(file string, v any, what, instead string) {
	var buf bytes.Buffer
	err := gob.NewEncoder(&buf).Encode(v)
	if err == nil {
		err = atomicfile.Write(file, buf.Bytes())
	}
	if err != nil {
		p.Log.Warn("pages: could not save "+what+"; the next start reads "+instead, "file", file, "err", err)
	}
}

// cacheFile is the content of a cache file of the pages: its layout says whether
// this build reads it.
type cacheFile interface{ layout() int }

func (f *summaryFile) layout() int { return f.Format }

// readCacheFile decodes file into f when it is there and of layout want: false when
// there is none or it cannot be used (a warning says why and that the start reads
// instead).
func (p *Pages) readCacheFile(file string, f cacheFile, want int, what, instead string) bool {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err == nil {
		err = gob.NewDecoder(bytes.NewReader(data)).Decode(f)
	}
	if err == nil && f.layout() != want {
		err = fmt.Errorf("the file has layout %d, this build reads %d", f.layout(), want)
	}
	if err != nil {
		p.Log.Warn("pages: ignoring "+what+"; reading "+instead, "file", file, "err", err)
		return false
	}
	return true
}

// readSummaries reads SummaryCache: nil when there is none or it cannot be used (a
// warning says why).
func (p *Pages) readSummaries() map[string]contract.Summary {
	var f summaryFile
	if !p.readCacheFile(p.SummaryCache, &f, summaryCacheFormat, "the cached summaries", "every contract.yaml") {
		return nil
	}
	return f.ByTree
}
