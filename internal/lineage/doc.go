// Package lineage compares what jobs do with what their consumer files declare. Plan
// maps the lineage of Flink SQL (package flinksql) onto the contract tree: each Kafka
// table is the subject whose contract.yaml names its topic, and the job's consumer
// file under that subject should read the fields the SQL reads and produce what the
// SQL writes. Diff says how a consumer file differs from that; Render writes the file,
// keeping every hand-written key and comment. Pure: trees and bytes in, data out.
package lineage
