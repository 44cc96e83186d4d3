package located

import (
	"slices"
	"testing"
)

func TestSort(t *testing.T) {
	at := func(file string, line, col int) Span { return Span{File: file, Line: line, Column: col} }
	ms := []Message{
		{Span: at("b", 1, 1), Severity: Notice, Title: "x"},
		{Span: at("a", 2, 1), Severity: Warning, Title: "x"},
		{Span: at("a", 1, 5), Severity: Notice, Title: "x"},
		{Span: at("a", 1, 5), Severity: Error, Title: "y"},
		{Span: at("a", 1, 5), Severity: Error, Title: "x", Message: "2"},
		{Span: at("a", 1, 5), Severity: Error, Title: "x", Message: "1"},
		{Span: at("a", 1, 2), Severity: Notice, Title: "x"},
	}
	Sort(ms)
	var got []string
	for _, m := range ms {
		got = append(got, m.File+string(rune('0'+m.Line))+string(rune('0'+m.Column))+string(m.Severity[0])+m.Title+m.Message)
	}
	want := []string{"a12nx", "a15ex1", "a15ex2", "a15ey", "a15nx", "a21wx", "b11nx"}
	if !slices.Equal(got, want) {
		t.Errorf("sorted: %q, want %q (place, then the worst first, then title and message)", got, want)
	}
}

func TestSeverityRank(t *testing.T) {
	if !(Error.Rank() > Warning.Rank() && Warning.Rank() > Notice.Rank()) {
		t.Errorf("ranks: error %d, warning %d, notice %d", Error.Rank(), Warning.Rank(), Notice.Rank())
	}
}
