package sample

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/contractbot/contractbot/checker/protobuf"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/registry"
	"github.com/contractbot/contractbot/internal/testutil"
	"github.com/contractbot/contractbot/internal/versions"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fixture is the example tree with a history: order-created gains order_type (two
// versions, two ids) and order-snapshot gains a CEL condition; the embedded registry
// serves its ids.
type fixture struct {
	tree     *contract.Tree
	ix       *versions.Index
	repo     *testutil.Repo
	registry *httptest.Server
	sr       *sr.Client
}

const orderCreated = "contracts/orders/order-created/order_created.avsc"

func newFixture(t testing.TB) *fixture {
	t.Helper()
	r := testutil.ExampleRepo(t)
	r.Edit(orderCreated, `"fields": [`, `"fields": [
    {"name": "order_type", "type": ["null", "string"], "default": null, "doc": "NORMAL or PRESALE."},`)
	r.Edit("contracts/orders/order-snapshot/contract.yaml", "fields:\n", `rules:
  - name: amount-positive
    kind: CONDITION
    type: CEL
    mode: WRITE
    expr: message.amount > 0
fields:
`)
	r.Commit("order_type; amount-positive")
	return load(t, r)
}

// reload commits the working tree and loads the fixture again.
func reload(t testing.TB, f *fixture) *fixture {
	t.Helper()
	f.repo.Commit("change")
	return load(t, f.repo)
}

// load loads the tree and history at the repository's head and serves them from the
// embedded registry.
func load(t testing.TB, r *testutil.Repo) *fixture {
	t.Helper()
	ref, err := r.Git.Head()
	if err != nil {
		t.Fatal(err)
	}
	head := ref.Hash()
	src, err := contract.NewGitSource(r.Git, head.String())
	if err != nil {
		t.Fatal(err)
	}
	tree, err := contract.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range tree.Diagnostics {
		if d.Severity == contract.Error {
			t.Fatalf("the fixture does not lint: %v", d)
		}
	}
	ix, err := versions.Build(r.Git, head)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := registry.NewServer(registry.Source{Repo: r.Git})
	if err != nil {
		t.Fatal(err)
	}
	// A registry that also knows id 9999, which Git never had: a schema registered
	// behind the repository's back.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/schemas/ids/9999" {
			w.Header().Set("Content-Type", "application/vnd.schemaregistry.v1+json")
			_, _ = w.Write([]byte(`{"schema": "\"string\""}`))
			return
		}
		reg.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	cl, err := sr.NewClient(sr.URLs(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{tree: tree, ix: ix, repo: r, registry: srv, sr: cl}
}

// id asks the registry for a subject version's id, as a producer's serializer does.
func (f *fixture) idTB(t testing.TB, subject string, version int) (int, string) {
	t.Helper()
	ss, err := f.sr.SchemaByVersion(context.Background(), subject, version)
	if err != nil {
		t.Fatal(err)
	}
	return ss.ID, ss.Schema.Schema
}

func (f *fixture) judges(t testing.TB, o Options, topics ...string) []*Judge {
	t.Helper()
	js, err := Judges(f.tree, f.ix, func(v versions.Version) ([]byte, error) { return f.ix.Schema(f.repo.Git, v) }, topics, o)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// Go types the serde tells apart: one per schema id.
type (
	orderV1 map[string]any
	orderV2 map[string]any
	rogue   string
)

// orderCreatedValue is an order as the producer's Avro serializer takes it.
func orderCreatedValue(withType bool) map[string]any {
	v := map[string]any{
		"order_id": "O-1", "user_id": int64(42), "channel": "APP", "amount": int64(1999), "currency": "CNY",
		"coupon_code":  nil,
		"product_info": map[string]any{"product_id": "P-1", "category": "home", "detail": map[string]any{"sku": "PAN", "title": "Pan", "price": big.NewRat(1999, 100)}},
		"items":        []any{map[string]any{"sku": "PAN", "quantity": 1, "unit_price": big.NewRat(1999, 100)}},
		"attributes":   map[string]any{},
		"created_at":   time.UnixMilli(1764000000000).UTC(), "event_time": time.UnixMicro(1764000000000000).UTC(),
	}
	if withType {
		v["order_type"] = map[string]any{"string": "PRESALE"}
	}
	return v
}

// snapshot is a conforming order snapshot (unframed JSON) with edits applied.
func snapshot(edit func(m map[string]string)) string {
	m := map[string]string{"order_id": `"O-1"`, "userId": `"u-42"`, "status": `"PAID"`, "amount": "1999", "currency": `"CNY"`,
		"updated_at": "1764000000000", "product_info": `{"detail": {"sku": "PAN", "price": 1999}}`}
	if edit != nil {
		edit(m)
	}
	var parts []string
	for _, k := range sortedKeys(anyMap(m)) {
		parts = append(parts, `"`+k+`": `+m[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func anyMap(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// produced are the records of the articles' incidents, as real producers frame them.
func (f *fixture) produced(t *testing.T) []*kgo.Record { return f.producedTB(t) }

func (f *fixture) producedTB(t testing.TB) []*kgo.Record {
	t.Helper()
	v1, s1 := f.idTB(t, "orders.order-created-value", 1)
	v2, s2 := f.idTB(t, "orders.order-created-value", 2)
	if v1 == v2 {
		t.Fatalf("the two versions of order-created share id %d", v1)
	}
	var serde sr.Serde
	for _, reg := range []struct {
		id     int
		schema string
		typ    any
	}{{v1, s1, orderV1{}}, {v2, s2, orderV2{}}} {
		sch := avro.MustParse(reg.schema)
		serde.Register(reg.id, reg.typ, sr.EncodeFn(func(v any) ([]byte, error) {
			switch m := v.(type) {
			case orderV1:
				return avro.Marshal(sch, map[string]any(m))
			case orderV2:
				return avro.Marshal(sch, map[string]any(m))
			}
			return nil, nil
		}))
	}
	serde.Register(9999, rogue(""), sr.EncodeFn(func(v any) ([]byte, error) { return avro.Marshal(avro.MustParse(`"string"`), string(v.(rogue))) }))
	old := orderCreatedValue(false)
	delete(old, "order_type")
	events := func(v []byte) *kgo.Record { return &kgo.Record{Topic: "ods_order_events", Value: v} }
	snap := func(edit func(map[string]string)) *kgo.Record {
		return &kgo.Record{Topic: "ods_order_snapshot", Value: []byte(snapshot(edit))}
	}
	// A framed message whose payload is not what its id says: the id of v2, the bytes
	// of a string.
	garbled := append(serde.MustEncode(orderV2(orderCreatedValue(true)))[:5:5], []byte("\x02\xffnot avro")...)
	recs := []*kgo.Record{
		events(serde.MustEncode(orderV2(orderCreatedValue(true)))),
		events(serde.MustEncode(orderV1(old))),
		events(serde.MustEncode(rogue("registered behind the repository's back"))),
		events(garbled),
		events(binary.BigEndian.AppendUint32([]byte{0}, 4242)), // an id nobody has
		snap(nil),
		snap(func(m map[string]string) { m["product_info"] = `{"price": 1999, "detail": {"sku": "PAN"}}` }), // moved nested field
		snap(func(m map[string]string) { m["userid"] = m["userId"]; delete(m, "userId") }),                  // case change
		snap(func(m map[string]string) { m["order_type"] = `"PRESALE"` }),                                   // a new field
		snap(func(m map[string]string) { m["total_amount"] = m["amount"]; delete(m, "amount") }),            // renamed field
		snap(func(m map[string]string) { m["amount"] = "-5" }),                                              // a CEL condition is false
		snap(func(m map[string]string) { m["amount"] = `"1999"` }),                                          // a string for an integer
		{Topic: "ods_order_snapshot", Value: []byte(strings.Repeat("[", 50000))},                            // hostile
		{Topic: "ods_order_snapshot", Value: []byte(`{"pad": "` + strings.Repeat("x", 70000) + `"}`)},       // huge
	}
	recs = append(recs, f.shipments(t)...)
	return recs
}

// shipments frames Protobuf messages as Confluent's serializer does (the message
// index after the id), one carrying a field number the schema lacks.
func (f *fixture) shipments(t testing.TB) []*kgo.Record {
	t.Helper()
	id, _ := f.idTB(t, "logistics.shipment-dispatched-value", 1)
	sch, err := f.tree.Subject("logistics.shipment-dispatched-value").Schema()
	if err != nil {
		t.Fatal(err)
	}
	md := sch.(*protobuf.Schema).Record()
	m := dynamicpb.NewMessage(md)
	m.Set(md.Fields().ByName("shipment_id"), protoreflect.ValueOfString("S-1"))
	m.Set(md.Fields().ByName("carrier"), protoreflect.ValueOfString("dhl"))
	var serde sr.Serde
	serde.Register(id, &dynamicpb.Message{}, sr.EncodeFn(func(v any) ([]byte, error) { return proto.Marshal(v.(*dynamicpb.Message)) }), sr.Index(0))
	good := serde.MustEncode(m)
	extra := protowire.AppendTag(append([]byte(nil), good...), 99, protowire.VarintType)
	extra = protowire.AppendVarint(extra, 7)
	return []*kgo.Record{{Topic: "ods_shipment_dispatched", Value: good}, {Topic: "ods_shipment_dispatched", Value: extra}}
}

// TestSampleKafka produces the articles' incidents to a real broker (kfake) with
// franz-go and Confluent's framing, with the ids the embedded registry serves, and
// samples them.
func TestSampleKafka(t *testing.T) {
	f := newFixture(t)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "ods_order_events", "ods_order_snapshot", "ods_shipment_dispatched"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	prod, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := prod.ProduceSync(ctx, f.produced(t)...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	known := func(id int) (bool, error) {
		resp, err := http.Get(f.registry.URL + "/schemas/ids/" + itoa(id))
		if err != nil {
			return false, err
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	}
	s := NewSampler(f.judges(t, Options{MaxBytes: 64 << 10}, "ods_order_events", "ods_order_snapshot", "ods_shipment_dispatched"), known)
	k := Kafka{Brokers: c.ListenAddrs(), MaxMessages: 100}
	rd, err := ReadKafka(ctx, k, s.Topics(), false, func(r Record) { s.Add(r) })
	if err != nil {
		t.Fatal(err)
	}
	if len(rd.Unfinished)+len(rd.Missing) > 0 {
		t.Fatalf("reading went short: %+v", rd)
	}
	res := s.Result(false)
	testutil.Golden(t, "testdata/kafka.txt", Text(res), *update)
	testutil.Golden(t, "testdata/kafka.json", JSON(res), *update)
	if res.Conforms() {
		t.Error("the incidents conform")
	}

	// Only the last message of each partition.
	s = NewSampler(f.judges(t, Options{}, "ods_order_events"), nil)
	k.MaxMessages = 1
	if _, err := ReadKafka(ctx, k, s.Topics(), false, func(r Record) { s.Add(r) }); err != nil {
		t.Fatal(err)
	}
	if got := s.Result(false).Topics[0]; got.Messages != 1 || got.Problems[0].Example.Offset != 4 {
		t.Errorf("--max-messages 1 read %+v, want the last record (offset 4)", got)
	}

	// A topic the cluster lacks is unusable input, unless told to skip it.
	_, err = ReadKafka(ctx, k, []string{"ods_nothing"}, false, func(Record) {})
	var ue *UnusableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), `"ods_nothing" does not exist`) {
		t.Errorf("unknown topic: %v", err)
	}
	rd, err = ReadKafka(ctx, k, []string{"ods_nothing"}, true, func(Record) {})
	if err != nil || len(rd.Missing) != 1 {
		t.Errorf("unknown topic skipped: %+v %v", rd, err)
	}
}

// TestSampleUnreachable: brokers nobody listens on are unusable input within the
// time limit.
func TestSampleUnreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, err := ReadKafka(ctx, Kafka{Brokers: []string{"127.0.0.1:1"}, MaxMessages: 1, DialTimeout: time.Second}, []string{"t"}, false, func(Record) {})
	var ue *UnusableError
	if !errors.As(err, &ue) {
		t.Fatalf("got %v, want an UnusableError", err)
	}
}

func itoa(i int) string { return big.NewInt(int64(i)).String() }
