package contract

import "fmt"

// RemovedFields rewords the unknown-field errors of consumer files that name a field
// the same subject's schema has at base (Diagnostic.Field): there the change removed
// a field the consumer reads. That is the change's impact on the consumer, not a typo
// in its file, and the message says what each side does: the producer keeps the
// field, or its pull request takes the field out of the consumer file with the
// consumer team's sign-off; or the consumer's team stops reading it first. baseName
// names base in the message (a branch, a commit). It returns how many it reworded.
func (t *Tree) RemovedFields(base *Tree, baseName string) int {
	n := 0
	for i, d := range t.Diagnostics {
		if d.Code != CodeUnknownField || d.Field == "" || d.Severity != Error {
			continue
		}
		subj := t.Subject(t.SubjectOfConsumerFile(d.File))
		c := subj.consumerOfFile(d.File)
		if c == nil || base.Subject(subj.Subject) == nil || !base.Subject(subj.Subject).HasFieldPath(d.Field) {
			continue
		}
		t.Diagnostics[i].Message = fmt.Sprintf("%s names field %q, which %s has at %s and this change removes from %s: "+
			"the change breaks %s, this file is not wrong. Either the producer (team %s) keeps the field, "+
			"or its pull request also takes %q out of this file, which needs team %s's sign-off "+
			"(contractbot check lists it); or team %s stops reading the field first, in a pull request of its own.",
			c.Name, d.Field, subj.Subject, baseName, subj.SchemaFile, c.Name, subj.Owner, d.Field, c.Owner, c.Owner)
		n++
	}
	return n
}

// consumerOfFile is the consumer of s whose file is file, or nil (also for a nil s).
func (s *Subject) consumerOfFile(file string) *Consumer {
	if s == nil {
		return nil
	}
	for _, c := range s.Consumers {
		if c.File == file {
			return c
		}
	}
	return nil
}
