package lineage

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/lineage/openlineage"
)

// consumerOf returns the consumer file of s that stands for job o: the one whose
// `openlineage:` key names the job (and its namespace, when the key gives one), else
// the one without such a key named exactly as the job. Nothing is guessed from a part
// of the job's name: Spark's <app>.<action> and Flink 2's insert-into_<table> are not
// consumer names.
func consumerOf(s *contract.Subject, o *openlineage.Observed) *contract.Consumer {
	var byName *contract.Consumer
	for _, c := range s.Consumers {
		switch ol := c.OpenLineage; {
		case ol != nil && ol.Job == o.Job && (ol.Namespace == "" || ol.Namespace == o.Namespace):
			return c
		case ol == nil && c.Name == o.Job:
			byName = c
		}
	}
	return byName
}

// reConsumerName is what a consumer file name may be (contract's consumer names).
var reConsumerName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

// noConsumerFile is the drift of a job that reads s but matches none of its consumer
// files. A job named as a consumer may be could simply have its file; any other is
// told to declare itself with an openlineage key, in a file whose suggested name is
// made of the job name's letters and digits only (never of the raw name).
func noConsumerFile(o *openlineage.Observed, s *contract.Subject, topic string) Drift {
	for _, c := range s.Consumers {
		if c.Name == o.Job && c.OpenLineage != nil {
			// The file is there, but its key says it stands for another job.
			return Drift{NoConsumerFile, o.Job, s.Subject, c.File, "",
				fmt.Sprintf("job %s (namespace %s) reads %s (topic %s); %s has its name but its openlineage: key names job %s (namespace %s), so it is not matched by name: correct the key, or remove it if the file stands for job %s.",
					shown(o.Job), shown(o.Namespace), s.Subject, topic, c.File, shown(c.OpenLineage.Job), shown(orAny(c.OpenLineage.Namespace)), shown(o.Job))}
		}
	}
	if reConsumerName.MatchString(o.Job) {
		file := s.Dir + "/" + contract.ConsumersDir + "/" + o.Job + ".yaml"
		return Drift{NoConsumerFile, o.Job, s.Subject, file, "",
			fmt.Sprintf("job %s reads %s (topic %s) but %s does not exist; add it (contractbot lineage sync writes it from Flink SQL).", o.Job, s.Subject, topic, file)}
	}
	file := s.Dir + "/" + contract.ConsumersDir + "/" + fileStem(o.Job) + ".yaml"
	key := fmt.Sprintf("openlineage: {namespace: %s, job: %s}", strconv.Quote(o.Namespace), strconv.Quote(o.Job))
	return Drift{NoConsumerFile, o.Job, s.Subject, file, "",
		fmt.Sprintf("job %s (namespace %s) reads %s (topic %s), and no consumer file of it names the job: add `%s` to the job's file in %s/%s/, or write %s with that key (contractbot lineage sync writes a consumer file from Flink SQL).",
			shown(o.Job), shown(o.Namespace), s.Subject, topic, key, s.Dir, contract.ConsumersDir, file)}
}

// orAny names a key's namespace, "any" when the key gives none.
func orAny(ns string) string {
	if ns == "" {
		return "any"
	}
	return ns
}

// fileStem makes a consumer file name of a job name: lower-case letters, digits, '_'
// and '-' kept, every other run of characters one '-'.
func fileStem(job string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(job) {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= 63 {
			break
		}
	}
	stem := strings.Trim(b.String(), "-_")
	if stem == "" {
		return "job"
	}
	return stem
}

// reShown is a name printed as it is; any other is quoted (Go syntax), so that a name
// from an event cannot pass for part of the sentence or carry control characters.
var reShown = regexp.MustCompile(`^[A-Za-z0-9_.:/@-]{1,200}$`)

// shown is a name from an event as a sentence shows it.
func shown(name string) string {
	if reShown.MatchString(name) {
		return name
	}
	if len(name) > 200 {
		name = name[:200] + "..."
	}
	return strconv.Quote(name)
}
