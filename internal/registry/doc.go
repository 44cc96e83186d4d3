// Package registry is contractbot's edge to Confluent-compatible schema registries.
//
// Client talks to a live registry (Confluent, Apicurio's compatibility API, Karapace,
// Redpanda) over the Schema Registry REST API: register, look up, fetch by subject
// and version or by id, compatibility levels and tests. It retries 5xx answers and
// timeouts with exponential backoff and full jitter, never 4xx answers, and returns
// the registry's own errors as *Error values that callers branch on (IsNotFound,
// IsIncompatible, ...).
//
// Server is the embedded read-only registry: it answers the read side of the same API
// from the versions index of a Git repository (internal/versions), so that producers
// and consumers can use the contract repository as their registry without running
// one. Subjects, versions and global ids are the index's. Every response body is
// computed once per snapshot of the index; a request only looks up a map and writes
// bytes. Writes are refused with error code 42205: schemas change through pull
// requests. See docs/registry.md.
//
// Diff compares the index with a live registry and reports drift.
package registry
