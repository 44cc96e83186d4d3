// Package openlineage reads OpenLineage run events (https://openlineage.io/spec) and
// keeps what they say about Kafka topics: which jobs read and write which topics, and,
// from the columnLineage dataset facet, which fields. Pure: bytes in, data out.
package openlineage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// RunEvent is the part of an OpenLineage RunEvent this package uses.
type RunEvent struct {
	EventType string    `json:"eventType"`
	EventTime string    `json:"eventTime"`
	Producer  string    `json:"producer"`
	Run       *Run      `json:"run"`
	Job       *Job      `json:"job"`
	Inputs    []Dataset `json:"inputs"`
	Outputs   []Dataset `json:"outputs"`
}

// Run identifies a run.
type Run struct {
	RunID string `json:"runId"`
}

// Job names a job within a namespace.
type Job struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// Dataset is an input or output dataset with its facets.
type Dataset struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Facets    struct {
		ColumnLineage *ColumnLineage `json:"columnLineage"`
	} `json:"facets"`
}

// ColumnLineage is the columnLineage dataset facet of an output: for each output field
// the input fields it is made from, and (spec 1.1+) the input fields used indirectly
// (filters, joins, group keys) under "dataset".
type ColumnLineage struct {
	Fields map[string]struct {
		InputFields []InputField `json:"inputFields"`
	} `json:"fields"`
	Dataset []InputField `json:"dataset"`
}

// InputField is one input field of a column lineage.
type InputField struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Field     string `json:"field"`
}

// Validate checks that the names the specification requires of a RunEvent are there
// and not empty or blank (run.runId, job.namespace, job.name, eventTime, producer; namespace
// and name of every dataset) and the event types it allows. The schema (CheckSchema)
// checks more, but allows empty strings, which name nothing. An event over a budget
// (budget.go) is a *BudgetError.
func (e *RunEvent) Validate() error {
	var missing []string
	if e.Run == nil || e.Run.RunID == "" {
		missing = append(missing, "run.runId")
	}
	if e.Job == nil || strings.TrimSpace(e.Job.Namespace) == "" || strings.TrimSpace(e.Job.Name) == "" {
		missing = append(missing, "job.namespace and job.name")
	}
	if e.EventTime == "" {
		missing = append(missing, "eventTime")
	}
	if e.Producer == "" {
		missing = append(missing, "producer")
	}
	for i, d := range append(append([]Dataset{}, e.Inputs...), e.Outputs...) {
		if strings.TrimSpace(d.Namespace) == "" || strings.TrimSpace(d.Name) == "" {
			missing = append(missing, fmt.Sprintf("namespace and name of dataset %d", i+1))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the event lacks %s, which an OpenLineage RunEvent requires", strings.Join(missing, ", "))
	}
	switch e.EventType {
	case "", "START", "RUNNING", "COMPLETE", "ABORT", "FAIL", "OTHER":
	default:
		return fmt.Errorf("eventType %q is not an OpenLineage event type (START, RUNNING, COMPLETE, ABORT, FAIL, OTHER)", e.EventType)
	}
	return e.checkBudget()
}

// Parse reads one event: JSON that follows OpenLineage's JSON Schema for a RunEvent
// (CheckSchema; the error is then a *SchemaError) and names its job and datasets.
func Parse(data []byte) (RunEvent, error) {
	var e RunEvent
	if err := CheckSchema(data); err != nil {
		if errors.As(err, new(*SchemaError)) {
			return e, err
		}
		return e, fmt.Errorf("not an OpenLineage event: %w", err)
	}
	if err := json.Unmarshal(data, &e); err != nil {
		return e, fmt.Errorf("not an OpenLineage event: %w", err)
	}
	return e, e.Validate()
}

// ReadLines reads a JSON-lines file of run events; a line that does not parse or
// validate, or is over MaxLine, is an error naming its line.
func ReadLines(name string, r io.Reader) ([]RunEvent, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var out []RunEvent
	for n := 1; ; n++ {
		line, size, _, err := ReadLine(br, MaxLine)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read OpenLineage events %s: %w", name, err)
		}
		if size == 0 {
			return out, nil
		}
		if line == nil {
			return nil, fmt.Errorf("%s:%d: the line is over %d bytes, the budget of one event", name, n, MaxLine)
		}
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		e, err := Parse(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		out = append(out, e)
	}
}

// ReadLine reads up to and including the next newline: the line (nil when it is longer
// than max; the rest is read past), the bytes read, and whether it ended in a newline.
func ReadLine(br *bufio.Reader, max int) (line []byte, size int64, complete bool, err error) {
	over := false
	for {
		chunk, err := br.ReadSlice('\n')
		size += int64(len(chunk))
		if !over {
			line = append(line, chunk...)
			if len(line) > max+1 {
				line, over = nil, true
			}
		}
		switch {
		case err == nil:
			if line != nil {
				line = line[:len(line)-1]
			}
			return line, size, true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			if line == nil && !over {
				line = []byte{}
			}
			return line, size, false, err
		}
	}
}
