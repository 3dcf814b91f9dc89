/* Groupwise int8 matmul for few-row steps (decode) on x86 CPUs with AVX-512 VNNI.
 *
 * out[m, n] = sum over groups g of scale[n, g] * sum_{k in g} x[m, k] * w[n, k]
 * x, out: bf16 [M, K] / [M, N]; scale: bf16 [N, K / GROUP]; w: int8 [N, K] in the
 * interleaved layout below.
 *
 * Decode streams every weight once per step, so its speed is memory bandwidth, as long as
 * the arithmetic per weight byte stays small. The activations are therefore quantized too,
 * to int8 with one scale per group of 32 (as llama.cpp does for its Q8 dot products), and
 * multiplied with `vpdpbusd`: 64 byte products per instruction, summed exactly in int32.
 *
 * Interleaved layout: a row is cut into blocks of 16 groups (the last block may hold fewer,
 * `width`). A block is 8 steps of 4 bytes from each of its groups, so in one 64-byte load
 * int32 lane j sees only group j, and after the 8 steps lane j holds group j's whole dot
 * product: the scales are then applied once per block, as one vector.
 * `vpdpbusd` takes one unsigned operand: the weights get their sign bit flipped (w + 128),
 * and lane j starts from -128 * (sum of group j's activations), which cancels the offset.
 *
 * Each weight row is read once for up to ROWS activation rows; threads split the output rows
 * (OpenMP: the same libgomp torch loaded, so one thread pool). Built at run time by native.py.
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bf16.h"

#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VNNI__)
#error "this kernel needs AVX-512 with VNNI"
#endif

#define GROUP 32
#define BLOCK_GROUPS 16 /* int32 lanes in a register */
#define STEPS (GROUP / 4)
#define ROWS 4
#define PREFETCH_ROWS 4 /* ahead of the row being read, each thread streams its own range */

/* One activation row, quantized, in the weights' interleaved layout. */
typedef struct {
    int8_t *values;   /* [K] */
    int32_t *offsets; /* [padded groups]: -128 * the sum of each group's values */
    float *scales;    /* [padded groups] */
} QuantizedRow;

static inline __m512 bf16x16_to_float(__m256i bf16) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(bf16), 16));
}

static inline __mmask64 first_bytes(int64_t count) { return count >= 64 ? ~0ull : (1ull << count) - 1; }

/* Where byte `i` of group `g` lives in the interleaved layout of a row of `groups` groups. */
static inline int64_t interleaved_index(int64_t g, int64_t i, int64_t groups) {
    const int64_t block = g / BLOCK_GROUPS, first = block * BLOCK_GROUPS;
    const int64_t width = groups - first < BLOCK_GROUPS ? groups - first : BLOCK_GROUPS;
    return first * GROUP + (i / 4) * 4 * width + (g - first) * 4 + i % 4;
}

static void quantize_row(const uint16_t *x, int64_t K, QuantizedRow row) {
    const int64_t groups = K / GROUP;
    int8_t plain[GROUP];
    for (int64_t g = 0; g < groups; g++) {
        const __m512 lo = bf16x16_to_float(_mm256_loadu_si256((const __m256i *)(x + g * GROUP)));
        const __m512 hi = bf16x16_to_float(_mm256_loadu_si256((const __m256i *)(x + g * GROUP + 16)));
        const float amax = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(lo), _mm512_abs_ps(hi)));
        const __m512 inverse = _mm512_set1_ps(amax > 0 ? 127.0f / amax : 0.0f);
        /* Rounds to nearest even, as torch.round does in the Python reference. */
        const __m512i q_lo = _mm512_cvtps_epi32(_mm512_mul_ps(lo, inverse));
        const __m512i q_hi = _mm512_cvtps_epi32(_mm512_mul_ps(hi, inverse));
        _mm_storeu_si128((__m128i *)plain, _mm512_cvtsepi32_epi8(q_lo));
        _mm_storeu_si128((__m128i *)(plain + 16), _mm512_cvtsepi32_epi8(q_hi));
        for (int step = 0; step < STEPS; step++)
            memcpy(row.values + interleaved_index(g, 4 * step, groups), plain + 4 * step, 4);
        row.offsets[g] = -128 * _mm512_reduce_add_epi32(_mm512_add_epi32(q_lo, q_hi));
        row.scales[g] = amax / 127.0f;
    }
}

/* acc[r] += the dot products of one block of `width` groups with `rows` activation rows. */
static inline __attribute__((always_inline)) void block_dot(const int8_t *w_block, __m512 w_scales, int64_t width,
                                                            const QuantizedRow *rows_q, int64_t block_offset,
                                                            int64_t first_group, int rows, __m512 *acc) {
    const __m512i sign_bit = _mm512_set1_epi8((char)0x80);
    const __mmask64 mask = first_bytes(4 * width);
    __m512i even[ROWS], odd[ROWS]; /* two chains, so consecutive steps do not wait on each other */
    for (int r = 0; r < rows; r++) {
        even[r] = _mm512_loadu_si512(rows_q[r].offsets + first_group);
        odd[r] = _mm512_setzero_si512();
    }
    for (int step = 0; step < STEPS; step++) {
        const int64_t at = step * 4 * width;
        const __m512i w_unsigned = _mm512_xor_si512(_mm512_maskz_loadu_epi8(mask, w_block + at), sign_bit);
        for (int r = 0; r < rows; r++) {
            const __m512i x = _mm512_maskz_loadu_epi8(mask, rows_q[r].values + block_offset + at);
            if (step & 1) odd[r] = _mm512_dpbusd_epi32(odd[r], w_unsigned, x);
            else even[r] = _mm512_dpbusd_epi32(even[r], w_unsigned, x);
        }
    }
    for (int r = 0; r < rows; r++) {
        const __m512 scales = _mm512_mul_ps(w_scales, _mm512_loadu_ps(rows_q[r].scales + first_group));
        acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(even[r], odd[r])), scales, acc[r]);
    }
}

/* out[row, n] for `rows` activation rows (a constant after inlining, so acc stays in registers). */
static inline __attribute__((always_inline)) void row_dots(const int8_t *w_row, const uint16_t *scale_row,
                                                           int64_t groups, const QuantizedRow *rows_q, int rows,
                                                           uint16_t *out, int64_t N) {
    __m512 acc[ROWS];
    for (int r = 0; r < rows; r++) acc[r] = _mm512_setzero_ps();
    for (int64_t first = 0; first < groups; first += BLOCK_GROUPS) {
        const int64_t width = groups - first < BLOCK_GROUPS ? groups - first : BLOCK_GROUPS;
        const __m512 w_scales =
            bf16x16_to_float(_mm256_maskz_loadu_epi16((__mmask16)((1u << width) - 1), scale_row + first));
        block_dot(w_row + first * GROUP, w_scales, width, rows_q, first * GROUP, first, rows, acc);
    }
    for (int r = 0; r < rows; r++) out[r * N] = float_to_bf16(_mm512_reduce_add_ps(acc[r]));
}

void int8_group_matmul(const uint16_t *x, const int8_t *w, const uint16_t *scales, uint16_t *out,
                       int64_t M, int64_t N, int64_t K, int threads) {
    const int64_t groups = K / GROUP;
    const int64_t padded_groups = (groups + BLOCK_GROUPS - 1) / BLOCK_GROUPS * BLOCK_GROUPS;
    const int64_t row_bytes = K + padded_groups * 8; /* values, then offsets and scales */
    char *buffer = aligned_alloc(64, (M * row_bytes + 63) / 64 * 64);
    QuantizedRow rows_q[M];
    for (int64_t m = 0; m < M; m++) {
        char *base = buffer + m * row_bytes;
        int32_t *offsets = (int32_t *)(base + K);
        float *group_scales = (float *)(base + K + padded_groups * 4);
        /* The padding lanes of a short last block are read as whole registers: make them zero. */
        memset(offsets, 0, padded_groups * 8);
        rows_q[m] = (QuantizedRow){(int8_t *)base, offsets, group_scales};
        quantize_row(x + m * K, K, rows_q[m]);
    }
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t n = 0; n < N; n++) {
        const int8_t *w_row = w + n * K;
        _mm_prefetch((const char *)(w_row + PREFETCH_ROWS * K), _MM_HINT_T0);
        for (int64_t m0 = 0; m0 < M; m0 += ROWS) {
            const QuantizedRow *block_rows = rows_q + m0;
            uint16_t *block_out = out + m0 * N + n;
            const uint16_t *scale_row = scales + n * groups;
            switch (M - m0 < ROWS ? M - m0 : ROWS) {
            case 1: row_dots(w_row, scale_row, groups, block_rows, 1, block_out, N); break;
            case 2: row_dots(w_row, scale_row, groups, block_rows, 2, block_out, N); break;
            case 3: row_dots(w_row, scale_row, groups, block_rows, 3, block_out, N); break;
            default: row_dots(w_row, scale_row, groups, block_rows, 4, block_out, N); break;
            }
        }
    }
    free(buffer);
}
