// Cairn: an offline-first Cloud Firestore client. `import Cairn` in place of `import FirebaseFirestore`.
//
// This module is the public surface, named and shaped as Firebase's Apple SDK (API/). It calls the client core
// (module CairnCore: View, QueryListener, EventManager, SyncEngine, RemoteStore, WatchChangeAggregator) directly,
// and starts each client with the gRPC datastore (module CairnGRPC) unless the settings pass another.

// The core's types that are part of Firebase's API: the error every call reports, and a listener's source.
@_exported import struct CairnCore.FirestoreErrorCode
@_exported import let CairnCore.FirestoreErrorDomain
@_exported import enum CairnCore.ListenSource
// Cairn's addition to the settings: the certificate authorities a TLS connection trusts.
@_exported import enum CairnGRPC.TLSTrustRoots
