package avro

import "fmt"

// MaxValues bounds the JSON values of one Avro schema (objects, arrays and the members
// and elements separated by commas: a field is about three, an enum symbol one), counted
// before the text is parsed. The parsers keep a few hundred bytes per value, so the
// byte limit alone let a 7.7 MiB schema of 210,000 fields take 805 MB in a check;
// 100,000 values (some 33,000 fields, or 100,000 enum symbols) keep a comparison of two
// versions under 512 MB.
const MaxValues = 100_000

// countValues counts the '{', '[' and ',' of JSON text outside strings and returns the
// byte offset of the limit-th one (-1 when there are fewer).
func countValues(data []byte, limit int) (n, off int) {
	off = -1
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '{', '[', ',':
			n++
			if n == limit {
				off = i
			}
		}
	}
	return n, off
}

// tooWide is the sentence refusing a schema with more than MaxValues values.
func tooWide() string {
	return fmt.Sprintf("the schema has more than %d JSON values (fields, enum symbols, properties); the checker refuses it here, at the first one past the limit, rather than use gigabytes of memory. Split it into several subjects.", MaxValues)
}
