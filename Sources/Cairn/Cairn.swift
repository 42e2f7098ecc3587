// Cairn: an offline-first Cloud Firestore client. `import Cairn` in place of `import FirebaseFirestore`.
//
// API/  — the public surface, named and shaped as Firebase's Apple SDK.
// Core/ — the client core (View, QueryListener, EventManager, SyncEngine, RemoteStore, WatchChangeAggregator)
//         and the `Datastore` protocol through which it reaches the network.
enum CairnModule {}
