package web

import (
	"path"
	"strings"

	"github.com/contractbot/contractbot/internal/contract"
)

// rowCacheFormat is the layout of Pages.RowCache; a file of another layout is ignored
// and rewritten.
const rowCacheFormat = 1

// rowFile is the content of a row cache: what the pages' snapshot keeps of each
// subject folder of the last commit whose rows were read (its row's summary, as the
// loaded subject gives it, and the subjects its consumers produce), by the folder's
// Git tree hash, which covers every file the load of the folder reads. The folder's
// path is not part of it (a moved folder keeps its entry).
type rowFile struct {
	Format int
	ByTree map[string]cachedRow
}

// cachedRow is one folder's entry: Sum without its folder, domain and name; each
// consumer file that produces subjects, relative to the folder, with them.
type cachedRow struct {
	Sum      contract.Summary
	Produces map[string][]string
}

// readRows reads RowCache: nil when there is none or it cannot be used (a warning
// says why).
func (p *Pages) readRows() map[string]cachedRow {
	var f rowFile
	if p.RowCache == "" || !p.readCacheFile(p.RowCache, &f, rowCacheFormat, "the cached rows", "every subject folder") {
		return nil
	}
	return f.ByTree
}

func (f *rowFile) layout() int { return f.Format }

// addCached adds the subject of folder dir from its cached entry.
func (r *subjectRows) addCached(dir string, c cachedRow) {
	sum := c.Sum
	sum.Dir, sum.Domain, sum.Name = dir, path.Base(path.Dir(dir)), path.Base(dir)
	var outs []produce
	for file, subjects := range c.Produces {
		ref := producerRef{sum.Subject, dir + "/" + file}
		for _, out := range subjects {
			outs = append(outs, produce{out, ref})
		}
	}
	r.keep(sum, outs)
}

// saveRows writes RowCache with the entries of r's folders (before r.snapshot), each
// under its tree hash in trees.
func (p *Pages) saveRows(r *subjectRows, trees map[string]string) {
	f := rowFile{Format: rowCacheFormat, ByTree: make(map[string]cachedRow, len(r.sums))}
	for i, sum := range r.sums {
		h := trees[sum.Dir]
		if h == "" {
			continue
		}
		c := cachedRow{Sum: sum}
		c.Sum.Dir, c.Sum.Domain, c.Sum.Name = "", "", ""
		for _, o := range r.outs[i] {
			if c.Produces == nil {
				c.Produces = map[string][]string{}
			}
			file := strings.TrimPrefix(o.ref.file, sum.Dir+"/")
			c.Produces[file] = append(c.Produces[file], o.out)
		}
		f.ByTree[h] = c
	}
	p.writeCacheFile(p.RowCache, f, "the rows", "every subject folder")
}
