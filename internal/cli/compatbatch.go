package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/contractbot/contractbot/checker"
)

// checkPair checks one pair; tests replace it to exercise the budget.
var checkPair = compatPair

// batchLineLimit caps one line of a --batch input and the schema bytes it names: a
// longer line gets an error result of its own and the batch goes on.
const batchLineLimit = 16 << 20

// batchSchema is one schema of a batch pair: its text, or the path of a file holding it.
type batchSchema struct {
	Path string  `json:"path,omitempty"`
	Text *string `json:"text,omitempty"`
}

// batchPair is one line of `compat --batch` input.
type batchPair struct {
	ID         string        `json:"id"`
	Format     string        `json:"format"`
	Level      string        `json:"level"`
	Rules      string        `json:"rules"`
	ProtoPaths []string      `json:"proto_paths"`
	Old        []batchSchema `json:"old"`
	New        *batchSchema  `json:"new"`
}

// batchResult is one line of `compat --batch` output: the pair's result, or its error.
type batchResult struct {
	ID    string `json:"id"`
	Line  int    `json:"line"`
	Error string `json:"error,omitempty"`
	*checker.Result
}

// runCompatBatch checks the pairs of in (JSON lines) one by one in this process and
// writes one result line per input line to out, in order. A line that cannot be
// checked gets an error result; the batch goes on. The exit code is 0 when every pair
// is compatible, 1 when some pair is incompatible and 2 when some line is unusable.
func runCompatBatch(in io.Reader, out io.Writer, budget time.Duration) error {
	r := bufio.NewReaderSize(in, 64<<10)
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	incompatible, unusable := false, false
	for n := 1; ; n++ {
		line, tooLong, err := readBatchLine(r)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("reading the batch: %w", err)
		}
		if errors.Is(err, io.EOF) && len(line) == 0 && !tooLong {
			break
		}
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			res := checkBatchLine(n, line, tooLong, budget)
			switch {
			case res.Error != "":
				unusable = true
			case !res.Compatible:
				incompatible = true
			}
			if res.Result != nil {
				if res.Findings == nil {
					res.Findings = []checker.Finding{}
				}
				if res.Changes == nil {
					res.Changes = []checker.Change{}
				}
			}
			if err := enc.Encode(res); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	switch {
	case unusable:
		return &ExitError{Code: 2}
	case incompatible:
		return &ExitError{Code: 1}
	}
	return nil
}

// readBatchLine reads one line without its newline; past batchLineLimit it discards
// the rest of the line and reports tooLong.
func readBatchLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > batchLineLimit {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// checkBatchLine checks one pair within budget.
func checkBatchLine(n int, line []byte, tooLong bool, budget time.Duration) batchResult {
	res := batchResult{Line: n}
	if tooLong {
		res.Error = fmt.Sprintf("line %d: longer than %d MiB; split the schemas into files and pass their paths", n, batchLineLimit>>20)
		return res
	}
	var p batchPair
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		res.Error = fmt.Sprintf("line %d: not a pair: %v; see `contractbot compat --help` for the shape", n, err)
		return res
	}
	res.ID = p.ID
	if p.ID == "" {
		res.ID = fmt.Sprint(n)
	}
	type outcome struct {
		res *checker.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- outcome{err: fmt.Errorf("internal error checking this pair: %v", v)}
			}
		}()
		r, err := checkPair(&p)
		done <- outcome{r, err}
	}()
	timer := time.NewTimer(budget)
	defer timer.Stop()
	select {
	case o := <-done:
		if o.err != nil {
			res.Error = fmt.Sprintf("line %d: %v", n, o.err)
		} else {
			res.Result = o.res
		}
	case <-timer.C:
		// The check goes on in the background; its result is dropped.
		res.Error = fmt.Sprintf("line %d: over the budget of %s; check this pair alone or raise --budget", n, budget)
	}
	return res
}

// compatPair resolves a pair's engine, level and schemas and checks it.
func compatPair(p *batchPair) (*checker.Result, error) {
	if p.New == nil {
		return nil, errors.New(`no "new" schema`)
	}
	level := p.Level
	if level == "" {
		level = string(checker.Backward)
	}
	lvl, err := checker.ParseLevel(level)
	if err != nil {
		return nil, err
	}
	olds := make([]checker.Input, len(p.Old))
	total := 0
	for i := range p.Old {
		in, err := batchInput(&p.Old[i], fmt.Sprintf("old[%d]", i), &total)
		if err != nil {
			return nil, err
		}
		olds[i] = in
	}
	newIn, err := batchInput(p.New, "new", &total)
	if err != nil {
		return nil, err
	}
	eng, err := compatEngine(p.Format, newIn.Path, p.Rules, p.ProtoPaths, keyWords)
	if err != nil {
		return nil, err
	}
	return eng.Compat(olds, newIn, checker.Options{Level: lvl, Rules: p.Rules, ImportPaths: p.ProtoPaths})
}

// batchInput reads one schema of a pair, counting its bytes against batchLineLimit.
func batchInput(s *batchSchema, name string, total *int) (checker.Input, error) {
	switch {
	case s.Text != nil && s.Path != "":
		return checker.Input{}, fmt.Errorf("%s: give \"text\" or \"path\", not both", name)
	case s.Text != nil:
		*total += len(*s.Text)
		return checker.Input{Path: name, Data: []byte(*s.Text)}, nil
	case s.Path == "":
		return checker.Input{}, fmt.Errorf("%s: give \"text\" or \"path\"", name)
	}
	f, err := os.Open(s.Path)
	if err != nil {
		return checker.Input{}, fmt.Errorf("%s: cannot read the schema: %w", s.Path, unwrapPathError(err))
	}
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(io.LimitReader(f, int64(batchLineLimit-*total)+1))
	if err != nil {
		return checker.Input{}, fmt.Errorf("%s: cannot read the schema: %w", s.Path, unwrapPathError(err))
	}
	*total += len(data)
	if *total > batchLineLimit {
		return checker.Input{}, fmt.Errorf("%s: the pair's schemas exceed %d MiB", s.Path, batchLineLimit>>20)
	}
	return checker.Input{Path: s.Path, Data: data}, nil
}
