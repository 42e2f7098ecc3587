"""The official Python Admin SDK (firebase-admin, module firebase_admin.db) against Cairn's local Realtime
Database server: FIREBASE_DATABASE_EMULATOR_HOST names the server, argv[1] is the namespace.

It writes with set, update and push, reads back with get and queries (order_by_child + limit_to_last,
order_by_key ranges, order_by_value + equal_to, shallow), runs transactions, a conditional set with a stale
ETag, and listens with the event stream. It prints one JSON object with what it saw; the Swift test checks it
and reads the server's data directly.
"""
import json
import sys
import threading

import firebase_admin
from firebase_admin import credentials, db


class _NoCredential(credentials.Base):
    """The emulator needs no Google credential (the SDK sends its emulator token `owner`)."""

    def get_credential(self):
        raise RuntimeError('no credential is needed against the emulator')


def main():
    namespace = sys.argv[1]
    firebase_admin.initialize_app(_NoCredential(), {'databaseURL': f'https://{namespace}.firebaseio.com'})
    root = db.reference('/interop')
    seen = {}

    root.child('profile').set({'name': 'Zoë — 東京', 'big': 9007199254740993, 'ratio': 0.1, 'done': True,
                               'tags': ['a', 'b'], 'nested': {'depth': 1}})
    root.child('profile').update({'age': 36, 'nested/extra': 'x'})
    pushed = [root.child('log').push({'n': n}).key for n in range(3)]
    seen['pushed'] = pushed

    root.child('scores').set({'ada': {'score': 10}, 'bob': {'score': 30}, 'cy': {'score': 20}, 'dee': {'score': 5}})
    top = root.child('scores').order_by_child('score').limit_to_last(2).get()
    seen['top_two'] = list(top.items())
    seen['keys_b_to_cy'] = list(root.child('scores').order_by_key().start_at('b').end_at('cy').get().keys())
    root.child('flags').set({'x': True, 'y': False, 'z': True})
    seen['true_flags'] = sorted(root.child('flags').order_by_value().equal_to(True).get().keys())
    seen['shallow'] = root.get(shallow=True)
    seen['profile'] = root.child('profile').get()

    for _ in range(5):
        root.child('counter').transaction(lambda current: (current or 0) + 1)
    seen['counter'] = root.child('counter').get()

    value, etag = root.child('counter').get(etag=True)
    root.child('counter').set(value + 100)
    ok, current, new_etag = root.child('counter').set_if_unchanged(etag, -1)
    seen['stale_set'] = {'ok': ok, 'current': current, 'etag_changed': new_etag != etag}

    events = []
    arrived = threading.Event()

    def on_event(event):
        events.append({'type': event.event_type, 'path': event.path, 'data': event.data})
        if any(e['path'] == '/live' for e in events):
            arrived.set()

    registration = root.child('stream').listen(on_event)
    root.child('stream/live').set('hello')
    arrived.wait(10)
    registration.close()
    seen['stream_events'] = events

    root.child('doomed').set(1)
    root.child('doomed').delete()
    seen['doomed'] = root.child('doomed').get()
    print(json.dumps(seen, ensure_ascii=False, sort_keys=True))


if __name__ == '__main__':
    main()
