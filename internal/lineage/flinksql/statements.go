package flinksql

import (
	"fmt"
	"strings"

	"github.com/agnivade/levenshtein"
)

// The statements of Flink's SQL reference (and of its SQL client, and Ververica's and
// Alibaba's dialects) that say nothing about lineage are read only by their leading
// words, then skipped up to their semicolon: a statement whose leading words are none
// of these is a located error, never skipped silently (INSRT INTO, CREATE TABEL).

// firstWords are the words a statement may start with, for the error of one that
// starts with another word.
var firstWords = []string{"SELECT", "WITH", "VALUES", "INSERT", "CREATE", "REPLACE", "DROP",
	"ALTER", "ANALYZE", "TRUNCATE", "CALL", "UPDATE", "DELETE", "DESCRIBE", "DESC", "EXPLAIN",
	"USE", "SHOW", "LOAD", "UNLOAD", "SET", "RESET", "ADD", "REMOVE", "EXECUTE", "COMPILE",
	"BEGIN", "END", "STOP", "QUIT", "EXIT", "HELP", "CLEAR", "MSCK"}

// objectWords are what CREATE, DROP and ALTER name (after TEMPORARY and SYSTEM):
// Flink's TABLE, VIEW, FUNCTION, CATALOG, DATABASE, MATERIALIZED TABLE and MODEL,
// Hive's SCHEMA and EXTERNAL TABLE, Confluent Cloud's CONNECTION, AGENT and TOOL.
var objectWords = []string{"TABLE", "VIEW", "FUNCTION", "CATALOG", "DATABASE", "SCHEMA",
	"MATERIALIZED", "MODEL", "EXTERNAL", "CONNECTION", "AGENT", "TOOL"}

// other reads the leading words of a statement that says nothing about lineage and
// skips the rest of it.
func (p *parser) other() {
	t := p.peek()
	if t.isP("(") { // a parenthesised query
		p.skipToSemicolon()
		return
	}
	if t.kind != tIdent {
		p.fail("expected a statement (CREATE, INSERT, SET, ...), found %s", t)
	}
	w := strings.ToUpper(t.text)
	p.next()
	if w == "SET" {
		p.set()
	}
	switch w {
	case "SELECT", "WITH", "VALUES", "SET", "RESET", "USE", "DESCRIBE", "DESC", "EXPLAIN",
		"SHOW", "CALL", "QUIT", "EXIT", "HELP", "CLEAR", "MSCK":
		// SET and RESET alone list or reset every option; SHOW and DESCRIBE name what
		// they show; bare queries are run by the client, not written anywhere.
	case "DROP", "ALTER":
		p.modifiers()
		p.expectWord(w, objectWords...)
	case "ANALYZE", "TRUNCATE":
		p.expectWord(w, "TABLE")
	case "UPDATE":
		p.name()
		p.expectWord("UPDATE name", "SET")
	case "DELETE":
		p.expectWord(w, "FROM")
	case "LOAD":
		p.expectWord(w, "MODULE", "DATA") // LOAD DATA: Hive dialect
	case "UNLOAD":
		p.expectWord(w, "MODULE")
	case "ADD", "REMOVE":
		p.acceptKw("CUSTOMIZED")
		p.expectWord(w, "JAR", "FILE", "ARCHIVE")
	case "STOP":
		p.expectWord(w, "JOB")
	default:
		p.failAt(t, "%s does not start a Flink SQL statement%s; the statement is not read (write one of %s)",
			t, didYouMean(t.text, firstWords), strings.Join(firstWords[:12], ", ")+", ...")
	}
	p.skipToSemicolon()
}

// set records SET 'key' = 'value' (or unquoted key = value) in p.sets, reading ahead:
// the statement is then skipped as any other.
func (p *parser) set() {
	start := p.i
	defer func() { p.i = start }()
	key := p.optionKey()
	if p.i == start || !p.acceptP("=") {
		return
	}
	var v strings.Builder
	for !p.at(tEOF) && !p.peek().isP(";") && !p.newStatementLine() {
		v.WriteString(p.next().text)
	}
	p.sets = append(p.sets, [2]string{key, v.String()})
}

// modifiers skips OR REPLACE (Flink 2.2's OR ALTER), TEMPORARY and SYSTEM before an
// object word.
func (p *parser) modifiers() {
	if p.acceptKw("OR") {
		p.expectWord("OR", "REPLACE", "ALTER")
	}
	if !p.acceptKw("TEMPORARY") {
		p.acceptKw("TEMP")
	}
	p.acceptKw("SYSTEM")
}

// expectWord reads one of words after what (the words before it, for the message).
func (p *parser) expectWord(what string, words ...string) string {
	t := p.peek()
	for _, w := range words {
		if t.is(w) {
			p.next()
			return w
		}
	}
	p.failAt(t, "expected %s after %s, found %s%s", orWords(words), what, t, didYouMean(t.text, words))
	return ""
}

func orWords(words []string) string {
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// didYouMean names the word of words closest to got, within
// a third of its length in edits (TABEL is TABLE, INSRT INSERT), or "": " (did you
// mean X?)".
func didYouMean(got string, words []string) string {
	best, bestD := "", 3
	g := strings.ToUpper(got)
	for _, w := range words {
		d := levenshtein.ComputeDistance(g, w)
		if limit := min(2, (len(w)+2)/3); d <= limit && d < bestD {
			best, bestD = w, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}
