// Package olstore keeps the OpenLineage run events that serve receives at
// POST /api/v1/lineage (the path OpenLineage's HTTP transport posts to): in memory, and
// appended to a JSON-lines file when one is given, so that a restart keeps them.
// GET on the same path returns them as JSON lines, which lineage verify --url reads.
package olstore

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/contractbot/contractbot/internal/lineage/openlineage"
)

// Path is where OpenLineage's HTTP transport posts events.
const Path = "/api/v1/lineage"

// The store's budgets: MaxBody bounds one posted event (beyond, 413); MaxEvents and
// MaxBytes the events held, after older runs are superseded; MaxJobBytes the events
// of one job, so one producer cannot starve the others. An event over a budget first
// evicts its own job's runs begun before its run, oldest first (a job's new run
// always has room); when that is not enough it is refused (503).
const (
	MaxBody     = openlineage.MaxLine
	MaxEvents   = 100_000
	MaxBytes    = 32 << 20
	MaxJobBytes = 4 << 20
)

// Store holds the events received. Of each job it keeps the latest run that completed
// and the runs that began after it: a COMPLETE event supersedes the runs of its job
// that began before its run, which is what drift needs (what the job does now).
type Store struct {
	// Token is the bearer token a POST must carry (Authorization: Bearer). Without
	// one every POST is refused (403) unless Anyone is set: the operator's explicit
	// choice to take events from whoever reaches the server.
	Token  string
	Anyone bool

	log *slog.Logger

	mu     sync.Mutex
	path   string
	events []event
	bytes  int // of the events held
	// jobBytes is the bytes held per job.
	jobBytes map[jobKey]int
	budget   budget
	seen     map[key]bool
	// runs is the order in which each run with events held began (nextRun the
	// next's): a run whose events are all let go is forgotten, so the map is bounded
	// by the events held, not by every run ever seen.
	runs    map[runKey]int
	nextRun int
	latest  map[jobKey]int // the order of each job's latest completed run
	// latestStart is when each job's latest completed run began (its earliest event
	// held): an event of a forgotten run from before it is superseded, not a new run.
	latestStart map[jobKey]time.Time
	// gone are the last MaxEvents runs forgotten because a later run completed (in
	// the order forgotten, goneOrder): a late event of one is superseded whatever
	// its time says.
	gone      map[runKey]bool
	goneOrder []runKey
	// gen changes whenever the events held change.
	gen int
	// fileBytes is the size of the file's whole lines; newline says the file's last
	// line lacks its newline but is an event.
	fileBytes int64
	newline   bool
	// observed is what the events of generation observedGen say, kept for Observed.
	observed    []*openlineage.Observed
	observedGen int
}

// event is one event held: its compact JSON, what identifies it, its job and the
// order in which its run began.
type event struct {
	line []byte
	key  key
	job  jobKey
	run  int
}

// key identifies an event: OpenLineage clients retry, so the same event can arrive twice.
type key struct{ runID, eventType, eventTime, namespace, job string }

type jobKey struct{ namespace, name string }

type runKey struct {
	job jobKey
	id  string
}

func keyOf(e openlineage.RunEvent) key {
	return key{e.Run.RunID, e.EventType, e.EventTime, e.Job.Namespace, e.Job.Name}
}

// Open returns a store that persists to path ("" keeps events in memory only),
// loading the events already there. Lines of the file that are not events are logged
// and skipped (see load): a damaged file never stops serve.
func Open(path string, log *slog.Logger) (*Store, error) {
	return open(path, log, budget{MaxEvents, MaxBytes, MaxJobBytes})
}

// open is Open with a budget: the file is read under it, as the events were kept.
func open(path string, log *slog.Logger, b budget) (*Store, error) {
	s := &Store{path: path, seen: map[key]bool{}, runs: map[runKey]int{}, latest: map[jobKey]int{}, latestStart: map[jobKey]time.Time{},
		gone: map[runKey]bool{}, jobBytes: map[jobKey]int{}, observedGen: -1, log: log}
	s.budget = b
	if log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
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
	if err := s.load(f, s.log); err != nil {
		return nil, err
	}
	if s.wasteful() {
		if err := s.compact(); err != nil {
			log.Warn("the lineage events file could not be rewritten without the superseded runs; it is read as it is", "err", err)
		}
	}
	return s, nil
}

// budget is what the store may hold: MaxEvents, MaxBytes and MaxJobBytes (tests
// make them smaller).
type budget struct{ events, bytes, jobBytes int }

// outcome is what keep did with an event.
type outcome int

const (
	kept outcome = iota
	duplicate
	superseded
)

// runOf is the order in which e's run began (a new run's, should it be kept).
func (s *Store) runOf(e openlineage.RunEvent) (jobKey, int) {
	jk := jobKey{e.Job.Namespace, e.Job.Name}
	if run, ok := s.runs[runKey{jk, e.Run.RunID}]; ok {
		return jk, run
	}
	return jk, s.nextRun
}

// eventTime reads an event's eventTime (ISO 8601 with an offset, as the spec
// requires); false when it does not parse.
func eventTime(k key) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, k.eventTime)
	return t, err == nil
}

// check says what keep would do with e without doing it.
func (s *Store) check(e openlineage.RunEvent) outcome {
	if s.seen[keyOf(e)] {
		return duplicate
	}
	jk, run := s.runOf(e)
	if last, ok := s.latest[jk]; ok && run < last {
		return superseded
	}
	if s.gone[runKey{jk, e.Run.RunID}] {
		return superseded
	}
	if _, known := s.runs[runKey{jk, e.Run.RunID}]; !known {
		// A run forgotten once its events were let go, arriving late: one that began
		// before the latest completed run is superseded.
		if start, ok := s.latestStart[jk]; ok {
			if t, ok := eventTime(keyOf(e)); ok && t.Before(start) {
				return superseded
			}
		}
	}
	return kept
}

// keep holds an event unless the same one is held or a later run of its job has
// completed. A COMPLETE event drops the runs of its job that began before its own.
func (s *Store) keep(e openlineage.RunEvent, line []byte) outcome {
	if o := s.check(e); o != kept {
		return o
	}
	k := keyOf(e)
	jk, run := s.runOf(e)
	if run == s.nextRun {
		s.nextRun++
	}
	s.runs[runKey{jk, e.Run.RunID}] = run
	s.seen[k] = true
	s.events = append(s.events, event{line, k, jk, run})
	s.bytes += len(line)
	s.jobBytes[jk] += len(line)
	s.gen++
	if e.EventType == "COMPLETE" {
		if last, ok := s.latest[jk]; !ok || run > last {
			s.latest[jk] = run
			start, _ := eventTime(k)
			for _, ev := range s.events {
				if t, ok := eventTime(ev.key); ok && ev.job == jk && ev.run == run && t.Before(start) {
					start = t
				}
			}
			s.latestStart[jk] = start
			s.drop(func(ev event) bool { return ev.job == jk && ev.run < run })
		}
	}
	return kept
}

// drop lets go of the events held that match, and forgets the runs left with none.
func (s *Store) drop(match func(event) bool) {
	defer s.forgetEmptyRuns()
	s.events = slices.DeleteFunc(s.events, func(ev event) bool {
		if !match(ev) {
			return false
		}
		delete(s.seen, ev.key)
		s.bytes -= len(ev.line)
		if s.jobBytes[ev.job] -= len(ev.line); s.jobBytes[ev.job] <= 0 {
			delete(s.jobBytes, ev.job)
		}
		s.gen++
		return true
	})
}

// forgetEmptyRuns forgets the runs none of whose events is held.
func (s *Store) forgetEmptyRuns() {
	held := make(map[runKey]bool, len(s.runs))
	for _, ev := range s.events {
		held[runKey{ev.job, ev.key.runID}] = true
	}
	maps.DeleteFunc(s.runs, func(k runKey, run int) bool {
		if held[k] {
			return false
		}
		if last, ok := s.latest[k.job]; ok && run < last && !s.gone[k] {
			s.gone[k] = true
			s.goneOrder = append(s.goneOrder, k)
			if len(s.goneOrder) > s.budget.events {
				delete(s.gone, s.goneOrder[0])
				s.goneOrder = s.goneOrder[1:]
			}
		}
		return true
	})
}

// makeRoom makes room for an event of n bytes of job jk's run: while the job's
// budget or the store's would be passed, it evicts the job's oldest run begun before
// run. It returns the sentence to answer with when that is not enough.
func (s *Store) makeRoom(jk jobKey, run, n int) string {
	evictOldest := func() bool {
		oldest := -1
		for _, ev := range s.events {
			if ev.job == jk && ev.run < run && (oldest < 0 || ev.run < oldest) {
				oldest = ev.run
			}
		}
		if oldest < 0 {
			return false
		}
		s.drop(func(ev event) bool { return ev.job == jk && ev.run == oldest })
		return true
	}
	for s.jobBytes[jk]+n > s.budget.jobBytes {
		if !evictOldest() {
			return fmt.Sprintf("The event was not kept: the job %s holds %d bytes of events of this run and the runs begun after it, its budget being %d bytes (MaxJobBytes); a new run of the job makes room.", jk.namespace+"/"+jk.name, s.jobBytes[jk], s.budget.jobBytes)
		}
	}
	for len(s.events) >= s.budget.events || s.bytes+n > s.budget.bytes {
		if !evictOldest() {
			return fmt.Sprintf("The event was not kept: the store holds %d events (%d bytes) of %d jobs, its budget being %d events and %d bytes once older runs of each job are superseded by the latest completed one; a new run of a job makes room for itself, and other jobs keep theirs.", len(s.events), s.bytes, len(s.jobBytes), s.budget.events, s.budget.bytes)
		}
	}
	return ""
}

// Len is the number of events held.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.events)
}

// Observed returns what the events held say the jobs do, the number of events, and a
// generation that changes whenever an event is kept (the pages key their cache on it).
// It folds the events again only when new ones arrived.
func (s *Store) Observed() (generation, events int, jobs []*openlineage.Observed) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.observedGen != s.gen {
		evs := make([]openlineage.RunEvent, 0, len(s.events))
		for _, held := range s.events {
			var e openlineage.RunEvent
			if json.Unmarshal(held.line, &e) == nil && e.Job != nil { // each was validated when kept
				evs = append(evs, e)
			}
		}
		s.observed, s.observedGen = openlineage.Observe(evs), s.gen
	}
	return s.gen, len(s.events), s.observed
}

// ServeHTTP accepts one run event per POST (400 with the reason when it is not a valid
// one, and nothing kept; 200 when the same event is already held) and lists the events
// on GET.
func (s *Store) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		w.Header().Set("Content-Type", "application/x-ndjson")
		s.mu.Lock()
		events := s.events
		s.mu.Unlock()
		for _, held := range events {
			_, _ = w.Write(append(held.line, '\n'))
		}
	case http.MethodPost:
		s.post(w, r)
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "use POST to send an OpenLineage run event, GET to list them", http.StatusMethodNotAllowed)
	}
}

func (s *Store) post(w http.ResponseWriter, r *http.Request) {
	if s.Token == "" && !s.Anyone {
		http.Error(w, "The event was not kept: this server takes OpenLineage events only with a token, and none is set; start serve with CONTRACTBOT_LINEAGE_TOKEN (or --insecure-lineage-without-token to take events from anyone who reaches it).", http.StatusForbidden)
		return
	}
	if s.Token != "" && !bearer(r, s.Token) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="contractbot lineage"`)
		http.Error(w, "The event was not kept: this server takes OpenLineage events only with its token; set the HTTP transport's auth (type api_key) to it, which sends Authorization: Bearer <token>.", http.StatusUnauthorized)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		if errors.As(err, new(*http.MaxBytesError)) {
			http.Error(w, fmt.Sprintf("The event was not kept: it is over %d bytes, the budget of one event; leave out the facets contractbot does not read (only columnLineage is), or split the event.", MaxBody), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, fmt.Sprintf("the event could not be read: %v", err), http.StatusBadRequest)
		return
	}
	e, err := openlineage.Parse(body)
	if err != nil {
		http.Error(w, "The event was not kept: "+err.Error()+".", http.StatusBadRequest)
		return
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, body); err != nil {
		http.Error(w, "the body is not one JSON object: "+err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.check(e) {
	case duplicate, superseded:
		w.WriteHeader(http.StatusOK) // a client's retry, or a later run of the job has completed
		return
	}
	jk, run := s.runOf(e)
	if full := s.makeRoom(jk, run, compact.Len()); full != "" {
		w.Header().Set("Retry-After", "60")
		http.Error(w, full, http.StatusServiceUnavailable)
		return
	}
	if s.path != "" {
		// 201 only once the event is in the file, synced: a restart keeps it.
		if err := s.appendLine(compact.Bytes()); err != nil {
			s.log.Error("an OpenLineage event could not be kept in the file; the client is told to send it again", "err", err)
			http.Error(w, "The event was not kept: it could not be written to the events file; send it again.", http.StatusInternalServerError)
			return
		}
	}
	s.keep(e, compact.Bytes())
	if s.path != "" && s.wasteful() {
		_ = s.compact() // the events are kept either way; the next append tries again
	}
	w.WriteHeader(http.StatusCreated)
}

// bearer reports whether r carries Authorization: Bearer token (the scheme's name is
// case-insensitive, RFC 9110 section 11.1).
func bearer(r *http.Request, token string) bool {
	scheme, got, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	return ok && strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) == 1
}
