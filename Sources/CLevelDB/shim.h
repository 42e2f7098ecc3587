// LevelDB's C API from the system's libleveldb (Debian: libleveldb-dev), for cairn-bench's LevelDB baseline.
#include <leveldb/c.h>
