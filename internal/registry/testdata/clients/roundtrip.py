"""Round trips with confluent-kafka-python's Schema Registry serializers (Debian's
python3-confluent-kafka) against the embedded registry; no Kafka broker.

Run by internal/registry's TestRealClients: python3 roundtrip.py <config.json>.
Prints one line per case and exits 1 when one fails.
"""
import base64
import json
import struct
import sys
import traceback

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from confluent_kafka.schema_registry import Schema, SchemaReference, SchemaRegistryClient
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

cfg = json.load(open(sys.argv[1]))
client = SchemaRegistryClient({"url": cfg["url"]})
failed = 0


def case(name, fn):
    global failed
    try:
        fn()
        print("ok   " + name)
    except Exception:  # noqa: BLE001 - every failure is reported, then the next case runs
        failed += 1
        print("FAIL " + name + ": " + traceback.format_exc())


def eq(got, want, what):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


def schema_id(data):
    return struct.unpack(">bI", data[:5])[1]


def money_type():
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(base64.b64decode(cfg["money_fdp"]))
    return message_factory.MessageFactory(pool).GetPrototype(pool.FindMessageTypeByName("shop.v1.Money"))


def protobuf_lookup():
    # The serializer looks the schema up as base64 of its FileDescriptorProto.
    Money = money_type()
    ctx = SerializationContext("shop.money", MessageField.VALUE)
    ser = ProtobufSerializer(Money, client, {"auto.register.schemas": False})
    data = ser(Money(currency_code="EUR", units=9), ctx)
    eq(schema_id(data), cfg["ids"]["money"], "schema id")
    msg = ProtobufDeserializer(Money)(data, ctx)
    eq((msg.currency_code, msg.units), ("EUR", 9), "decoded")


def protobuf_compatibility():
    refs = [SchemaReference("shop/money/money.proto", "shop.money-value", 1)]
    ok = client.test_compatibility("shop.payment-value", Schema(cfg["payment_fdp"], "PROTOBUF", refs))
    eq(ok, True, "compatible")


def json_lookup():
    ctx = SerializationContext("shop.event", MessageField.VALUE)
    ser = JSONSerializer(cfg["event_schema"], client, conf={"auto.register.schemas": False})
    data = ser({"id": "e-1", "qty": 2}, ctx)
    eq(schema_id(data), cfg["ids"]["event"], "schema id")
    eq(JSONDeserializer(cfg["event_schema"])(data, ctx), {"id": "e-1", "qty": 2}, "decoded")


def by_id():
    s = client.get_schema(cfg["ids"]["payment"])
    eq(s.schema_type, "PROTOBUF", "schema type")
    eq([(r.name, r.subject) for r in s.references], [("shop/money/money.proto", "shop.money-value")], "references")


case("protobuf: look-up of the serialized descriptor (no auto-registration)", protobuf_lookup)
case("protobuf: compatibility of the serialized descriptor", protobuf_compatibility)
case("json: look-up of the schema text (no auto-registration)", json_lookup)
case("protobuf: schema by id with its references", by_id)
sys.exit(1 if failed else 0)
