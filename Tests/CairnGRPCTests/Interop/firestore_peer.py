"""The official Python client (google-cloud-firestore) as a peer of Cairn in the interop tests.

Talks to the emulator named by FIRESTORE_EMULATOR_HOST with anonymous credentials. Values cross the process
boundary as typed JSON, so that an integer stays an integer and a timestamp keeps its nanoseconds:
{"string": "x"}, {"integer": 1}, {"double": 1.5}, {"boolean": true}, {"null": null},
{"timestamp": {"seconds": 1, "nanos": 2}}, {"array": [typed, ...]}, {"map": {"name": typed, ...}},
{"vector": [1.0, 2.5]} (the client's Vector).

    FIRESTORE_EMULATOR_HOST=127.0.0.1:8080 python firestore_peer.py PROJECT write rooms/a < fields.json
    FIRESTORE_EMULATOR_HOST=127.0.0.1:8080 python firestore_peer.py PROJECT read rooms/a
      -> {"exists": true, "fields": {...}}   (exists false and no fields for a missing document)
    FIRESTORE_EMULATOR_HOST=127.0.0.1:8080 python firestore_peer.py PROJECT bundle rooms
      -> {"bundle": "..."}   a data bundle (FirestoreBundle "interop-rooms") with the named query "rooms":
                             the collection ordered by "n", and its documents
"""

import json
import sys

from google.api_core.datetime_helpers import DatetimeWithNanoseconds
from google.cloud import firestore
from google.cloud.firestore_bundle import FirestoreBundle
from google.cloud.firestore_v1.vector import Vector
from google.protobuf import timestamp_pb2


def decode(typed):
    """A typed JSON value -> the Python value the client writes."""
    (kind, value), = typed.items()
    if kind in ("string", "boolean", "double"):
        return float(value) if kind == "double" else value
    if kind == "integer":
        return int(value)
    if kind == "null":
        return None
    if kind == "timestamp":
        stamp = timestamp_pb2.Timestamp(seconds=value["seconds"], nanos=value["nanos"])
        return DatetimeWithNanoseconds.from_timestamp_pb(stamp)
    if kind == "array":
        return [decode(element) for element in value]
    if kind == "map":
        return {name: decode(field) for name, field in value.items()}
    if kind == "vector":
        return Vector([float(element) for element in value])
    raise ValueError(f"unknown typed value {kind!r}")


def encode(value):
    """A value the client read -> typed JSON."""
    if value is None:
        return {"null": None}
    if isinstance(value, bool):
        return {"boolean": value}
    if isinstance(value, int):
        return {"integer": value}
    if isinstance(value, float):
        return {"double": value}
    if isinstance(value, str):
        return {"string": value}
    if isinstance(value, DatetimeWithNanoseconds):
        stamp = value.timestamp_pb()
        return {"timestamp": {"seconds": stamp.seconds, "nanos": stamp.nanos}}
    if isinstance(value, Vector):
        return {"vector": [float(element) for element in value]}
    if isinstance(value, list):
        return {"array": [encode(element) for element in value]}
    if isinstance(value, dict):
        return {"map": {name: encode(field) for name, field in value.items()}}
    raise ValueError(f"no typed JSON for {type(value).__name__}")


def bundle(client, collection):
    """The bundle of the named query `collection` (the collection ordered by "n") and its documents."""
    builder = FirestoreBundle(f"interop-{collection}")
    builder.add_named_query(collection, client.collection(collection).order_by("n"))
    # The Python client writes the query's name where the bundled query's parent belongs; Firebase's client SDKs
    # read the parent as a resource name, so the bundle gets the one the client's query has.
    builder.named_queries[collection].bundled_query.parent = f"{client._database_string}/documents"
    return builder.build()


def main(arguments):
    if len(arguments) != 3 or arguments[1] not in ("read", "write", "bundle"):
        print("usage: firestore_peer.py PROJECT read|write|bundle DOCUMENT_OR_COLLECTION_PATH", file=sys.stderr)
        return 2
    project, command, path = arguments
    client = firestore.Client(project=project)
    if command == "bundle":
        print(json.dumps({"bundle": bundle(client, path)}))
        return 0
    document = client.document(path)
    if command == "write":
        fields = json.load(sys.stdin)
        document.set({name: decode(typed) for name, typed in fields.items()})
        print(json.dumps({"written": path}))
    else:
        snapshot = document.get()
        fields = snapshot.to_dict() or {}
        print(json.dumps({"exists": snapshot.exists, "fields": {name: encode(v) for name, v in fields.items()}}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
