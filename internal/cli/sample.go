package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/registry"
	"github.com/contractbot/contractbot/internal/sample"
	"github.com/contractbot/contractbot/internal/versions"
)

// sampleFlags are the flags of `contractbot sample`.
type sampleFlags struct {
	repoDir, format, from, registryURL string
	topics                             []string
	maxMessages, maxBytes              int
	timeout                            time.Duration
	kafka                              sample.Kafka
	brokers                            string
}

func newSampleCmd() *cobra.Command {
	var f sampleFlags
	cmd := &cobra.Command{
		Use:   "sample",
		Short: "Read recent messages of the contracts' topics and judge them against the contract",
		Long: `sample reads the most recent messages of each topic the contracts name (topic: in
contract.yaml, or the topics given with --topic) and judges each against the
contract at the head of the default branch: a Confluent-framed message's schema id
must be a version of the subject in the contract's history (unknown-schema-id; with
--registry, an id the registry knows but Git never had is id-not-in-contract) and its
payload must decode with that version (decode-error); unframed JSON is judged field
by field against the subject's JSON Schema, or its Avro or Protobuf schema's JSON
mapping (undeclared-field, with the closest declared name; missing-field;
type-mismatch; invalid-value); the subject's CEL CONDITION rules must hold
(rule-violation); the key is judged when a subject named <topic>-key declares it.

It reads with franz-go, joins no consumer group and commits nothing. --from reads a
capture instead of the brokers (kcat -C -J lines, or kafka-console-consumer lines
printed with print.partition and print.offset), for CI jobs that cannot reach them.

Exit status: 0 when every message conforms, 1 when any does not, 2 when the input is
unusable (brokers unreachable, an unknown topic, a bad flag or file).`,
		Example: `  contractbot sample --brokers kafka-1:9092 --max-messages 200
  contractbot sample --brokers kafka-1:9093 --tls \
      --sasl-mechanism SCRAM-SHA-512 --sasl-username sampler \
      --topic ods_order_snapshot --format json
      # the password from CONTRACTBOT_SASL_PASSWORD
  kcat -C -J -b kafka-1:9092 -t ods_order_events -o -100 -e > capture.jsonl
  contractbot sample --from capture.jsonl \
      --registry https://registry.example.com`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			render, ok := map[string]func(*sample.Result) string{"text": sample.Text, "json": sample.JSON}[f.format]
			if !ok {
				return fmt.Errorf("unknown --format %q: use text or json", f.format)
			}
			if (f.brokers == "") == (f.from == "") {
				return errors.New("name the brokers to read (--brokers HOST:PORT[,...]) or a capture file (--from FILE), one of the two")
			}
			if f.maxMessages < 1 || f.maxBytes < 1 || f.timeout <= 0 {
				return errors.New("--max-messages, --max-bytes and --timeout must be positive")
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), f.timeout)
			defer cancel()
			res, err := runSample(ctx, f)
			if err != nil {
				return err
			}
			if _, err := fmt.Fprint(cmd.OutOrStdout(), render(res)); err != nil {
				return err
			}
			if !res.Conforms() {
				return &ExitError{Code: 1}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.repoDir, "repo", ".", "the contract repository (a Git repository; its default branch is read)")
	fl.StringVar(&f.brokers, "brokers", "", "Kafka bootstrap servers, HOST:PORT[,HOST:PORT...]")
	fl.StringArrayVar(&f.topics, "topic", nil, "a topic to sample (repeat the flag for several); default: every topic the contracts name")
	fl.IntVar(&f.maxMessages, "max-messages", 100, "the most recent messages read per partition")
	fl.IntVar(&f.maxBytes, "max-bytes", sample.DefaultMaxBytes, "the budget of one message's key or value in bytes: a larger one is a too-large problem")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Second, "time limit of the whole run (connecting, reading, asking the registry)")
	fl.StringVarP(&f.format, "format", "o", "text", "output format: text or json")
	fl.StringVar(&f.from, "from", "", "judge the records of a capture file instead of reading the brokers (kcat -J or kafka-console-consumer lines; - for stdin)")
	fl.StringVar(&f.registryURL, "registry", "", "a schema registry to ask about ids the contract's history lacks (CONTRACTBOT_REGISTRY_USER/_PASSWORD or _TOKEN)")
	fl.StringVar(&f.kafka.SASLMechanism, "sasl-mechanism", "", "SASL mechanism: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
	fl.StringVar(&f.kafka.SASLUser, "sasl-username", "", "SASL user name (the password comes from CONTRACTBOT_SASL_PASSWORD)")
	fl.BoolVar(&f.kafka.TLS, "tls", false, "connect to the brokers with TLS")
	fl.StringVar(&f.kafka.CAFile, "tls-ca", "", "PEM file of the CA that signed the brokers' certificates (implies --tls)")
	fl.StringVar(&f.kafka.CertFile, "tls-cert", "", "PEM file of the client certificate, for mutual TLS (implies --tls)")
	fl.StringVar(&f.kafka.KeyFile, "tls-key", "", "PEM file of the client certificate's key")
	fl.BoolVar(&f.kafka.InsecureSkipVerify, "tls-insecure-skip-verify", false, "accept any certificate the brokers present (testing only)")
	cmd.MarkFlagsMutuallyExclusive("brokers", "from")
	return cmd
}

// runSample loads the contract and its history, reads the records and judges them.
func runSample(ctx context.Context, f sampleFlags) (*sample.Result, error) {
	repo, _, head, err := openDefaultBranch(f.repoDir)
	if err != nil {
		return nil, fmt.Errorf("sample against %s: %w", f.repoDir, err)
	}
	defer repo.Close()
	src, err := contract.NewGitSource(repo.Repository, head.String())
	if err != nil {
		return nil, err
	}
	tree, err := contract.Load(src)
	if err != nil {
		return nil, fmt.Errorf("load the contract at %.12s: %w", head, err)
	}
	ix, err := versions.Build(repo.Repository, head)
	if err != nil {
		return nil, fmt.Errorf("index the history of %s: %w", f.repoDir, err)
	}
	o := sample.Options{MaxBytes: f.maxBytes}
	judges, err := sample.Judges(tree, ix, func(v versions.Version) ([]byte, error) { return ix.Schema(repo.Repository, v) }, f.topics, o)
	if err != nil {
		return nil, err
	}
	known, err := registryKnows(ctx, f.registryURL)
	if err != nil {
		return nil, err
	}
	s := sample.NewSampler(judges, known)
	if f.from != "" {
		return sampleFile(s, f)
	}
	f.kafka.Brokers = strings.Split(f.brokers, ",")
	f.kafka.SASLPassword = envSASLPassword()
	f.kafka.MaxMessages, f.kafka.MaxBytes = f.maxMessages, f.maxBytes
	rd, err := sample.ReadKafka(ctx, f.kafka, s.Topics(), len(f.topics) == 0, func(r sample.Record) { s.Add(r) })
	if err != nil {
		return nil, err
	}
	for _, t := range rd.Missing {
		s.Note(t, "the topic does not exist on the cluster; nothing was read")
	}
	for _, t := range rd.Unfinished {
		s.Note(t, fmt.Sprintf("the time limit (--timeout %s) ended the reading before the topic's end", f.timeout))
	}
	return s.Result(false), nil
}

// sampleFile judges the records of a capture file: the topics it holds (those named
// with --topic, when some are).
func sampleFile(s *sample.Sampler, f sampleFlags) (*sample.Result, error) {
	in, name := os.Stdin, "stdin"
	if f.from != "-" {
		file, err := os.Open(f.from)
		if err != nil {
			return nil, fmt.Errorf("open the capture: %w", err)
		}
		defer func() { _ = file.Close() }()
		in, name = file, f.from
	}
	topic := ""
	if len(f.topics) == 1 {
		topic = f.topics[0]
	}
	ignored := map[string]bool{}
	err := sample.ReadFile(in, name, topic, func(r sample.Record) {
		if !s.Add(r) {
			ignored[r.Topic] = true
		}
	})
	if err != nil {
		return nil, err
	}
	res := s.Result(true)
	if len(res.Topics) == 0 && len(ignored) > 0 {
		return nil, fmt.Errorf("%s holds records of %d topic(s) that no contract names (as topic:)", name, len(ignored))
	}
	return res, nil
}

// registryKnows returns how to ask a registry whether it knows a schema id (nil
// without --registry).
func registryKnows(ctx context.Context, url string) (sample.Known, error) {
	if url == "" {
		return nil, nil
	}
	c, err := registry.NewClient(url, clientOptions(10*time.Second)...)
	if err != nil {
		return nil, err
	}
	return func(id int) (bool, error) {
		_, err := c.GetByID(ctx, id)
		var re *registry.Error
		if errors.As(err, &re) && re.StatusCode == http.StatusNotFound {
			return false, nil
		}
		return err == nil, err
	}, nil
}

// readSampleResult reads what `contractbot sample --format json` wrote.
func readSampleResult(path string) (*sample.Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--sample: %w", err)
	}
	var r sample.Result
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("--sample %s: not the output of contractbot sample --format json: %w", path, err)
	}
	return &r, nil
}
