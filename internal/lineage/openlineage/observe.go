package openlineage

import "strings"

// Observed is what events say one job does with Kafka topics.
type Observed struct {
	// Namespace and Job name the job (OpenLineage's job.namespace and job.name).
	Namespace, Job string
	// Reads maps each input topic to the fields seen used (empty when the events carry
	// no column lineage for it).
	Reads map[string]map[string]bool
	// Produces maps output topic -> output field -> input "topic.field"s.
	Produces map[string]map[string]map[string]bool
	// Others are the job's datasets outside Kafka (a JDBC table, a
	// file, a Paimon table), as "name (namespace)": nothing a contract declares.
	Others map[string]bool
}

// IsKafka reports whether a dataset namespace is a Kafka cluster (kafka://host:port).
func IsKafka(namespace string) bool { return strings.HasPrefix(namespace, "kafka://") }

// Observe folds events into one Observed per job (namespace and name), in first-seen
// order.
func Observe(events []RunEvent) []*Observed {
	var out []*Observed
	byJob := map[Job]*Observed{}
	for _, e := range events {
		o := byJob[*e.Job]
		if o == nil {
			o = &Observed{Namespace: e.Job.Namespace, Job: e.Job.Name, Reads: map[string]map[string]bool{}, Produces: map[string]map[string]map[string]bool{}, Others: map[string]bool{}}
			byJob[*e.Job] = o
			out = append(out, o)
		}
		for _, in := range e.Inputs {
			switch {
			case !IsKafka(in.Namespace):
				o.Others[in.Name+" ("+in.Namespace+")"] = true
			case o.Reads[in.Name] == nil:
				o.Reads[in.Name] = map[string]bool{}
			}
		}
		for _, d := range e.Outputs {
			if !IsKafka(d.Namespace) {
				o.Others[d.Name+" ("+d.Namespace+")"] = true
			}
			cl := d.Facets.ColumnLineage
			if cl == nil {
				continue
			}
			for _, f := range cl.Dataset {
				o.read(f)
			}
			for outField, fl := range cl.Fields {
				for _, f := range fl.InputFields {
					if !o.read(f) || !IsKafka(d.Namespace) {
						continue
					}
					m := o.Produces[d.Name]
					if m == nil {
						m = map[string]map[string]bool{}
						o.Produces[d.Name] = m
					}
					if m[outField] == nil {
						m[outField] = map[string]bool{}
					}
					m[outField][f.Name+"."+f.Field] = true
				}
			}
		}
	}
	return out
}

// read records a Kafka input field; false when it is not one.
func (o *Observed) read(f InputField) bool {
	if !IsKafka(f.Namespace) || f.Field == "" {
		return false
	}
	if o.Reads[f.Name] == nil {
		o.Reads[f.Name] = map[string]bool{}
	}
	o.Reads[f.Name][f.Field] = true
	return true
}
