// CRC32C (Castagnoli). Hardware path: the SSE4.2 crc32 instruction, 8 bytes at a time, on three streams at
// once for buffers of at least 768 bytes (the instruction's latency is three cycles and its throughput one per
// cycle, so one stream leaves two thirds of it idle); the three registers are then combined by shifting one over
// the others' bytes, a multiplication by x^(8n) mod P done with four table lookups. Portable path: slicing-by-8
// tables. Tables are built on first use. Both compute the standard CRC32C: check value of "123456789" is
// 0xE3069283.
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

/* Bytes per stream of the two interleaved block sizes: a frame of a few KiB takes one long block and a few
   short ones. */
#define LONG_BLOCK 2048
#define SHORT_BLOCK 256

/* Multiplication by x^(8 * LONG_BLOCK) and x^(8 * SHORT_BLOCK) modulo P, one table per byte of the register. */
static uint32_t long_shift[4][256];
static uint32_t short_shift[4][256];
static pthread_once_t shift_once = PTHREAD_ONCE_INIT;

/* a(x) * b(x) modulo P, in the reflected representation (x^0 is the top bit). */
static uint32_t multiply_mod_p(uint32_t a, uint32_t b) {
    uint32_t product = 0;
    for (uint32_t bit = 1u << 31; bit != 0; bit >>= 1) {
        if (a & bit) product ^= b;
        b = (b & 1) ? (b >> 1) ^ POLY : b >> 1;
    }
    return product;
}

static void build_shift_table(uint32_t shift[4][256], size_t bytes) {
    uint32_t factor = 1u << 31; /* x^0 */
    for (size_t i = 0; i < bytes; i++) factor = multiply_mod_p(1u << 23, factor); /* times x^8 */
    for (int k = 0; k < 4; k++) {
        for (uint32_t b = 0; b < 256; b++) shift[k][b] = multiply_mod_p(factor, b << (8 * k));
    }
}

static void build_shift_tables(void) {
    build_shift_table(long_shift, LONG_BLOCK);
    build_shift_table(short_shift, SHORT_BLOCK);
}

static inline uint32_t shift_register(uint32_t shift[4][256], uint32_t crc) {
    return shift[0][crc & 0xFF] ^ shift[1][(crc >> 8) & 0xFF] ^ shift[2][(crc >> 16) & 0xFF] ^ shift[3][crc >> 24];
}

/* The register after 3 * block bytes at p: three streams of block bytes, the second and third started from a
   zero register, then each register shifted over the bytes of the streams after it and combined. */
__attribute__((target("sse4.2")))
static inline uint64_t crc32c_three_streams(uint64_t c0, const uint8_t *p, size_t block, uint32_t shift[4][256]) {
    uint64_t c1 = 0, c2 = 0;
    const uint8_t *end = p + block;
    do {
        uint64_t w0, w1, w2;
        memcpy(&w0, p, 8);
        memcpy(&w1, p + block, 8);
        memcpy(&w2, p + 2 * block, 8);
        c0 = _mm_crc32_u64(c0, w0);
        c1 = _mm_crc32_u64(c1, w1);
        c2 = _mm_crc32_u64(c2, w2);
        p += 8;
    } while (p < end);
    c0 = shift_register(shift, (uint32_t)c0) ^ c1;
    return shift_register(shift, (uint32_t)c0) ^ c2;
}

__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc, const void *data, size_t length) {
    const uint8_t *p = (const uint8_t *)data;
    uint64_t c = ~crc;
    while (length && ((uintptr_t)p & 7)) {
        c = _mm_crc32_u8((uint32_t)c, *p++);
        length--;
    }
    if (length >= 3 * SHORT_BLOCK) {
        pthread_once(&shift_once, build_shift_tables);
        while (length >= 3 * LONG_BLOCK) {
            c = crc32c_three_streams(c, p, LONG_BLOCK, long_shift);
            p += 3 * LONG_BLOCK;
            length -= 3 * LONG_BLOCK;
        }
        while (length >= 3 * SHORT_BLOCK) {
            c = crc32c_three_streams(c, p, SHORT_BLOCK, short_shift);
            p += 3 * SHORT_BLOCK;
            length -= 3 * SHORT_BLOCK;
        }
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
