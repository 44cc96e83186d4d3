package sample

import (
	"fmt"
	"sync"
)

// Known tells whether a schema registry knows a schema id; err when it could not be
// asked (the id then stays unknown-schema-id).
type Known func(id int) (bool, error)

// Sampler judges records of several topics and counts them per topic. With a
// registry (Known), an id the contract's history lacks but the registry knows becomes
// id-not-in-contract; each id is asked once.
type Sampler struct {
	judges map[string]*Judge
	order  []string
	known  Known

	mu      sync.Mutex
	tallies map[string]*Tally
	asked   map[int]bool
}

// NewSampler returns a sampler over the judges; known may be nil.
func NewSampler(judges []*Judge, known Known) *Sampler {
	s := &Sampler{judges: map[string]*Judge{}, known: known, tallies: map[string]*Tally{}, asked: map[int]bool{}}
	for _, j := range judges {
		s.judges[j.Topic] = j
		s.order = append(s.order, j.Topic)
	}
	return s
}

// Topics lists the sampler's topics in the judges' order.
func (s *Sampler) Topics() []string { return s.order }

// Add judges one record and counts it; a record of a topic the sampler does not judge
// is ignored (false).
func (s *Sampler) Add(rec Record) bool {
	j := s.judges[rec.Topic]
	if j == nil {
		return false
	}
	probs := j.Judge(rec)
	for i, p := range probs {
		if p.Kind == UnknownSchemaID && p.ID > 0 && s.registryKnows(p.ID) {
			probs[i].Kind = IDNotInContract
			probs[i].Detail = fmt.Sprintf("the message carries schema id %d, which the registry knows but the contract's history never had.", p.ID)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tallies[rec.Topic]
	if t == nil {
		t = NewTally(j)
		s.tallies[rec.Topic] = t
	}
	t.Add(rec, probs)
	return true
}

func (s *Sampler) registryKnows(id int) bool {
	if s.known == nil {
		return false
	}
	s.mu.Lock()
	known, ok := s.asked[id]
	s.mu.Unlock()
	if ok {
		return known
	}
	known, err := s.known(id)
	if err != nil {
		known = false
	}
	s.mu.Lock()
	s.asked[id] = known
	s.mu.Unlock()
	return known
}

// Note records what limited the reading of a topic.
func (s *Sampler) Note(topic, note string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.judges[topic]
	if j == nil {
		return
	}
	t := s.tallies[topic]
	if t == nil {
		t = NewTally(j)
		s.tallies[topic] = t
	}
	t.Note(note)
}

// Result returns the counts of every topic (only those that had records or a note
// when onlySeen).
func (s *Sampler) Result(onlySeen bool) *Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &Result{Topics: []TopicResult{}}
	for _, topic := range s.order {
		t := s.tallies[topic]
		if t == nil {
			if onlySeen {
				continue
			}
			t = NewTally(s.judges[topic])
		}
		r.Topics = append(r.Topics, t.Result())
	}
	return r
}
