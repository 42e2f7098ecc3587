// CRC32C (Castagnoli). Hardware path: the SSE4.2 crc32 instruction, 8 bytes at a time. Portable path:
// slicing-by-8 tables built on first use. Both compute the standard CRC32C: check value of "123456789"
// is 0xE3069283.
#include "ccrc32c.h"

#include <pthread.h>
#include <string.h>

#define POLY 0x82F63B78u  /* reflected 0x1EDC6F41 */

static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void build_tables(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ POLY : c >> 1;
        table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = table[0][i];
        for (int t = 1; t < 8; t++) {
            c = table[0][c & 0xFF] ^ (c >> 8);
            table[t][i] = c;
        }
    }
}

uint32_t cairn_crc32c_extend_portable(uint32_t crc, const void *data, size_t length) {
    pthread_once(&table_once, build_tables);
    const uint8_t *p = (const uint8_t *)data;
    uint32_t c = ~crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        uint32_t lo = (uint32_t)word ^ c;
        uint32_t hi = (uint32_t)(word >> 32);
        c = table[7][lo & 0xFF] ^ table[6][(lo >> 8) & 0xFF] ^ table[5][(lo >> 16) & 0xFF] ^ table[4][lo >> 24] ^
            table[3][hi & 0xFF] ^ table[2][(hi >> 8) & 0xFF] ^ table[1][(hi >> 16) & 0xFF] ^ table[0][hi >> 24];
        p += 8;
        length -= 8;
    }
    while (length--) c = table[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
    return ~c;
}

#if defined(__x86_64__)
#include <nmmintrin.h>

__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc, const void *data, size_t length) {
    const uint8_t *p = (const uint8_t *)data;
    uint64_t c = ~crc;
    while (length && ((uintptr_t)p & 7)) {
        c = _mm_crc32_u8((uint32_t)c, *p++);
        length--;
    }
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        c = _mm_crc32_u64(c, word);
        p += 8;
        length -= 8;
    }
    while (length--) c = _mm_crc32_u8((uint32_t)c, *p++);
    return ~(uint32_t)c;
}

static int have_sse42(void) {
    static int cached = -1;
    if (cached < 0) {
        __builtin_cpu_init();
        cached = __builtin_cpu_supports("sse4.2") ? 1 : 0;
    }
    return cached;
}

uint32_t cairn_crc32c_extend(uint32_t crc, const void *data, size_t length) {
    if (have_sse42()) return crc32c_sse42(crc, data, length);
    return cairn_crc32c_extend_portable(crc, data, length);
}

int cairn_crc32c_is_hardware(void) { return have_sse42(); }

#else

uint32_t cairn_crc32c_extend(uint32_t crc, const void *data, size_t length) {
    return cairn_crc32c_extend_portable(crc, data, length);
}

int cairn_crc32c_is_hardware(void) { return 0; }

#endif
