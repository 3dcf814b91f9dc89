/* ggml's quantized blocks as a GGUF stores them, and our int8-quantized activations.
 * Shared by gguf_matmul.c and the interleaved layouts of gguf_interleaved.h. */
#ifndef LLM_BACKEND_GGUF_BLOCKS_H
#define LLM_BACKEND_GGUF_BLOCKS_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#define ALWAYS_INLINE static inline __attribute__((always_inline))

enum { Q4_1 = 3, Q5_0 = 6, Q8_0 = 8, Q4_K = 12, Q6_K = 14 }; /* ggml's type ids */

typedef struct { uint16_t d, m; uint8_t qs[16]; } block_q4_1;
typedef struct { uint16_t d; uint8_t qh[4]; uint8_t qs[16]; } block_q5_0;
typedef struct { uint16_t d; int8_t qs[32]; } block_q8_0;
typedef struct { uint16_t d, dmin; uint8_t scales[12]; uint8_t qs[128]; } block_q4_K;
typedef struct { uint8_t ql[128]; uint8_t qh[64]; int8_t scales[16]; uint16_t d; } block_q6_K;
_Static_assert(sizeof(block_q4_1) == 20 && sizeof(block_q5_0) == 22 && sizeof(block_q8_0) == 34, "ggml layout");
_Static_assert(sizeof(block_q4_K) == 144 && sizeof(block_q6_K) == 210, "ggml layout");

/* Quantized activations: 32 values (sum for the offsets of Q4_1 / Q5_0) or 256 (llama.cpp's Q8_K:
 * sums per 16; the interleaved kernels also read them summed per 32 and reordered, see there). */
typedef struct { float d; float s; int32_t sum; int32_t unused; int8_t qs[32]; } act32;
typedef struct {
    float d;
    int16_t bsums[16];      /* per 16 values */
    int16_t bsums32_x8[8];  /* per 32 values, in the order 0 1 4 5 2 3 6 7 */
    int16_t bsums16_x8[16]; /* per 16 values, in the order 0 1 8 9 2 3 10 11 4 5 12 13 6 7 14 15 */
    int8_t qs[256];
} act256;

static inline float fp16(uint16_t h) { return _cvtsh_ss(h); }

static inline __m128i float8_to_bf16(__m256 v) { /* round to nearest even, as bf16.h's float_to_bf16 */
    __m256i bits = _mm256_castps_si256(v);
    const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
    bits = _mm256_srli_epi32(_mm256_add_epi32(bits, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7FFF))), 16);
    return _mm_packus_epi32(_mm256_castsi256_si128(bits), _mm256_extracti128_si256(bits, 1));
}

/* Q4_K's 6-bit scale and min of sub-block j (0-7), packed in 12 bytes. */
static inline void q4_K_scale_min(const uint8_t *s, int j, int *scale, int *min) {
    *scale = j < 4 ? s[j] & 63 : (s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4);
    *min = j < 4 ? s[j + 4] & 63 : (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
}

/* Quant v (0-255) of a block: Q4_K 0-15, Q6_K 0-63 (the value + 32). */
static inline int q4_K_quant(const block_q4_K *b, int v) {
    const uint8_t byte = b->qs[32 * (v / 64) + v % 32];
    return v % 64 < 32 ? byte & 0xF : byte >> 4;
}

static inline int q6_K_quant(const block_q6_K *b, int v) {
    const int h = v / 128, c = (v % 128) / 32, l = v % 32;
    const int low = b->ql[64 * h + 32 * (c % 2) + l] >> (4 * (c / 2)) & 0xF;
    const int high = b->qh[32 * h + l] >> (2 * c) & 3;
    return low | high << 4;
}

#endif
