// Package olstore keeps the OpenLineage run events that serve receives at
// POST /api/v1/lineage (the path OpenLineage's HTTP transport posts to): in memory, and
// appended to a JSON-lines file when one is given, so that a restart keeps them.
// GET on the same path returns them as JSON lines, which lineage verify --url reads.
package olstore

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"

	"github.com/contractbot/contractbot/internal/lineage/openlineage"
)

// Path is where OpenLineage's HTTP transport posts events.
const Path = "/api/v1/lineage"

// MaxBody bounds one posted event; MaxEvents the events held (beyond, 503).
const (
	MaxBody   = openlineage.MaxLine
	MaxEvents = 100_000
)

// Store holds the events received.
type Store struct {
	mu    sync.Mutex
	path  string
	lines [][]byte // one compact JSON event each
	// observed is what the first observedN events say, kept for Observed.
	observed  []*openlineage.Observed
	observedN int
}

// Open returns a store that persists to path ("" keeps events in memory only),
// loading the events already there.
func Open(path string) (*Store, error) {
	s := &Store{path: path}
	if path == "" {
		return s, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open the lineage events file: %w", err)
	}
	defer func() { _ = f.Close() }() // read only
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), openlineage.MaxLine)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if _, err := openlineage.Parse(line); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		s.lines = append(s.lines, bytes.Clone(line))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("load the lineage events file: %w", err)
	}
	return s, nil
}

// Len is the number of events held.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.lines)
}

// Observed returns what the events held say the jobs do, the number of events, and a
// generation that changes whenever an event is kept (the pages key their cache on it).
// It folds the events again only when new ones arrived.
func (s *Store) Observed() (generation, events int, jobs []*openlineage.Observed) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.observedN != len(s.lines) || s.observed == nil {
		evs := make([]openlineage.RunEvent, 0, len(s.lines))
		for _, l := range s.lines {
			var e openlineage.RunEvent
			if json.Unmarshal(l, &e) == nil && e.Job != nil { // each was validated when kept
				evs = append(evs, e)
			}
		}
		s.observed, s.observedN = openlineage.Observe(evs), len(s.lines)
	}
	return len(s.lines), len(s.lines), s.observed
}

// ServeHTTP accepts one run event per POST (400 with the reason when it is not a valid
// one, and nothing kept) and lists the events on GET.
func (s *Store) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		w.Header().Set("Content-Type", "application/x-ndjson")
		s.mu.Lock()
		lines := s.lines
		s.mu.Unlock()
		for _, l := range lines {
			_, _ = w.Write(append(l, '\n'))
		}
	case http.MethodPost:
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
		if err != nil {
			http.Error(w, fmt.Sprintf("the event could not be read (at most %d bytes): %v", MaxBody, err), http.StatusBadRequest)
			return
		}
		if _, err := openlineage.Parse(body); err != nil {
			http.Error(w, "The event was not kept: "+err.Error()+".", http.StatusBadRequest)
			return
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, body); err != nil {
			http.Error(w, "the body is not one JSON object: "+err.Error(), http.StatusBadRequest)
			return
		}
		if s.Len() >= MaxEvents {
			http.Error(w, fmt.Sprintf("the store holds %d events, its limit; start serve with a fresh --lineage-events file", MaxEvents), http.StatusServiceUnavailable)
			return
		}
		if err := s.add(compact.Bytes()); err != nil {
			http.Error(w, "the event could not be kept; send it again", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusCreated)
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "use POST to send an OpenLineage run event, GET to list them", http.StatusMethodNotAllowed)
	}
}

func (s *Store) add(line []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.path != "" {
		f, err := os.OpenFile(s.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("keep a lineage event: %w", err)
		}
		if _, err := f.Write(append(bytes.Clone(line), '\n')); err != nil {
			_ = f.Close() // the write's error is the one to report
			return fmt.Errorf("keep a lineage event: %w", err)
		}
		if err := f.Sync(); err != nil {
			_ = f.Close() // the write's error is the one to report
			return fmt.Errorf("keep a lineage event: %w", err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("keep a lineage event: %w", err)
		}
	}
	s.lines = append(s.lines, line)
	return nil
}
