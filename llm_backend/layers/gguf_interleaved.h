/* Q4_K and Q6_K weights with 8 rows interleaved: repacked once at load time.
 *
 * The plain kernels (gguf_matmul.c) dot one weight row at a time: each sub-block's integer scale
 * costs a multiply per activation row, and every row's int32 lanes are summed across the vector
 * once per super-block; the multiply and shuffle pipes, not memory, set the pace. Here the 8 rows'
 * quants sit side by side, 8 consecutive quants of a row in each 64-bit lane, so one broadcast of
 * 8 activation bytes serves 8 weight rows, the 8 rows' sub-block scales are applied as one vector,
 * and each row's total ends up in its own lane:
 *
 * - AVX-512 (VNNI, VBMI): a 64-byte vector holds the 8 rows (int32 lane 2r + h: row r, quants
 *   4h..4h+3 of the 8); per 32 quants of 8 rows and an activation row Q4_K takes 4 `vpdpbusd` and
 *   1 `vpdpwssd` (the plain kernel: 16 multiplies);
 * - AVX2 (llama.cpp's trick for its Q4_K 8x8 layout): a 32-byte vector holds rows 0-3 or 4-7 of
 *   the same bytes; `vpmaddubsw` products stay int16 across a whole Q4_K sub-block (two for Q6_K,
 *   whose quants are larger), then one `vpmaddwd` applies the 4 rows' scales: per 32 quants of 8
 *   rows and an activation row, 8 + 2 multiplies (the plain kernel: 16), and no horizontal sums.
 *
 * Exact: the same quants, scales and mins, moved; the integer sums are the plain kernels' sums, and
 * their floats the same operations in the same order (see gguf_matmul.c): the same bits.
 * A weight whose row count is not a multiple of 8 keeps its last rows in the plain layout.
 */
#ifndef LLM_BACKEND_GGUF_INTERLEAVED_H
#define LLM_BACKEND_GGUF_INTERLEAVED_H

#include "gguf_blocks.h"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VNNI__) && defined(__AVX512VBMI__)
#define X8_AVX512 1 /* the 64-byte kernels below; else the 32-byte ones */
#else
#define X8_AVX512 0
#endif
#define X8 0x100 /* type id | X8: a segment of rows interleaved by 8 */

typedef struct {
    uint16_t d[8], dmin[8];
    uint8_t scales[64]; /* [sub-block s][row r] */
    uint8_t mins[64];   /* [j][r][h][e]: the min of sub-block 4h + 2j + e */
    uint8_t qs[1024];   /* [s][p][r][i]: quant 32s + 8p + i in the low nibble, 32s + 16 + 8p + i in the high */
} block_q4_Kx8;

/* Q6_K's quants in 64-byte vectors [r][i]: low vector k (0-15) holds the low 4 bits of quant 8k + i
 * (low nibble) and 128 + 8k + i (high nibble); top vector m (0-7) holds in bits 2f, 2f + 1 the top 2
 * bits of quant 64f + 8m + i. They are stored in the order the kernel reads them, so that a block
 * streams from memory front to back: for j = 0-3, low vectors 2j, 2j + 1, 2j + 8, 2j + 9 and top
 * vectors 2j, 2j + 1. */
typedef struct {
    uint16_t d[8];
    int8_t scales[128]; /* [sub-block s of 16 quants][row r] */
    uint8_t q[4][6][64];
} block_q6_Kx8;
_Static_assert(sizeof(block_q4_Kx8) == 1184, "the 8 rows' blocks (1152 bytes) with their scales unpacked");
_Static_assert(sizeof(block_q6_Kx8) == 8 * sizeof(block_q6_K), "same size as the 8 rows' blocks");

/* ---- repacking: one super-block of 8 rows, scalar (runs once) ---- */

static void repack_q4_Kx8(const block_q4_K *const rows[8], block_q4_Kx8 *out) {
    for (int r = 0; r < 8; r++) {
        const block_q4_K *b = rows[r];
        int mins[8];
        out->d[r] = b->d;
        out->dmin[r] = b->dmin;
        for (int j = 0; j < 8; j++) {
            int scale;
            q4_K_scale_min(b->scales, j, &scale, &mins[j]);
            out->scales[8 * j + r] = (uint8_t)scale;
        }
        for (int j = 0; j < 2; j++)
            for (int h = 0; h < 2; h++)
                for (int e = 0; e < 2; e++) out->mins[32 * j + 4 * r + 2 * h + e] = (uint8_t)mins[4 * h + 2 * j + e];
        for (int s = 0; s < 8; s++)
            for (int p = 0; p < 2; p++)
                for (int i = 0; i < 8; i++)
                    out->qs[128 * s + 64 * p + 8 * r + i] =
                        (uint8_t)(q4_K_quant(b, 32 * s + 8 * p + i) | q4_K_quant(b, 32 * s + 16 + 8 * p + i) << 4);
    }
}

static void repack_q6_Kx8(const block_q6_K *const rows[8], block_q6_Kx8 *out) {
    for (int r = 0; r < 8; r++) {
        const block_q6_K *b = rows[r];
        out->d[r] = b->d;
        for (int s = 0; s < 16; s++) out->scales[8 * s + r] = b->scales[s];
        for (int j = 0; j < 4; j++)
            for (int v = 0; v < 6; v++)
                for (int i = 0; i < 8; i++) {
                    int bits = 0;
                    if (v < 4) { /* low vector k */
                        const int k = 2 * j + v % 2 + 8 * (v / 2);
                        bits = (q6_K_quant(b, 8 * k + i) & 0xF) | (q6_K_quant(b, 128 + 8 * k + i) & 0xF) << 4;
                    } else { /* top vector m */
                        const int m = 2 * j + v - 4;
                        for (int f = 0; f < 4; f++) bits |= (q6_K_quant(b, 64 * f + 8 * m + i) >> 4) << (2 * f);
                    }
                    out->q[j][v][8 * r + i] = (uint8_t)bits;
                }
    }
}

/* Bytes of one interleaved super-block (8 rows) of `type`. */
int64_t gguf_x8_block_bytes(int64_t type) { return type == Q4_K ? sizeof(block_q4_Kx8) : sizeof(block_q6_Kx8); }

/* out: rows / 8 groups, each its super-blocks in order; `rows` a multiple of 8. */
void gguf_repack_x8(int64_t type, const uint8_t *blocks, int64_t rows, int64_t K, uint8_t *out, int threads) {
    const int64_t nb = K / 256, size = type == Q4_K ? sizeof(block_q4_K) : sizeof(block_q6_K);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t g = 0; g < rows / 8; g++)
        for (int64_t b = 0; b < nb; b++) {
            const void *group[8];
            for (int r = 0; r < 8; r++) group[r] = blocks + ((8 * g + r) * nb + b) * size;
            uint8_t *o = out + (g * nb + b) * gguf_x8_block_bytes(type);
            if (type == Q4_K) repack_q4_Kx8((const block_q4_K *const *)group, (block_q4_Kx8 *)o);
            else repack_q6_Kx8((const block_q6_K *const *)group, (block_q6_Kx8 *)o);
        }
}

#if X8_AVX512

/* 8 activation bytes in every 64-bit lane: quants 4h..4h+3 meet int32 lane 2r + h. */
static inline __m512i broadcast8(const void *p) {
    int64_t v;
    memcpy(&v, p, 8);
    return _mm512_set1_epi64(v);
}

/* Lanes 2r + h of an integer sum -> both lanes of row r hold the row's total (exact). */
static inline __m512i pair_totals(__m512i sums) { return _mm512_add_epi32(sums, _mm512_shuffle_epi32(sums, _MM_PERM_CDAB)); }

typedef __m512 x8_acc; /* a kernel's accumulator for one activation row: weight row r in lanes 2r and 2r + 1 */

/* Lane 2r -> r: the accumulators hold each row's value twice (in lanes 2r and 2r + 1). */
static inline __m256 row_values(x8_acc acc) {
    return _mm512_castps512_ps256(
        _mm512_permutexvar_ps(_mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 0, 0, 0, 0, 0, 0, 0, 0), acc));
}

/* The 8 rows' fp16 values as floats in lanes 2r and 2r + 1. */
static inline __m512 per_row(const uint16_t *values) {
    const __m512 v = _mm512_castps256_ps512(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)values)));
    return _mm512_permutexvar_ps(_mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7), v);
}

#define LANE_ROW _mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7)

/* acc[r] (lanes 2r' + h) += the dot products of 8 weight rows with activation row r (nb super-blocks). */
ALWAYS_INLINE void dot_q4_Kx8(const block_q4_Kx8 *w, int64_t nb, const act256 *const *a, int rows, x8_acc *acc) {
    const __m512i low4 = _mm512_set1_epi8(0x0F);
    for (int64_t b = 0; b < nb; b++) {
        const block_q4_Kx8 *x = w + b;
        const __m512i scales = _mm512_loadu_si512(x->scales);
        __m512i sums[ROWS];
        for (int r = 0; r < rows; r++) sums[r] = _mm512_setzero_si512();
        for (int s = 0; s < 8; s++) {
            /* int32 lane 2r + h = the scale of row r (as the int16 pair (scale, 0) for vpdpwssd) */
            const __m512i scale = _mm512_maskz_permutexvar_epi8(
                0x1111111111111111ULL, _mm512_add_epi32(LANE_ROW, _mm512_set1_epi32(8 * s)), scales);
            const __m512i p0 = _mm512_loadu_si512(x->qs + 128 * s), p1 = _mm512_loadu_si512(x->qs + 128 * s + 64);
            const __m512i q[4] = {_mm512_and_si512(p0, low4), _mm512_and_si512(p1, low4),
                                  _mm512_and_si512(_mm512_srli_epi16(p0, 4), low4),
                                  _mm512_and_si512(_mm512_srli_epi16(p1, 4), low4)};
            for (int r = 0; r < rows; r++) {
                const int8_t *qa = a[r][b].qs + 32 * s;
                __m512i t = _mm512_dpbusd_epi32(_mm512_setzero_si512(), q[0], broadcast8(qa));
                t = _mm512_dpbusd_epi32(t, q[1], broadcast8(qa + 8));
                t = _mm512_dpbusd_epi32(t, q[2], broadcast8(qa + 16));
                t = _mm512_dpbusd_epi32(t, q[3], broadcast8(qa + 24)); /* |t| <= 16 * 15 * 127: an int16 */
                sums[r] = _mm512_dpwssd_epi32(sums[r], t, scale);
            }
        }
        const __m512i mins0 = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)x->mins));
        const __m512i mins1 = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(x->mins + 32)));
        const __m512 d = per_row(x->d), dmin = per_row(x->dmin);
        for (int r = 0; r < rows; r++) {
            const act256 *y = a[r] + b;
            __m512i m = _mm512_dpwssd_epi32(_mm512_setzero_si512(), mins0, broadcast8(y->bsums32_x8));
            m = _mm512_dpwssd_epi32(m, mins1, broadcast8(y->bsums32_x8 + 4));
            const __m512 ad = _mm512_set1_ps(y->d); /* the plain kernel's order of float operations */
            acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(pair_totals(sums[r])), _mm512_mul_ps(ad, d), acc[r]);
            acc[r] = _mm512_fnmadd_ps(_mm512_cvtepi32_ps(pair_totals(m)), _mm512_mul_ps(ad, dmin), acc[r]);
        }
    }
}

/* Bits 2f, 2f + 1 of each byte moved to bits 4, 5, the rest cleared. */
ALWAYS_INLINE __m512i top_bits(__m512i qh, int f) {
    const __m512i moved = f == 0 ? _mm512_slli_epi16(qh, 4) : f == 1 ? _mm512_slli_epi16(qh, 2)
                        : f == 2 ? qh : _mm512_srli_epi16(qh, 2);
    return _mm512_and_si512(moved, _mm512_set1_epi8(0x30));
}

/* (low & 0x0F) | top: a 6-bit quant per byte. */
static inline __m512i q6_quants(__m512i low, __m512i top) {
    return _mm512_ternarylogic_epi32(low, top, _mm512_set1_epi8(0x0F), 0xEC);
}

/* Sub-block scales as int16, from bytes of `table` picked by `index` into the odd bytes. */
static inline __m512i scale_words(__m512i index, __m512i low, __m512i high) {
    return _mm512_srai_epi16(_mm512_maskz_permutex2var_epi8(0xAAAAAAAAAAAAAAAAULL, low, index, high), 8);
}

ALWAYS_INLINE void dot_q6_Kx8(const block_q6_Kx8 *w, int64_t nb, const act256 *const *a, int rows, x8_acc *acc) {
    /* odd bytes of lane 2r + h: r, to which 8 * sub-block is added */
    const __m512i odd_row = _mm512_mullo_epi32(LANE_ROW, _mm512_set1_epi32(0x01000100));
    const __m512i odd_half = _mm512_setr_epi32(0, 0x40004000, 0, 0x40004000, 0, 0x40004000, 0, 0x40004000, 0,
                                               0x40004000, 0, 0x40004000, 0, 0x40004000, 0, 0x40004000); /* 64h */
    for (int64_t b = 0; b < nb; b++) {
        const block_q6_Kx8 *x = w + b;
        const __m512i scales_low = _mm512_loadu_si512(x->scales), scales_high = _mm512_loadu_si512(x->scales + 64);
        __m512i sums[ROWS];
        for (int r = 0; r < rows; r++) sums[r] = _mm512_setzero_si512();
        for (int i = 0; i < 8; i++) { /* in memory order: sub-blocks s (low nibbles) and s + 8 (high nibbles) */
            const int s = i / 2 + 4 * (i % 2), f = i % 2; /* low vectors 2s, 2s + 1, top vectors 2s % 8, + 1 */
            const uint8_t *v = x->q[i / 2][0];
            const __m512i ql0 = _mm512_loadu_si512(v + 128 * f), ql1 = _mm512_loadu_si512(v + 128 * f + 64);
            const __m512i qh0 = _mm512_loadu_si512(v + 256), qh1 = _mm512_loadu_si512(v + 320);
            const __m512i q[4] = {q6_quants(ql0, top_bits(qh0, f)), q6_quants(ql1, top_bits(qh1, f)),
                                  q6_quants(_mm512_srli_epi16(ql0, 4), top_bits(qh0, f + 2)),
                                  q6_quants(_mm512_srli_epi16(ql1, 4), top_bits(qh1, f + 2))};
            const __m512i scale_lo = scale_words(_mm512_add_epi32(odd_row, _mm512_set1_epi32(8 * s * 0x01000100)),
                                                 scales_low, scales_high);
            const __m512i scale_hi = scale_words(
                _mm512_add_epi32(odd_row, _mm512_set1_epi32((64 + 8 * s) * 0x01000100)), scales_low, scales_high);
            for (int r = 0; r < rows; r++) {
                const int8_t *lo = a[r][b].qs + 16 * s, *hi = a[r][b].qs + 128 + 16 * s;
                /* two maddubs of 2 products each: |pair| <= 4 * 63 * 127, an int16 */
                const __m512i m_lo = _mm512_add_epi16(_mm512_maddubs_epi16(q[0], broadcast8(lo)),
                                                      _mm512_maddubs_epi16(q[1], broadcast8(lo + 8)));
                const __m512i m_hi = _mm512_add_epi16(_mm512_maddubs_epi16(q[2], broadcast8(hi)),
                                                      _mm512_maddubs_epi16(q[3], broadcast8(hi + 8)));
                sums[r] = _mm512_dpwssd_epi32(_mm512_dpwssd_epi32(sums[r], m_lo, scale_lo), m_hi, scale_hi);
            }
        }
        /* the quants are value + 32: minus 32 * sum over sub-blocks of scale * activation sum */
        __m512i pair_scales[4]; /* int16 e of lane 2r + h: the scale of sub-block 8h + 2j + e */
        for (int j = 0; j < 4; j++)
            pair_scales[j] = scale_words(_mm512_add_epi32(_mm512_add_epi32(odd_row, odd_half),
                                                          _mm512_set1_epi32(16 * j << 8 | (16 * j + 8) << 24)),
                                         scales_low, scales_high);
        const __m512 d = per_row(x->d);
        for (int r = 0; r < rows; r++) {
            const act256 *y = a[r] + b;
            __m512i offset = _mm512_setzero_si512();
            for (int j = 0; j < 4; j++) offset = _mm512_dpwssd_epi32(offset, pair_scales[j], broadcast8(y->bsums16_x8 + 4 * j));
            const __m512i total = pair_totals(_mm512_sub_epi32(sums[r], _mm512_slli_epi32(offset, 5)));
            acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(total), _mm512_mul_ps(_mm512_set1_ps(y->d), d), acc[r]);
        }
    }
}

/* ---- dequantization to bf16 (long prefill chunks) ---- */

static inline __m256i bf16_16(__m512 v) { /* round to nearest even, as float_to_bf16 */
#if defined(__AVX512BF16__)
    return (__m256i)_mm512_cvtneps_pbh(v);
#else
    __m512i bits = _mm512_castps_si512(v);
    const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1));
    bits = _mm512_srli_epi32(_mm512_add_epi32(bits, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7FFF))), 16);
    return _mm512_cvtepi32_epi16(bits);
#endif
}

/* 64 quants (8 rows x 8, as unpacked above; int8 if `is_signed`) * scale[r] - offset[r] as bf16,
 * each row's 8 at out + r * K. */
static inline void store_8x8(__m512i q, int is_signed, const float scale[8], const float offset[8], uint16_t *out,
                             int64_t K) {
    for (int k = 0; k < 4; k++) { /* rows 2k, 2k + 1 */
        const __m128i part = k == 0 ? _mm512_extracti32x4_epi32(q, 0) : k == 1 ? _mm512_extracti32x4_epi32(q, 1)
                           : k == 2 ? _mm512_extracti32x4_epi32(q, 2) : _mm512_extracti32x4_epi32(q, 3);
        const __m512 v = _mm512_cvtepi32_ps(is_signed ? _mm512_cvtepi8_epi32(part) : _mm512_cvtepu8_epi32(part));
        const __m512 sc = _mm512_insertf32x8(_mm512_set1_ps(scale[2 * k]), _mm256_set1_ps(scale[2 * k + 1]), 1);
        const __m512 off = _mm512_insertf32x8(_mm512_set1_ps(offset[2 * k]), _mm256_set1_ps(offset[2 * k + 1]), 1);
        const __m256i y = bf16_16(_mm512_sub_ps(_mm512_mul_ps(v, sc), off)); /* as gguf: (d * scale) * q - dmin * min */
        _mm_storeu_si128((__m128i *)(out + 2 * k * K), _mm256_castsi256_si128(y));
        _mm_storeu_si128((__m128i *)(out + (2 * k + 1) * K), _mm256_extracti128_si256(y, 1));
    }
}

/* One super-block of 8 rows -> out[r * K + v], v < 256. */
static void dequantize_q4_Kx8_bf16(const block_q4_Kx8 *x, uint16_t *out, int64_t K) {
    const __m512i low4 = _mm512_set1_epi8(0x0F);
    for (int s = 0; s < 8; s++) {
        float scale[8], offset[8];
        for (int r = 0; r < 8; r++) {
            scale[r] = fp16(x->d[r]) * (float)x->scales[8 * s + r];
            offset[r] = fp16(x->dmin[r]) * (float)x->mins[32 * (s % 4 / 2) + 4 * r + 2 * (s / 4) + s % 2]; /* see mins */
        }
        for (int p = 0; p < 2; p++) {
            const __m512i packed = _mm512_loadu_si512(x->qs + 128 * s + 64 * p);
            store_8x8(_mm512_and_si512(packed, low4), 0, scale, offset, out + 32 * s + 8 * p, K);
            store_8x8(_mm512_and_si512(_mm512_srli_epi16(packed, 4), low4), 0, scale, offset, out + 32 * s + 16 + 8 * p, K);
        }
    }
}

static void dequantize_q6_Kx8_bf16(const block_q6_Kx8 *x, uint16_t *out, int64_t K) {
    const float zero[8] = {0};
    for (int t = 0; t < 32; t++) { /* quants 8t..8t+7: sub-block t / 2 */
        float scale[8];
        for (int r = 0; r < 8; r++) scale[r] = fp16(x->d[r]) * (float)x->scales[8 * (t / 2) + r];
        const int k = t % 16, m = t % 8; /* low vector k, top vector m (see block_q6_Kx8) */
        const uint8_t *v = x->q[k % 8 / 2][0];
        const __m512i ql = _mm512_loadu_si512(v + 64 * (k % 2 + 2 * (k / 8))), qh = _mm512_loadu_si512(v + 64 * (4 + m % 2));
        const __m512i low = t < 16 ? ql : _mm512_srli_epi16(ql, 4);
        const __m512i top = t / 8 == 0 ? top_bits(qh, 0) : t / 8 == 1 ? top_bits(qh, 1) : t / 8 == 2 ? top_bits(qh, 2)
                                                                                                  : top_bits(qh, 3);
        const __m512i q = _mm512_sub_epi8(q6_quants(low, top), _mm512_set1_epi8(32));
        store_8x8(q, 1, scale, zero, out + 8 * t, K);
    }
}

#else /* AVX2 */

typedef __m256 x8_acc; /* a kernel's accumulator for one activation row: weight row r in lane r */

static inline __m256 row_values(x8_acc acc) { return acc; }

/* 8 activation bytes in every 64-bit lane: quants 4h..4h+3 meet int32 lane 2r + h of a half's 4 rows. */
static inline __m256i broadcast8(const void *p) {
    int64_t v;
    memcpy(&v, p, 8);
    return _mm256_set1_epi64x(v);
}

/* Lanes 2r + h of rows 0-3 and of rows 4-7 -> lane r: row r's total (exact). */
static inline __m256i row_totals_x8(__m256i rows03, __m256i rows47) {
    return _mm256_permute4x64_epi64(_mm256_hadd_epi32(rows03, rows47), _MM_SHUFFLE(3, 1, 2, 0));
}

/* The int16 lanes of half g's rows (4g..4g+3), 4 each, from the 8 rows' bytes: `is_signed` widens as int8. */
static inline __m256i row_words(__m128i bytes, int g, int is_signed) {
    const __m128i spread = _mm_shuffle_epi8(bytes, g ? _mm_setr_epi8(4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7)
                                                     : _mm_setr_epi8(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3));
    return is_signed ? _mm256_cvtepi8_epi16(spread) : _mm256_cvtepu8_epi16(spread);
}

/* row_words(the 8 bytes at p, g, 0) in one shuffle: zero bytes (index -1) are the words' high halves.
 * Reads 16 bytes. */
static inline __m256i row_words_unsigned(const uint8_t *p, int g) {
    const __m256i index = _mm256_add_epi8(_mm256_set1_epi16((short)(0xFF00 | 4 * g)),
                                          _mm256_setr_epi16(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3));
    return _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)p)), index);
}

/* The quants of half g (rows 4g..4g+3) of sub-block s, 8 per row and 64-bit lane, in 4 vectors. */
ALWAYS_INLINE void q4_Kx8_quants(const block_q4_Kx8 *x, int s, int g, __m256i q[4]) {
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    const __m256i p0 = _mm256_loadu_si256((const __m256i *)(x->qs + 128 * s + 32 * g));
    const __m256i p1 = _mm256_loadu_si256((const __m256i *)(x->qs + 128 * s + 64 + 32 * g));
    q[0] = _mm256_and_si256(p0, low4), q[1] = _mm256_and_si256(p1, low4);
    q[2] = _mm256_and_si256(_mm256_srli_epi16(p0, 4), low4), q[3] = _mm256_and_si256(_mm256_srli_epi16(p1, 4), low4);
}

/* The 32 activation bytes of sub-block s, 8 broadcast to each 64-bit lane. */
ALWAYS_INLINE void q4_Kx8_activations(const int8_t *qa, __m256i act[4]) {
    for (int i = 0; i < 4; i++) act[i] = broadcast8(qa + 8 * i);
}

/* Per int32 lane 2r' + h: the sub-block's dot products of half g's rows r' times their scales. */
ALWAYS_INLINE __m256i q4_Kx8_dot(const block_q4_Kx8 *x, int s, int g, const __m256i q[4], const __m256i act[4]) {
    const __m256i scale = row_words_unsigned(x->scales + 8 * s, g); /* the 16 bytes end inside mins */
    __m256i t = _mm256_maddubs_epi16(q[0], act[0]);
    for (int i = 1; i < 4; i++) t = _mm256_add_epi16(t, _mm256_maddubs_epi16(q[i], act[i])); /* |t| <= 8 * 15 * 127 */
    return _mm256_madd_epi16(t, scale);
}

/* acc[r] (lane r') += the dot products of 8 weight rows r' with activation row r (nb super-blocks). */
ALWAYS_INLINE void dot_q4_Kx8(const block_q4_Kx8 *w, int64_t nb, const act256 *const *a, int rows, x8_acc *acc) {
    for (int64_t b = 0; b < nb; b++) {
        const block_q4_Kx8 *x = w + b;
        __m256i sums[ROWS][2], q[4], act[4]; /* [activation row][half] */
        for (int r = 0; r < rows; r++) sums[r][0] = sums[r][1] = _mm256_setzero_si256();
        if (rows == 1) /* both halves of a sub-block at once: one broadcast of the activations serves both */
            for (int s = 0; s < 8; s++) {
                q4_Kx8_activations(a[0][b].qs + 32 * s, act);
                for (int g = 0; g < 2; g++) {
                    q4_Kx8_quants(x, s, g, q);
                    sums[0][g] = _mm256_add_epi32(sums[0][g], q4_Kx8_dot(x, s, g, q, act));
                }
            }
        else /* half by half: 16 registers hold one half's sums, not both */
            for (int g = 0; g < 2; g++)
                for (int s = 0; s < 8; s++) {
                    q4_Kx8_quants(x, s, g, q);
                    for (int r = 0; r < rows; r++) {
                        q4_Kx8_activations(a[r][b].qs + 32 * s, act);
                        sums[r][g] = _mm256_add_epi32(sums[r][g], q4_Kx8_dot(x, s, g, q, act));
                    }
                }
        __m256i mins[2][2]; /* [j][half]: int16 lanes 4r' + 2h + e, see block_q4_Kx8 */
        for (int j = 0; j < 2; j++)
            for (int g = 0; g < 2; g++)
                mins[j][g] = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(x->mins + 32 * j + 16 * g)));
        const __m256 d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)x->d));
        const __m256 dmin = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)x->dmin));
        for (int r = 0; r < rows; r++) {
            const act256 *y = a[r] + b;
            const __m256i s0 = broadcast8(y->bsums32_x8), s1 = broadcast8(y->bsums32_x8 + 4);
            const __m256i m03 = _mm256_add_epi32(_mm256_madd_epi16(mins[0][0], s0), _mm256_madd_epi16(mins[1][0], s1));
            const __m256i m47 = _mm256_add_epi32(_mm256_madd_epi16(mins[0][1], s0), _mm256_madd_epi16(mins[1][1], s1));
            const __m256 ad = _mm256_set1_ps(y->d); /* the plain kernel's order of float operations */
            acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(row_totals_x8(sums[r][0], sums[r][1])), _mm256_mul_ps(ad, d),
                                     acc[r]);
            acc[r] = _mm256_fnmadd_ps(_mm256_cvtepi32_ps(row_totals_x8(m03, m47)), _mm256_mul_ps(ad, dmin), acc[r]);
        }
    }
}

/* Bits 2f, 2f + 1 of each byte moved to bits 4, 5, the rest cleared. */
ALWAYS_INLINE __m256i top_bits(__m256i qh, int f) {
    const __m256i moved = f == 0 ? _mm256_slli_epi16(qh, 4) : f == 1 ? _mm256_slli_epi16(qh, 2)
                        : f == 2 ? qh : _mm256_srli_epi16(qh, 2);
    return _mm256_and_si256(moved, _mm256_set1_epi8(0x30));
}

/* (low & 0x0F) | top: a 6-bit quant per byte. */
static inline __m256i q6_quants(__m256i low, __m256i top) {
    return _mm256_or_si256(_mm256_and_si256(low, _mm256_set1_epi8(0x0F)), top);
}

/* Step i (in memory order: sub-blocks s (low nibbles) and s + 8 (high nibbles), see below) of half g (rows
 * 4g..4g+3): 8 quants per row and 64-bit lane in 4 vectors, sub-blocks s, s, s + 8, s + 8. */
ALWAYS_INLINE void q6_Kx8_quants(const block_q6_Kx8 *x, int i, int g, __m256i q[4]) {
    const int f = i % 2; /* low vectors 2s, 2s + 1, top vectors 2s % 8, + 1 */
    const uint8_t *v = x->q[i / 2][0];
    const __m256i ql0 = _mm256_loadu_si256((const __m256i *)(v + 128 * f + 32 * g));
    const __m256i ql1 = _mm256_loadu_si256((const __m256i *)(v + 128 * f + 64 + 32 * g));
    const __m256i qh0 = _mm256_loadu_si256((const __m256i *)(v + 256 + 32 * g));
    const __m256i qh1 = _mm256_loadu_si256((const __m256i *)(v + 320 + 32 * g));
    q[0] = q6_quants(ql0, top_bits(qh0, f)), q[1] = q6_quants(ql1, top_bits(qh1, f));
    q[2] = q6_quants(_mm256_srli_epi16(ql0, 4), top_bits(qh0, f + 2));
    q[3] = q6_quants(_mm256_srli_epi16(ql1, 4), top_bits(qh1, f + 2));
}

/* The 16 activation bytes of sub-blocks s and s + 8, 8 broadcast to each 64-bit lane. */
ALWAYS_INLINE void q6_Kx8_activations(const int8_t *qa, int s, __m256i act[4]) {
    for (int i = 0; i < 4; i++) act[i] = broadcast8(qa + 128 * (i / 2) + 16 * s + 8 * (i % 2));
}

/* Per int32 lane 2r' + h: step i's dot products of half g's rows r' times their sub-block scales. */
ALWAYS_INLINE __m256i q6_Kx8_dot(const block_q6_Kx8 *x, int s, int g, const __m256i q[4], const __m256i act[4]) {
    const __m256i scale_lo = row_words(_mm_loadl_epi64((const __m128i *)(x->scales + 8 * s)), g, 1);
    const __m256i scale_hi = row_words(_mm_loadl_epi64((const __m128i *)(x->scales + 64 + 8 * s)), g, 1);
    /* two maddubs of 2 products each: |pair| <= 4 * 63 * 127, an int16 */
    const __m256i m_lo = _mm256_add_epi16(_mm256_maddubs_epi16(q[0], act[0]), _mm256_maddubs_epi16(q[1], act[1]));
    const __m256i m_hi = _mm256_add_epi16(_mm256_maddubs_epi16(q[2], act[2]), _mm256_maddubs_epi16(q[3], act[3]));
    return _mm256_add_epi32(_mm256_madd_epi16(m_lo, scale_lo), _mm256_madd_epi16(m_hi, scale_hi));
}

ALWAYS_INLINE void dot_q6_Kx8(const block_q6_Kx8 *w, int64_t nb, const act256 *const *a, int rows, x8_acc *acc) {
    /* bytes r, 8 + r of 16: the scales of 2 consecutive sub-blocks for row r, side by side */
    const __m128i pair_rows = _mm_setr_epi8(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
    for (int64_t b = 0; b < nb; b++) {
        const block_q6_Kx8 *x = w + b;
        __m256i sums[ROWS][2], q[4], act[4]; /* [activation row][half] */
        for (int r = 0; r < rows; r++) sums[r][0] = sums[r][1] = _mm256_setzero_si256();
        if (rows == 1) /* both halves at once: one broadcast of the activations serves both */
            for (int i = 0; i < 8; i++) {
                const int s = i / 2 + 4 * (i % 2);
                q6_Kx8_activations(a[0][b].qs, s, act);
                for (int g = 0; g < 2; g++) {
                    q6_Kx8_quants(x, i, g, q);
                    sums[0][g] = _mm256_add_epi32(sums[0][g], q6_Kx8_dot(x, s, g, q, act));
                }
            }
        else /* half by half: 16 registers hold one half's sums, not both */
            for (int g = 0; g < 2; g++)
                for (int i = 0; i < 8; i++) {
                    const int s = i / 2 + 4 * (i % 2);
                    q6_Kx8_quants(x, i, g, q);
                    for (int r = 0; r < rows; r++) {
                        q6_Kx8_activations(a[r][b].qs, s, act);
                        sums[r][g] = _mm256_add_epi32(sums[r][g], q6_Kx8_dot(x, s, g, q, act));
                    }
                }
        /* the quants are value + 32: minus 32 * sum over sub-blocks of scale * activation sum */
        __m256i pair_scales[4][2]; /* [j][half]: int16 e of lane 2r' + h: the scale of sub-block 8h + 2j + e */
        for (int j = 0; j < 4; j++) {
            const __m128i first = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(x->scales + 16 * j)), pair_rows);
            const __m128i second = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(x->scales + 64 + 16 * j)), pair_rows);
            pair_scales[j][0] = _mm256_cvtepi8_epi16(_mm_unpacklo_epi16(first, second));
            pair_scales[j][1] = _mm256_cvtepi8_epi16(_mm_unpackhi_epi16(first, second));
        }
        const __m256 d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)x->d));
        for (int r = 0; r < rows; r++) {
            const act256 *y = a[r] + b;
            __m256i offset[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
            for (int j = 0; j < 4; j++) {
                const __m256i sums16 = broadcast8(y->bsums16_x8 + 4 * j);
                for (int g = 0; g < 2; g++)
                    offset[g] = _mm256_add_epi32(offset[g], _mm256_madd_epi16(pair_scales[j][g], sums16));
            }
            const __m256i total = row_totals_x8(_mm256_sub_epi32(sums[r][0], _mm256_slli_epi32(offset[0], 5)),
                                                _mm256_sub_epi32(sums[r][1], _mm256_slli_epi32(offset[1], 5)));
            acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(total), _mm256_mul_ps(_mm256_set1_ps(y->d), d), acc[r]);
        }
    }
}

/* ---- dequantization to bf16 (long prefill chunks, where bf16 GEMM is native without AVX-512) ---- */

/* 8 quants (bytes; int8 if `is_signed`) * scale - offset as bf16, at out. */
static inline void store_8(__m128i q, int is_signed, float scale, float offset, uint16_t *out) {
    const __m256 v = _mm256_cvtepi32_ps(is_signed ? _mm256_cvtepi8_epi32(q) : _mm256_cvtepu8_epi32(q));
    const __m256 y = _mm256_sub_ps(_mm256_mul_ps(v, _mm256_set1_ps(scale)), _mm256_set1_ps(offset)); /* as gguf */
    _mm_storeu_si128((__m128i *)out, float8_to_bf16(y));
}

/* One super-block of 8 rows -> out[r * K + v], v < 256. */
static void dequantize_q4_Kx8_bf16(const block_q4_Kx8 *x, uint16_t *out, int64_t K) {
    const __m128i low4 = _mm_set1_epi8(0x0F);
    for (int s = 0; s < 8; s++)
        for (int r = 0; r < 8; r++) {
            const float scale = fp16(x->d[r]) * (float)x->scales[8 * s + r];
            const float offset = fp16(x->dmin[r]) * (float)x->mins[32 * (s % 4 / 2) + 4 * r + 2 * (s / 4) + s % 2];
            for (int p = 0; p < 2; p++) {
                const __m128i packed = _mm_loadl_epi64((const __m128i *)(x->qs + 128 * s + 64 * p + 8 * r));
                store_8(_mm_and_si128(packed, low4), 0, scale, offset, out + r * K + 32 * s + 8 * p);
                store_8(_mm_and_si128(_mm_srli_epi16(packed, 4), low4), 0, scale, offset, out + r * K + 32 * s + 16 + 8 * p);
            }
        }
}

static void dequantize_q6_Kx8_bf16(const block_q6_Kx8 *x, uint16_t *out, int64_t K) {
    for (int t = 0; t < 32; t++) { /* quants 8t..8t+7: sub-block t / 2 */
        const int k = t % 16, m = t % 8; /* low vector k, top vector m (see block_q6_Kx8) */
        const uint8_t *v = x->q[k % 8 / 2][0];
        for (int r = 0; r < 8; r++) {
            const __m128i ql = _mm_loadl_epi64((const __m128i *)(v + 64 * (k % 2 + 2 * (k / 8)) + 8 * r));
            const __m128i qh = _mm_loadl_epi64((const __m128i *)(v + 64 * (4 + m % 2) + 8 * r));
            const __m128i low = _mm_and_si128(t < 16 ? ql : _mm_srli_epi16(ql, 4), _mm_set1_epi8(0x0F));
            const __m128i top = _mm_slli_epi16(_mm_and_si128(_mm_srli_epi16(qh, 2 * (t / 8)), _mm_set1_epi8(3)), 4);
            const __m128i q = _mm_sub_epi8(_mm_or_si128(low, top), _mm_set1_epi8(32));
            store_8(q, 1, fp16(x->d[r]) * (float)x->scales[8 * (t / 2) + r], 0.0f, out + r * K + 8 * t);
        }
    }
}

#endif /* X8_AVX512 */
#endif
