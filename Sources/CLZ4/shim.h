// The LZ4 block API from the system's liblz4 (Debian: liblz4-dev).
#include <lz4.h>
