// Package sample judges the messages on a subject's topic against its contract: the
// schema ids they carry against the subject's versions in the contract's history, their
// payloads against those versions' schemas, unframed JSON field by field against the
// contract's schema (or its JSON mapping), and the subject's CEL conditions against
// their values (docs/sample.md).
//
// The judging of one record (Judge.Judge) is pure: bytes in, problems out, within a
// budget in bytes, and never a panic. Reading the records is an edge beside it: from
// brokers with franz-go (ReadKafka, never committing to a consumer group) or from a
// file of captured records (ReadFile: kcat -J or kafka-console-consumer lines).
// Summarize turns judged records into the per-topic results the CLI and serve print.
package sample
