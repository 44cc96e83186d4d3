package contract

// OpenLineageJob is a consumer file's `openlineage:`: the OpenLineage job whose run
// events are this consumer's (lineage verify and the lineage page match a job to its
// consumer file through it). Without it, only a job named exactly as the consumer
// matches; Spark names its jobs <app>.<action> and Flink 2 insert-into_<sink>, which
// no consumer name is.
type OpenLineageJob struct {
	// Namespace is the job's namespace ("" matches any).
	Namespace string `json:"namespace,omitempty"`
	// Job is the job's name, exactly as its events carry it.
	Job string `json:"job"`
}

// maxJobName bounds an OpenLineage job name or namespace in a consumer file.
const maxJobName = 1000

// openLineageJob reads a consumer's optional `openlineage:`.
func openLineageJob(f *file, o *object) *OpenLineageJob {
	lo := o.child("openlineage", "openlineage")
	if lo == nil {
		return nil
	}
	lo.expect("openlineage", []string{"job"}, []string{"namespace"})
	j := &OpenLineageJob{}
	for _, k := range []struct {
		key string
		to  *string
	}{{"job", &j.Job}, {"namespace", &j.Namespace}} {
		v, ok := lo.str(k.key)
		switch {
		case !ok:
		case v == "" || len(v) > maxJobName:
			f.report(lo.valuePos(k.key), CodeInvalidValue, "openlineage: %s must be the job's %s exactly as its OpenLineage events carry it (1 to %d characters).", k.key, k.key, maxJobName)
		default:
			*k.to = v
		}
	}
	if j.Job == "" {
		return nil
	}
	return j
}

// checkOpenLineageKeys reports a consumer file whose openlineage: key names a job an
// earlier file of the subject already names (a key without a namespace names the job
// in every namespace): one file stands for one job, or verify could only pick one.
func checkOpenLineageKeys(s *Subject, ds *Diagnostics) {
	var seen []*Consumer
	for _, c := range s.Consumers {
		j := c.OpenLineage
		if j == nil {
			continue
		}
		for _, prev := range seen {
			p := prev.OpenLineage
			if p.Job == j.Job && (p.Namespace == "" || j.Namespace == "" || p.Namespace == j.Namespace) {
				f := &file{path: c.File, diags: ds}
				f.report(c.KeyPos["openlineage"], CodeDuplicateName, "openlineage: job %q is already claimed by %s; one consumer file stands for one job. Remove the key from one of them, or give each its namespace.", j.Job, prev.File)
				break
			}
		}
		seen = append(seen, c)
	}
}
