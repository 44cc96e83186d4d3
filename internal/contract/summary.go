package contract

import (
	"errors"
	"io/fs"
	"runtime"
	"strings"
	"sync"
)

// Summary is what a catalog shows of a subject folder, read from its contract.yaml and
// the file names in consumers/ alone: no schema is parsed and no consumer file read, so
// a tree of 10,000 subjects is summarised in a fraction of a full Load. It is not
// checked beyond what decoding needs; Load is the reference.
type Summary struct {
	Dir, Domain, Name string
	Subject, Format   string
	Compatibility     string
	Owner, Tier       string
	Topic             string
	Description       string
	// PII counts the fields: entries marked pii: true.
	PII int
	// Consumers are the consumer names, from the file names in consumers/.
	Consumers []string
}

// Summaries reads every subject folder of src, in folder order; a folder whose
// contract.yaml cannot be read or names no subject is left out. The error is for
// failures of the source itself.
func Summaries(src Source) ([]Summary, error) {
	dirs, err := SubjectDirs(src)
	if err != nil {
		return nil, err
	}
	return SummariesOf(src, dirs)
}

// SummariesOf is Summaries of the subject folders dirs (as SubjectDirs names them).
func SummariesOf(src Source, dirs []string) ([]Summary, error) {
	out := make([]Summary, len(dirs))
	ok := make([]bool, len(dirs))
	var mu sync.Mutex
	var first error
	work := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				s, found, err := summarise(src, dirs[i])
				if err != nil {
					mu.Lock()
					first = cmpErr(first, err)
					mu.Unlock()
					continue
				}
				out[i], ok[i] = s, found
			}
		}()
	}
	for i := range dirs {
		work <- i
	}
	close(work)
	wg.Wait()
	if first != nil {
		return nil, first
	}
	kept := out[:0]
	for i, s := range out {
		if ok[i] {
			kept = append(kept, s)
		}
	}
	return kept, nil
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// summarise reads one subject folder; found is false when it names no subject.
func summarise(src Source, dir string) (Summary, bool, error) {
	parts := strings.Split(dir, "/")
	s := Summary{Dir: dir, Domain: parts[1], Name: parts[2]}
	data, err := src.ReadFile(dir+"/"+ContractFile, MaxYAMLBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrSymlink) || errors.Is(err, ErrTooLarge) || errors.Is(err, fs.ErrInvalid) {
			return s, false, nil
		}
		return s, false, err
	}
	var ds Diagnostics
	f := &file{path: dir + "/" + ContractFile, diags: &ds}
	o := f.parse(data)
	if o == nil {
		return s, false, nil
	}
	h := decodeHead(o, s.Domain, s.Name)
	if h.Subject == "" {
		return s, false, nil
	}
	s.Subject, s.Format, s.Compatibility = h.Subject, h.Format, h.Compatibility
	s.Owner, _ = o.str("owner")
	s.Tier, _ = o.str("tier")
	if s.Tier == "" {
		s.Tier = "standard"
	}
	s.Topic, _ = o.str("topic")
	s.Description, _ = o.str("description")
	if fo := o.child("fields", "fields"); fo != nil {
		for _, name := range fo.names() {
			if fm := fo.child(name, name); fm != nil {
				if pii, _ := fm.boolean("pii"); pii {
					s.PII++
				}
			}
		}
	}
	entries, err := src.ReadDir(dir + "/" + ConsumersDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, ErrSymlink) && !errors.Is(err, fs.ErrInvalid) {
		return s, false, err
	}
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name, ".yaml"); ok && !e.Dir && !e.Symlink {
			s.Consumers = append(s.Consumers, name)
		}
	}
	return s, true, nil
}
