"""The official Python Admin SDK (firebase-admin, module firebase_admin.db) as a third party in the end-to-end
tests: FIREBASE_DATABASE_EMULATOR_HOST names the server, argv[1] is the namespace, then one operation:

    read PATH           prints the JSON of db.reference(PATH).get() (null when there is nothing)
    set PATH JSON       db.reference(PATH).set(json.loads(JSON)), then prints "ok"
"""
import json
import sys

import firebase_admin
from firebase_admin import credentials, db


class _NoCredential(credentials.Base):
    """The emulator needs no Google credential (the SDK sends its emulator token `owner`)."""

    def get_credential(self):
        raise RuntimeError('no credential is needed against the emulator')


def main():
    namespace, operation, path = sys.argv[1], sys.argv[2], sys.argv[3]
    firebase_admin.initialize_app(_NoCredential(), {'databaseURL': f'https://{namespace}.firebaseio.com'})
    reference = db.reference(path)
    if operation == 'read':
        print(json.dumps(reference.get(), ensure_ascii=False, sort_keys=True))
    elif operation == 'set':
        reference.set(json.loads(sys.argv[4]))
        print('ok')
    else:
        sys.exit(f'unknown operation {operation!r}: use read or set')


if __name__ == '__main__':
    main()
