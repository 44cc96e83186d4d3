package sample

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// Kafka says how to reach the brokers, as Kafka's clients are configured.
type Kafka struct {
	Brokers []string
	// SASLMechanism is "", PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512.
	SASLMechanism, SASLUser, SASLPassword string
	// TLS turns TLS on; CAFile, CertFile and KeyFile are PEM files (a private CA, a
	// client certificate); InsecureSkipVerify trusts any server certificate.
	TLS                       bool
	CAFile, CertFile, KeyFile string
	InsecureSkipVerify        bool
	// MaxMessages is the number of most recent records read per partition.
	MaxMessages int
	// MaxBytes bounds a fetched partition's bytes (a message larger than it is still
	// read whole by Kafka's protocol; the judge refuses it).
	MaxBytes int
	// DialTimeout bounds each connection attempt (10s when 0).
	DialTimeout time.Duration
}

// UnusableError is a reading that could not start: the brokers are unreachable or
// refused the credentials, or a topic does not exist. The CLI exits 2 on it.
type UnusableError struct{ Err error }

func (e *UnusableError) Error() string { return e.Err.Error() }
func (e *UnusableError) Unwrap() error { return e.Err }

// Validate reports settings that cannot work (no broker, an unknown SASL mechanism,
// unreadable TLS files), before any connection.
func (k Kafka) Validate() error {
	_, err := k.options()
	return err
}

// options turns the settings into franz-go's client options.
func (k Kafka) options() ([]kgo.Opt, error) {
	if len(k.Brokers) == 0 {
		return nil, errors.New("no broker given: name one with --brokers HOST:PORT")
	}
	dial := k.DialTimeout
	if dial <= 0 {
		dial = 10 * time.Second
	}
	opts := []kgo.Opt{kgo.SeedBrokers(k.Brokers...), kgo.DialTimeout(dial), kgo.RequestRetries(2),
		kgo.RetryTimeout(dial), kgo.ClientID("contractbot-sample")}
	if k.MaxBytes > 0 {
		opts = append(opts, kgo.FetchMaxPartitionBytes(int32(min(k.MaxBytes, 1<<30))))
	}
	if m, err := k.mechanism(); err != nil {
		return nil, err
	} else if m != nil {
		opts = append(opts, kgo.SASL(m))
	}
	if k.TLS || k.CAFile != "" || k.CertFile != "" {
		cfg, err := k.tlsConfig()
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.DialTLSConfig(cfg))
	}
	return opts, nil
}

func (k Kafka) mechanism() (sasl.Mechanism, error) {
	auth := func() (string, string) { return k.SASLUser, k.SASLPassword }
	switch strings.ToUpper(k.SASLMechanism) {
	case "":
		return nil, nil
	case "PLAIN":
		u, p := auth()
		return plain.Auth{User: u, Pass: p}.AsMechanism(), nil
	case "SCRAM-SHA-256":
		u, p := auth()
		return scram.Auth{User: u, Pass: p}.AsSha256Mechanism(), nil
	case "SCRAM-SHA-512":
		u, p := auth()
		return scram.Auth{User: u, Pass: p}.AsSha512Mechanism(), nil
	}
	return nil, fmt.Errorf("unknown SASL mechanism %q: use PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", k.SASLMechanism)
}

func (k Kafka) tlsConfig() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: k.InsecureSkipVerify} //nolint:gosec // the user's explicit choice (--tls-insecure-skip-verify)
	if k.CAFile != "" {
		pem, err := os.ReadFile(k.CAFile)
		if err != nil {
			return nil, fmt.Errorf("read the CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s holds no PEM certificate", k.CAFile)
		}
		cfg.RootCAs = pool
	}
	if k.CertFile != "" || k.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(k.CertFile, k.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("read the client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// Reading says how a ReadKafka went short of reading every topic to its end.
type Reading struct {
	// Missing are the topics the cluster does not have (when ReadKafka was told to
	// skip them rather than fail).
	Missing []string
	// Unfinished are the topics not read to the end before the context ended.
	Unfinished []string
}

// ReadKafka reads up to MaxMessages of the most recent records of each partition of
// the topics and passes each to fn, from the goroutine that called it. It joins no
// consumer group and commits nothing. It stops when every partition is read up to
// the end it had when reading began, or when ctx ends (Reading.Unfinished names the
// topics not read to the end). An unreachable cluster is an *UnusableError, and so is
// a topic the cluster does not have unless skipMissing (then Reading.Missing names it).
func ReadKafka(ctx context.Context, k Kafka, topics []string, skipMissing bool, fn func(Record)) (Reading, error) {
	var rd Reading
	opts, err := k.options()
	if err != nil {
		return rd, &UnusableError{err}
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return rd, &UnusableError{err}
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	starts, err := adm.ListStartOffsets(ctx, topics...)
	if err != nil {
		return rd, &UnusableError{unreachable(k, err)}
	}
	ends, err := adm.ListEndOffsets(ctx, topics...)
	if err != nil {
		return rd, &UnusableError{unreachable(k, err)}
	}
	n := int64(max(k.MaxMessages, 1))
	from := map[string]map[int32]kgo.Offset{}
	left := map[string]map[int32]int64{} // the offset each partition is read to (exclusive)
	var bad []string
	missing := func(t string) {
		if skipMissing {
			rd.Missing = append(rd.Missing, t)
		} else {
			bad = append(bad, fmt.Sprintf("topic %q does not exist on the cluster", t))
		}
	}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err != nil {
			if errors.Is(o.Err, kerr.UnknownTopicOrPartition) {
				if o.Partition <= 0 {
					missing(o.Topic)
				}
			} else {
				bad = append(bad, fmt.Sprintf("topic %q partition %d: %v", o.Topic, o.Partition, o.Err))
			}
			return
		}
		start := o.Offset - n
		if s, ok := starts.Lookup(o.Topic, o.Partition); ok && s.Err == nil && s.Offset > start {
			start = s.Offset
		}
		if start >= o.Offset {
			return
		}
		if from[o.Topic] == nil {
			from[o.Topic], left[o.Topic] = map[int32]kgo.Offset{}, map[int32]int64{}
		}
		from[o.Topic][o.Partition] = kgo.NewOffset().At(start)
		left[o.Topic][o.Partition] = o.Offset
	})
	for _, t := range topics {
		if _, ok := ends[t]; !ok {
			missing(t)
		}
	}
	sort.Strings(rd.Missing)
	rd.Missing = slices.Compact(rd.Missing)
	if len(bad) > 0 {
		sort.Strings(bad)
		return rd, &UnusableError{errors.New(strings.Join(slices.Compact(bad), "; "))}
	}
	if len(from) == 0 {
		return rd, nil
	}
	cl.AddConsumePartitions(from)
	for len(left) > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			break
		}
		fs.EachError(func(t string, p int32, err error) {
			if errors.Is(err, kerr.OffsetOutOfRange) { // the records were deleted meanwhile
				delete(left[t], p)
			}
		})
		fs.EachRecord(func(r *kgo.Record) {
			end, ok := left[r.Topic][r.Partition]
			if !ok || r.Offset >= end {
				return
			}
			fn(Record{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, Key: r.Key, Value: r.Value})
			if r.Offset+1 >= end {
				delete(left[r.Topic], r.Partition)
			}
		})
		for t, ps := range left {
			if len(ps) == 0 {
				delete(left, t)
			}
		}
	}
	for t := range left {
		rd.Unfinished = append(rd.Unfinished, t)
	}
	sort.Strings(rd.Unfinished)
	return rd, nil
}

// unreachable says that the cluster could not be asked, naming the brokers.
func unreachable(k Kafka, err error) error {
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("the brokers %s could not be reached: %w; check --brokers, the network and the TLS and SASL options", strings.Join(k.Brokers, ","), err)
	}
	return fmt.Errorf("ask the brokers %s for the topics' offsets: %w", strings.Join(k.Brokers, ","), err)
}
