#ifndef CCRC32C_H
#define CCRC32C_H

#include <stddef.h>
#include <stdint.h>

/// Extends a CRC32C (Castagnoli, polynomial 0x1EDC6F41, reflected) over `length` bytes.
/// Start with crc = 0; the result of one call may be passed to the next to checksum data in pieces.
/// Uses the SSE4.2 `crc32` instruction when the CPU has it, a slicing-by-8 table otherwise.
uint32_t cairn_crc32c_extend(uint32_t crc, const void *data, size_t length);

/// The portable implementation, exposed so tests can check both paths agree.
uint32_t cairn_crc32c_extend_portable(uint32_t crc, const void *data, size_t length);

/// 1 when the hardware path is in use, 0 otherwise.
int cairn_crc32c_is_hardware(void);

#endif
