// The FirestoreSpecTests suites are written in this folder; this file keeps the target non-empty until they land.
enum FirestoreSpecTestsPlaceholder {}
