package events

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Kafka produces each event to a topic as a structured CloudEvent (the value is the
// event's JSON; header content-type application/cloudevents+json, ce_id the event id).
// The key is the registry subject, so one subject's events land on one partition and
// stay in order. The producer is idempotent with acks=all: a retried batch is written
// once, and Send returns only when every in-sync replica has the event. While the
// cluster is unreachable Send waits (the client retries) until the caller's context
// ends, or Timeout; then it returns an error and the record may still be delivered
// later (the next run sends it again with the same id).
type Kafka struct {
	cl    *kgo.Client
	topic string
	// Timeout bounds one Send (KafkaSendTimeout when 0).
	Timeout time.Duration
}

// KafkaSendTimeout bounds one Send when Kafka.Timeout is 0: the wait for the
// acknowledgement of all in-sync replicas, retries included.
const KafkaSendTimeout = 30 * time.Second

// NewKafka returns a sink producing to topic through the given seed brokers; opts are
// passed to franz-go after contractbot's own (TLS, SASL, timeouts).
func NewKafka(brokers []string, topic string, opts ...kgo.Opt) (*Kafka, error) {
	base := []kgo.Opt{
		kgo.SeedBrokers(brokers...),
		kgo.DefaultProduceTopic(topic),
		kgo.RequiredAcks(kgo.AllISRAcks()), // required by the idempotent producer (franz-go's default)
		kgo.ProducerLinger(0),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)), // Kafka's murmur2 of the key
		// franz-go's default is Snappy, which some consumers cannot read (kafkajs
		// without a codec plugin): uncompressed unless the caller asks.
		kgo.ProducerBatchCompression(kgo.NoCompression()),
	}
	cl, err := kgo.NewClient(append(base, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("kafka client for %s: %w", strings.Join(brokers, ","), err)
	}
	return &Kafka{cl: cl, topic: topic}, nil
}

// DefaultKafkaCompression is the compression of Kafka events unless the sink's spec
// says otherwise: none, which every Kafka client reads. gzip is read by every client
// too (kafkajs included); snappy, lz4 and zstd need a codec in some (kafkajs plugins).
const DefaultKafkaCompression = "none"

// KafkaCompressions are the names KafkaCompression takes.
var KafkaCompressions = []string{"none", "gzip", "snappy", "lz4", "zstd"}

// KafkaCompression is the producer option for a compression name (KafkaCompressions).
func KafkaCompression(name string) (kgo.Opt, error) {
	var c kgo.CompressionCodec
	switch strings.ToLower(name) {
	case "none", "":
		c = kgo.NoCompression()
	case "gzip":
		c = kgo.GzipCompression()
	case "snappy":
		c = kgo.SnappyCompression()
	case "lz4":
		c = kgo.Lz4Compression()
	case "zstd":
		c = kgo.ZstdCompression()
	default:
		return nil, fmt.Errorf("kafka compression %q: write one of %s", name, strings.Join(KafkaCompressions, ", "))
	}
	return kgo.ProducerBatchCompression(c), nil
}

// ParseKafka splits "BROKER[,BROKER...]/TOPIC".
func ParseKafka(spec string) (brokers []string, topic string, err error) {
	i := strings.LastIndex(spec, "/")
	if i <= 0 || i == len(spec)-1 {
		return nil, "", fmt.Errorf("kafka sink %q: write BROKER[,BROKER...]/TOPIC, e.g. kafka-1:9092,kafka-2:9092/schema-events", spec)
	}
	return strings.Split(spec[:i], ","), spec[i+1:], nil
}

// Send produces e and waits for its acknowledgement.
func (k *Kafka) Send(ctx context.Context, e Event) error {
	b, err := Marshal(e)
	if err != nil {
		return err
	}
	rec := &kgo.Record{
		Key:   []byte(e.Subject),
		Value: b,
		Headers: []kgo.RecordHeader{
			{Key: "content-type", Value: []byte(MediaType)},
			{Key: "ce_id", Value: []byte(e.ID)},
		},
	}
	// ProduceSync would wait for a record already sent to a broker that went away even
	// after ctx ends (the idempotent producer never fails such a record on its own);
	// waiting here on both lets a run stop, leaving the record to be delivered or not:
	// the next run sends it again with the same id.
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(k.Timeout, KafkaSendTimeout))
	defer cancel()
	done := make(chan error, 1)
	k.cl.Produce(ctx, rec, func(_ *kgo.Record, err error) { done <- err })
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("produce event %s to %s: %w", e.ID, k.topic, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("produce event %s to %s: no acknowledgement: %w", e.ID, k.topic, ctx.Err())
	}
}

// Close closes the client; records not acknowledged yet are abandoned (their commits
// are not marked, so the next run sends them again).
func (k *Kafka) Close() error {
	k.cl.Close()
	return nil
}

// String names the sink for messages.
func (k *Kafka) String() string { return "kafka topic " + k.topic }
