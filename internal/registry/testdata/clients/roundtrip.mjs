// Round trips with Confluent's JavaScript Schema Registry client against the embedded
// registry (no Kafka broker: the serializers and deserializers are called directly).
// Run by internal/registry's TestRealClients: node roundtrip.mjs <config.json>.
// Prints one line per case and exits 1 when one fails.
import { readFileSync } from 'node:fs';
import { create, createFileRegistry, fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, file_google_protobuf_timestamp } from '@bufbuild/protobuf/wkt';
import {
  SchemaRegistryClient, SerdeType,
  AvroSerializer, AvroDeserializer,
  ProtobufSerializer, ProtobufDeserializer,
  JsonSerializer, JsonDeserializer,
  CelExecutor, CelFieldExecutor,
} from '@confluentinc/schemaregistry';

CelExecutor.register();
CelFieldExecutor.register();

const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const client = new SchemaRegistryClient({ baseURLs: [cfg.url], cacheCapacity: 100 });
const fresh = () => new SchemaRegistryClient({ baseURLs: [cfg.url], cacheCapacity: 100 });

let failed = 0;
async function test(name, fn) {
  try {
    await fn();
    console.log(`ok   ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${e && e.stack ? e.stack : e}`);
  }
}
function eq(got, want, what) {
  const g = JSON.stringify(got, (k, v) => (typeof v === 'bigint' ? v.toString() : v));
  const w = JSON.stringify(want, (k, v) => (typeof v === 'bigint' ? v.toString() : v));
  if (g !== w) throw new Error(`${what}: got ${g}, want ${w}`);
}
async function refused(fn, what) {
  let threw = false;
  try { await fn(); } catch (e) { threw = true; }
  if (!threw) throw new Error(`${what} went through; its WRITE rule should have refused it`);
}
const idOf = (buf) => buf.readUInt32BE(1);

// Avro: orders carry a WRITE rule (amount > 0) and, from version 2, a READ rule (note
// reads "checked") and an UPGRADE rule (order ids written with version 1 get "v2-");
// version 3 changes the UPGRADE rule alone (order ids get "-v3"), a version and an id
// of its own.
const avroTopic = 'shop.order';
await test('avro: latest version, WRITE rule, READ rule by id', async () => {
  const ser = new AvroSerializer(client, SerdeType.VALUE, { useLatestVersion: true });
  const bytes = await ser.serialize(avroTopic, { order_id: 'o-1', amount: 5, note: 'hi' });
  eq(idOf(bytes), cfg.ids.order3, 'schema id');
  await refused(() => ser.serialize(avroTopic, { order_id: 'o-2', amount: 0, note: '' }), 'amount 0');
  const de = new AvroDeserializer(fresh(), SerdeType.VALUE, {});
  const msg = await de.deserialize(avroTopic, bytes);
  eq([msg.order_id, msg.amount, msg.note], ['o-1', 5, 'checked'], 'decoded (READ rule applied)');
});
await test('avro: configured schema id keeps the WRITE rule', async () => {
  const ser = new AvroSerializer(fresh(), SerdeType.VALUE, { useSchemaId: cfg.ids.order2 });
  const bytes = await ser.serialize(avroTopic, { order_id: 'o-3', amount: 7, note: '' });
  eq(idOf(bytes), cfg.ids.order2, 'schema id');
  await refused(() => ser.serialize(avroTopic, { order_id: 'o-4', amount: 0, note: '' }), 'amount 0 with useSchemaId');
});
await test('avro: UPGRADE rule from version 1 to the latest', async () => {
  const ser = new AvroSerializer(fresh(), SerdeType.VALUE, { useSchemaId: cfg.ids.order1 });
  const bytes = await ser.serialize(avroTopic, { order_id: 'o-5', amount: 3 });
  eq(idOf(bytes), cfg.ids.order1, 'schema id');
  const de = new AvroDeserializer(fresh(), SerdeType.VALUE, { useLatestVersion: true });
  const msg = await de.deserialize(avroTopic, bytes);
  eq([msg.order_id, msg.amount], ['v2-o-5-v3', 3], 'upgraded');
});
await test('avro: UPGRADE rule added without a schema change', async () => {
  const ser = new AvroSerializer(fresh(), SerdeType.VALUE, { useSchemaId: cfg.ids.order2 });
  const bytes = await ser.serialize(avroTopic, { order_id: 'o-6', amount: 2, note: '' });
  eq(idOf(bytes), cfg.ids.order2, 'schema id');
  const de = new AvroDeserializer(fresh(), SerdeType.VALUE, { useLatestVersion: true });
  const msg = await de.deserialize(avroTopic, bytes);
  eq(msg.order_id, 'o-6-v3', 'upgraded by version 3');
});

// Protobuf: payments import shop/money/money.proto (a reference) and the well-known
// Timestamp; a CEL_FIELD WRITE rule wants a payment_id.
const files = createFileRegistry(
  fromBinary(FileDescriptorProtoSchema, Buffer.from(cfg.payment_fdp, 'base64')),
  (name) => {
    if (name === 'google/protobuf/timestamp.proto') return file_google_protobuf_timestamp;
    if (name === 'shop/money/money.proto') {
      const money = fromBinary(FileDescriptorProtoSchema, Buffer.from(cfg.money_fdp, 'base64'));
      money.name = name; // the producer compiled it as money.proto
      return money;
    }
    return undefined;
  });
const Payment = files.getMessage('shop.v1.Payment');
const Money = files.getMessage('shop.v1.Money');
const pbTopic = 'shop.payment';
const payment = (units, paymentId = 'p-1') => create(Payment, {
  paymentId,
  amount: create(Money, { currencyCode: 'EUR', units: BigInt(units) }),
  paidAt: { seconds: 1700000000n, nanos: 0 },
});
await test('protobuf: latest version, serialized descriptors, references, WRITE rule', async () => {
  const ser = new ProtobufSerializer(client, SerdeType.VALUE, { useLatestVersion: true, registry: files });
  const bytes = await ser.serialize(pbTopic, payment(12));
  eq(idOf(bytes), cfg.ids.payment, 'schema id');
  await refused(() => ser.serialize(pbTopic, payment(1, '')), 'no payment_id');
  const de = new ProtobufDeserializer(fresh(), SerdeType.VALUE, {});
  const msg = await de.deserialize(pbTopic, bytes);
  eq([msg.paymentId, msg.amount.currencyCode, msg.amount.units, msg.paidAt.seconds], ['p-1', 'EUR', 12n, 1700000000n], 'decoded');
});
await test('protobuf: configured schema id keeps the WRITE rule', async () => {
  const ser = new ProtobufSerializer(fresh(), SerdeType.VALUE, { useSchemaId: cfg.ids.payment, registry: files });
  const bytes = await ser.serialize(pbTopic, payment(4));
  eq(idOf(bytes), cfg.ids.payment, 'schema id');
  await refused(() => ser.serialize(pbTopic, payment(1, '')), 'no payment_id with useSchemaId');
});
await test('protobuf: look-up of the serialized descriptor (no auto-registration)', async () => {
  const ser = new ProtobufSerializer(fresh(), SerdeType.VALUE, { autoRegisterSchemas: false, registry: files });
  const bytes = await ser.serialize('shop.money', create(Money, { currencyCode: 'EUR', units: 9n }));
  eq(idOf(bytes), cfg.ids.money, 'schema id');
  const msg = await new ProtobufDeserializer(fresh(), SerdeType.VALUE, {}).deserialize('shop.money', bytes);
  eq([msg.currencyCode, msg.units], ['EUR', 9n], 'decoded');
});

// JSON Schema: events carry a WRITE rule (qty > 0).
const jsonTopic = 'shop.event';
await test('json: latest version and configured schema id, WRITE rule', async () => {
  for (const conf of [{ useLatestVersion: true }, { useSchemaId: cfg.ids.event }]) {
    const ser = new JsonSerializer(fresh(), SerdeType.VALUE, conf);
    const bytes = await ser.serialize(jsonTopic, { id: 'e-1', qty: 2 });
    eq(idOf(bytes), cfg.ids.event, 'schema id');
    await refused(() => ser.serialize(jsonTopic, { id: 'e-2', qty: 0 }), `qty 0 (${JSON.stringify(conf)})`);
    const msg = await new JsonDeserializer(fresh(), SerdeType.VALUE, {}).deserialize(jsonTopic, bytes);
    eq(msg, { id: 'e-1', qty: 2 }, 'decoded');
  }
});
process.exit(failed ? 1 : 0);
