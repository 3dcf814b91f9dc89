/* Matmuls straight on a GGUF's quantized blocks (Q4_1, Q5_0, Q8_0, Q4_K, Q6_K), as stored.
 *
 * out[m, n] = sum_k x[m, k] * w[n, k] (+ bias[n]), x and out fp32 or bf16, w one or more row
 * segments of blocks (a fused q/k/v weight whose parts have different types is three segments).
 *
 * Decode streams every weight once per step, so its speed is memory bandwidth: a 4-bit block is
 * read as is, never widened in memory. The activations are quantized to int8 first, as llama.cpp
 * does for its dot products: one fp32 scale per 256 values with per-16 sums (its Q8_K) for the
 * K-quants, one scale per 32 (its Q8_0, with the sum for the offsets) for the 32-value blocks.
 * A dot product is then bytes times bytes summed exactly in int32 (`vpdpbusd` with AVX-512 VNNI,
 * `vpmaddubsw` + `vpmaddwd` with plain AVX2); the K-quants' 6-/8-bit sub-block scales are applied
 * in integers too, and floats only appear once per block.
 *
 * Q4_K and Q6_K weights are repacked at load time with 8 rows interleaved (gguf_interleaved.h,
 * AVX-512 and AVX2 kernels), which takes far fewer multiplies per activation row and no horizontal
 * sums; the plain kernels below serve the other types and the rows left over.
 *
 * Each weight row (or group of 8) is unpacked once for up to ROWS activation rows; threads take
 * the output rows in chunks as they free up, so a thread the OS preempts delays the step by one
 * chunk, not by its whole share. Longer steps walk the activations in tiles that stay in cache;
 * long prefill chunks are faster still through `gguf_dequantize_matrix` (whole weights to bf16,
 * then oneDNN's bf16 GEMM). Built at run time by native.py with -march=native.
 */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 4                       /* activation rows per pass over a weight row */
#define TILE_BYTES (256 * 1024)      /* quantized activations per tile: well inside L2 */
#define X8_SPAN_BYTES (16 * 1024)    /* see dot_tile_x8 */

#include "bf16.h"
#include "gguf_blocks.h"
#include "gguf_interleaved.h"

#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "the GGUF kernels need AVX2, FMA and F16C"
#endif
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
#define VNNI 1
#define dpbusd _mm256_dpbusd_epi32
#define dpwssd _mm256_dpwssd_epi32
#elif defined(__AVXVNNI__)
#define VNNI 1
#define dpbusd _mm256_dpbusd_avx_epi32
#define dpwssd _mm256_dpwssd_avx_epi32
#else
#define VNNI 0
#endif

static inline float round_fp16(float f) { return _cvtsh_ss(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT)); }
static inline int is_k_quant(int64_t type) { return (type & ~X8) == Q4_K || (type & ~X8) == Q6_K; }

static inline int64_t block_values(int64_t type) { return is_k_quant(type) ? 256 : 32; }

static inline int64_t block_bytes(int64_t type) {
    switch (type) {
    case Q4_1: return sizeof(block_q4_1);
    case Q5_0: return sizeof(block_q5_0);
    case Q8_0: return sizeof(block_q8_0);
    case Q4_K: return sizeof(block_q4_K);
    default: return sizeof(block_q6_K);
    }
}

static inline float hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}

static inline float hmax(__m256 v) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    return _mm_cvtss_f32(_mm_max_ss(m, _mm_movehdup_ps(m)));
}

static inline int32_t hsum_i32(__m256i v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(1, 0, 3, 2)));
    return _mm_cvtsi128_si32(_mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 3, 0, 1))));
}

/* acc + per int32 lane the sum of 4 products u8 * s8 (u <= 128 here, so the AVX2 form never saturates). */
ALWAYS_INLINE __m256i dot_bytes(__m256i acc, __m256i u, __m256i s) {
#if VNNI
    return dpbusd(acc, u, s);
#else
    return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1)));
#endif
}

/* acc + per int32 lane (u0 s0 + u1 s1) * scale0 + (u2 s2 + u3 s3) * scale1: integer sub-block scales. */
ALWAYS_INLINE __m256i dot_bytes_scaled(__m256i acc, __m256i u, __m256i s, __m256i scales16) {
    const __m256i pairs = _mm256_maddubs_epi16(u, s); /* u <= 63: no saturation */
#if VNNI
    return dpwssd(acc, pairs, scales16);
#else
    return _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, scales16));
#endif
}

static inline __m256 load8(const void *x, int bf16, int64_t i) {
    if (!bf16) return _mm256_loadu_ps((const float *)x + i);
    const __m128i h = _mm_loadu_si128((const __m128i *)((const uint16_t *)x + i));
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

/* 32 int32 (4 vectors) -> 32 int8 in order (the packs work per 128-bit lane). */
static inline __m256i pack_bytes(__m256i a, __m256i b, __m256i c, __m256i d) {
    const __m256i ab = _mm256_packs_epi32(a, b), cd = _mm256_packs_epi32(c, d);
    return _mm256_permutevar8x32_epi32(_mm256_packs_epi16(ab, cd), _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

/* llama.cpp's quantize_row_q8_0 / q8_1: d = amax / 127 (kept as fp16), values rounded to nearest. */
static void quantize_act32(const void *x, int bf16, int64_t K, act32 *out) {
    const __m256 sign = _mm256_set1_ps(-0.0f);
    for (int64_t b = 0; b < K / 32; b++) {
        __m256 v[4], amax = _mm256_setzero_ps();
        for (int i = 0; i < 4; i++) {
            v[i] = load8(x, bf16, 32 * b + 8 * i);
            amax = _mm256_max_ps(amax, _mm256_andnot_ps(sign, v[i]));
        }
        __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(amax), _mm256_extractf128_ps(amax, 1));
        m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
        const float top = _mm_cvtss_f32(_mm_max_ss(m4, _mm_movehdup_ps(m4)));
        const float d = top / 127.0f;
        const __m256 id = _mm256_set1_ps(top != 0.0f ? 127.0f / top : 0.0f);
        __m256i q[4];
        for (int i = 0; i < 4; i++)
            q[i] = _mm256_cvtps_epi32(_mm256_round_ps(_mm256_mul_ps(v[i], id), _MM_ROUND_NEAREST));
        const int32_t sum = hsum_i32(_mm256_add_epi32(_mm256_add_epi32(q[0], q[1]), _mm256_add_epi32(q[2], q[3])));
        _mm256_storeu_si256((__m256i *)out[b].qs, pack_bytes(q[0], q[1], q[2], q[3]));
        out[b].d = round_fp16(d);
        out[b].s = round_fp16(d * (float)sum);
        out[b].sum = sum;
    }
}

/* llama.cpp's quantize_row_q8_K: the value of largest magnitude maps to -127, d = its value / -127. */
static void quantize_act256(const void *x, int bf16, int64_t K, act256 *out) {
    for (int64_t b = 0; b < K / 256; b++) {
        float values[256];
        __m256 high = _mm256_set1_ps(-INFINITY), low = _mm256_set1_ps(INFINITY);
        for (int i = 0; i < 256; i += 8) {
            const __m256 v = load8(x, bf16, 256 * b + i);
            _mm256_storeu_ps(values + i, v);
            high = _mm256_max_ps(high, v);
            low = _mm256_min_ps(low, v);
        }
        const float largest = hmax(high), smallest = -hmax(_mm256_sub_ps(_mm256_setzero_ps(), low));
        float amax = largest > -smallest ? largest : -smallest, max = largest > -smallest ? largest : smallest;
        if (largest == -smallest) /* a tie: llama.cpp takes the first of the two */
            for (int i = 0; i < 256; i++)
                if (values[i] == largest || values[i] == smallest) { max = values[i]; break; }
        act256 *o = out + b;
        if (amax == 0.0f) {
            memset(o, 0, sizeof *o);
            continue;
        }
        const float iscale = -127.0f / max;
        const __m256 scale = _mm256_set1_ps(iscale), top = _mm256_set1_ps(127.0f);
        for (int g = 0; g < 8; g++) {
            __m256i q[4];
            for (int i = 0; i < 4; i++) /* min(127, nearest): only the side opposite the max can reach 128 */
                q[i] = _mm256_cvtps_epi32(_mm256_min_ps(
                    _mm256_round_ps(_mm256_mul_ps(_mm256_loadu_ps(values + 32 * g + 8 * i), scale), _MM_ROUND_NEAREST), top));
            _mm256_storeu_si256((__m256i *)(o->qs + 32 * g), pack_bytes(q[0], q[1], q[2], q[3]));
            o->bsums[2 * g] = (int16_t)hsum_i32(_mm256_add_epi32(q[0], q[1]));
            o->bsums[2 * g + 1] = (int16_t)hsum_i32(_mm256_add_epi32(q[2], q[3]));
        }
        o->d = 1.0f / iscale;
        /* the same sums, per 32 and per 16, in the orders the interleaved kernels broadcast them in */
        static const int8_t order32[8] = {0, 1, 4, 5, 2, 3, 6, 7};
        static const int8_t order16[16] = {0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15};
        for (int i = 0; i < 8; i++) o->bsums32_x8[i] = (int16_t)(o->bsums[2 * order32[i]] + o->bsums[2 * order32[i] + 1]);
        for (int i = 0; i < 16; i++) o->bsums16_x8[i] = o->bsums[order16[i]];
    }
}

/* ---- dot products of one weight row with `rows` activation rows (a constant after inlining) ----
 *
 * The K-quants' floats are the same whichever kernel runs them (this file's or the interleaved
 * one, VNNI or AVX2): per super-block, each activation row's integer sum is made whole first
 * (exact), and only then scaled, in one order: acc = fma(sum, x.d * d, acc), then for Q4_K
 * acc = acc - mins * (x.d * dmin), fused. So every path gives the same bits on the same inputs.
 */

/* Lane r: the sum of the 8 int32 lanes of sum[r] (exact); lanes from `rows` on are 0. */
ALWAYS_INLINE __m128i row_totals(const __m256i *sum, int rows) {
    const __m256i zero = _mm256_setzero_si256();
    const __m256i s01 = _mm256_hadd_epi32(sum[0], rows > 1 ? sum[1] : zero);
    const __m256i s23 = _mm256_hadd_epi32(rows > 2 ? sum[2] : zero, rows > 3 ? sum[3] : zero);
    const __m256i s = _mm256_hadd_epi32(s01, s23); /* each half: rows 0-3, half of their lanes */
    return _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
}

/* Lane r: the sum of the 4 int32 lanes of sum[r]. */
ALWAYS_INLINE __m128i row_totals4(const __m128i *sum, int rows) {
    const __m128i zero = _mm_setzero_si128();
    return _mm_hadd_epi32(_mm_hadd_epi32(sum[0], rows > 1 ? sum[1] : zero),
                          _mm_hadd_epi32(rows > 2 ? sum[2] : zero, rows > 3 ? sum[3] : zero));
}

/* Lane r: the scale of activation row r's super-block b. */
ALWAYS_INLINE __m128 act_scales(const act256 *const *a, int64_t b, int rows) {
    return _mm_setr_ps(a[0][b].d, rows > 1 ? a[1][b].d : 0.0f, rows > 2 ? a[2][b].d : 0.0f, rows > 3 ? a[3][b].d : 0.0f);
}

ALWAYS_INLINE void store_rows(__m128 acc, int rows, float *out) {
    float lanes[4];
    _mm_storeu_ps(lanes, acc);
    for (int r = 0; r < rows; r++) out[r] = lanes[r];
}

ALWAYS_INLINE void dot_q4_K(const block_q4_K *w, int64_t nb, const act256 *const *a, int rows, float *out) {
    const uint32_t kmask1 = 0x3f3f3f3f, kmask2 = 0x0f0f0f0f, kmask3 = 0x03030303;
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    __m128 acc = _mm_setzero_ps(); /* lane r: activation row r */
    for (int64_t b = 0; b < nb; b++) {
        /* The 12 bytes hold 8 6-bit scales and 8 6-bit mins; unpack them to bytes 0-7 and 8-15. */
        uint32_t u[4];
        memcpy(u, w[b].scales, 12);
        u[3] = ((u[2] >> 4) & kmask2) | (((u[1] >> 6) & kmask3) << 4);
        const uint32_t mins_low = u[1] & kmask1;
        u[1] = (u[2] & kmask2) | (((u[0] >> 6) & kmask3) << 4);
        u[2] = mins_low;
        u[0] &= kmask1;
        const __m256i scales_mins = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)u));
        const __m256i scales = _mm256_permute2x128_si256(scales_mins, scales_mins, 0x00);
        const __m128i mins = _mm256_extracti128_si256(scales_mins, 1);
        __m256i sum[ROWS];
        for (int r = 0; r < rows; r++) sum[r] = _mm256_setzero_si256();
        for (int c = 0; c < 4; c++) { /* 32 bytes: low nibbles are sub-block 2c, high ones 2c + 1 */
            const __m256i bits = _mm256_loadu_si256((const __m256i *)(w[b].qs + 32 * c));
            const __m256i q_low = _mm256_and_si256(bits, low4);
            const __m256i q_high = _mm256_and_si256(_mm256_srli_epi16(bits, 4), low4);
            const __m256i scale_low = _mm256_shuffle_epi8(scales, _mm256_set1_epi16((short)((4 * c + 1) << 8 | 4 * c)));
            const __m256i scale_high =
                _mm256_shuffle_epi8(scales, _mm256_set1_epi16((short)((4 * c + 3) << 8 | (4 * c + 2))));
            for (int r = 0; r < rows; r++) {
                const int8_t *qs = a[r][b].qs + 64 * c;
                sum[r] = dot_bytes_scaled(sum[r], q_low, _mm256_loadu_si256((const __m256i *)qs), scale_low);
                sum[r] = dot_bytes_scaled(sum[r], q_high, _mm256_loadu_si256((const __m256i *)(qs + 32)), scale_high);
            }
        }
        __m128i min_sum[ROWS];
        for (int r = 0; r < rows; r++) {
            const act256 *x = a[r] + b;
            const __m128i sums32 = _mm_hadd_epi16(_mm_loadu_si128((const __m128i *)x->bsums),
                                                  _mm_loadu_si128((const __m128i *)(x->bsums + 8)));
            min_sum[r] = _mm_madd_epi16(mins, sums32);
        }
        const __m128 x_d = act_scales(a, b, rows);
        acc = _mm_fmadd_ps(_mm_cvtepi32_ps(row_totals(sum, rows)), _mm_mul_ps(x_d, _mm_set1_ps(fp16(w[b].d))), acc);
        acc = _mm_fnmadd_ps(_mm_cvtepi32_ps(row_totals4(min_sum, rows)), _mm_mul_ps(x_d, _mm_set1_ps(fp16(w[b].dmin))),
                            acc);
    }
    store_rows(acc, rows, out);
}

/* The shuffle that broadcasts int16 scales 2i % 8 and (2i + 1) % 8 to the low and high 8 lanes. */
static inline __m256i scale_pair_index(int i) {
    const int lo = (2 * i) % 8, hi = (2 * i + 1) % 8;
    return _mm256_setr_m128i(_mm_set1_epi16((short)((2 * lo + 1) << 8 | 2 * lo)),
                             _mm_set1_epi16((short)((2 * hi + 1) << 8 | 2 * hi)));
}

ALWAYS_INLINE void dot_q6_K(const block_q6_K *w, int64_t nb, const act256 *const *a, int rows, float *out) {
    const __m256i low4 = _mm256_set1_epi8(0x0F), low2 = _mm256_set1_epi8(0x03);
    __m128 acc = _mm_setzero_ps(); /* lane r: activation row r */
    for (int64_t b = 0; b < nb; b++) {
        const __m256i scales = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)w[b].scales));
        const __m256i scales_first = _mm256_permute2x128_si256(scales, scales, 0x00);
        const __m256i scales_last = _mm256_permute2x128_si256(scales, scales, 0x11);
        __m256i sum[ROWS];
        for (int r = 0; r < rows; r++) sum[r] = _mm256_setzero_si256();
        for (int h = 0; h < 2; h++) { /* 128 values: 64 bytes of low 4 bits, 32 of high 2 bits */
            const __m256i ql0 = _mm256_loadu_si256((const __m256i *)(w[b].ql + 64 * h));
            const __m256i ql1 = _mm256_loadu_si256((const __m256i *)(w[b].ql + 64 * h + 32));
            const __m256i qh = _mm256_loadu_si256((const __m256i *)(w[b].qh + 32 * h));
            __m256i q[4]; /* values + 32, in 0..63 */
            q[0] = _mm256_or_si256(_mm256_and_si256(ql0, low4), _mm256_slli_epi16(_mm256_and_si256(qh, low2), 4));
            q[1] = _mm256_or_si256(_mm256_and_si256(ql1, low4),
                                   _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2), low2), 4));
            q[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql0, 4), low4),
                                   _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 4), low2), 4));
            q[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql1, 4), low4),
                                   _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 6), low2), 4));
            for (int c = 0; c < 4; c++) {
                const int i = 4 * h + c; /* 32 values: scales 2i and 2i + 1 */
                const __m256i scale = _mm256_shuffle_epi8(i < 4 ? scales_first : scales_last, scale_pair_index(i));
                for (int r = 0; r < rows; r++)
                    sum[r] = dot_bytes_scaled(sum[r], q[c],
                                              _mm256_loadu_si256((const __m256i *)(a[r][b].qs + 32 * i)), scale);
            }
        }
        for (int r = 0; r < rows; r++) { /* minus 32 * sum over sub-blocks of scale * activation sum */
            const __m256i offset = _mm256_madd_epi16(scales, _mm256_loadu_si256((const __m256i *)a[r][b].bsums));
            sum[r] = _mm256_sub_epi32(sum[r], _mm256_slli_epi32(offset, 5));
        }
        const __m128 x_d = act_scales(a, b, rows);
        acc = _mm_fmadd_ps(_mm_cvtepi32_ps(row_totals(sum, rows)), _mm_mul_ps(x_d, _mm_set1_ps(fp16(w[b].d))), acc);
    }
    store_rows(acc, rows, out);
}

ALWAYS_INLINE void dot_q8_0(const block_q8_0 *w, int64_t nb, const act32 *const *a, int rows, float *out) {
    __m256 acc[ROWS];
    for (int r = 0; r < rows; r++) acc[r] = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; b++) {
        const __m256i q = _mm256_loadu_si256((const __m256i *)w[b].qs);
        const __m256i q_abs = _mm256_abs_epi8(q); /* |q| times x with q's sign: an unsigned operand */
        const float d = fp16(w[b].d);
        for (int r = 0; r < rows; r++) {
            const __m256i x = _mm256_sign_epi8(_mm256_loadu_si256((const __m256i *)a[r][b].qs), q);
            const __m256i dot = dot_bytes(_mm256_setzero_si256(), q_abs, x);
            acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), _mm256_set1_ps(d * a[r][b].d), acc[r]);
        }
    }
    for (int r = 0; r < rows; r++) out[r] = hsum(acc[r]);
}

/* 16 bytes of nibbles -> 32 values: the low nibbles are values 0-15, the high ones 16-31. */
static inline __m256i nibbles_32(const uint8_t *qs) {
    const __m128i bits = _mm_loadu_si128((const __m128i *)qs), low4 = _mm_set1_epi8(0x0F);
    return _mm256_setr_m128i(_mm_and_si128(bits, low4), _mm_and_si128(_mm_srli_epi16(bits, 4), low4));
}

ALWAYS_INLINE void dot_q4_1(const block_q4_1 *w, int64_t nb, const act32 *const *a, int rows, float *out) {
    __m256 acc[ROWS];
    float offsets[ROWS] = {0};
    for (int r = 0; r < rows; r++) acc[r] = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; b++) {
        const __m256i q = nibbles_32(w[b].qs);
        const float d = fp16(w[b].d), m = fp16(w[b].m);
        for (int r = 0; r < rows; r++) {
            const __m256i dot = dot_bytes(_mm256_setzero_si256(), q, _mm256_loadu_si256((const __m256i *)a[r][b].qs));
            acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), _mm256_set1_ps(d * a[r][b].d), acc[r]);
            offsets[r] += m * a[r][b].s;
        }
    }
    for (int r = 0; r < rows; r++) out[r] = hsum(acc[r]) + offsets[r];
}

/* The 32 bits of a Q5_0 block's fifth bits -> 0x10 in the bytes whose bit is set. */
static inline __m256i fifth_bits(const uint8_t *qh) {
    uint32_t bits;
    memcpy(&bits, qh, 4);
#if defined(__AVX512BW__) && defined(__AVX512VL__)
    return _mm256_maskz_mov_epi8((__mmask32)bits, _mm256_set1_epi8(0x10));
#else
    const __m256i spread = _mm256_shuffle_epi8(_mm256_set1_epi32((int)bits),
                                               _mm256_setr_epi64x(0, 0x0101010101010101, 0x0202020202020202,
                                                                  0x0303030303030303));
    const __m256i set = _mm256_cmpeq_epi8(_mm256_or_si256(spread, _mm256_set1_epi64x(0x7fbfdfeff7fbfdfe)),
                                          _mm256_set1_epi64x(-1));
    return _mm256_and_si256(set, _mm256_set1_epi8(0x10));
#endif
}

ALWAYS_INLINE void dot_q5_0(const block_q5_0 *w, int64_t nb, const act32 *const *a, int rows, float *out) {
    __m256 acc[ROWS];
    for (int r = 0; r < rows; r++) acc[r] = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; b++) {
        const __m256i q = _mm256_or_si256(nibbles_32(w[b].qs), fifth_bits(w[b].qh)); /* value + 16 */
        const float d = fp16(w[b].d);
        for (int r = 0; r < rows; r++) {
            const act32 *x = a[r] + b;
            const __m256i dot = dot_bytes(_mm256_setzero_si256(), q, _mm256_loadu_si256((const __m256i *)x->qs));
            /* minus 16 * the activation sum, added to one lane so the sum stays exact */
            const __m256i total = _mm256_sub_epi32(dot, _mm256_setr_epi32(16 * x->sum, 0, 0, 0, 0, 0, 0, 0));
            acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(total), _mm256_set1_ps(d * x->d), acc[r]);
        }
    }
    for (int r = 0; r < rows; r++) out[r] = hsum(acc[r]);
}

ALWAYS_INLINE void dot_rows(int64_t type, const uint8_t *w, int64_t nb, const void *const *a, int rows, float *out) {
    switch (type) {
    case Q4_K: dot_q4_K((const block_q4_K *)w, nb, (const act256 *const *)a, rows, out); break;
    case Q6_K: dot_q6_K((const block_q6_K *)w, nb, (const act256 *const *)a, rows, out); break;
    case Q8_0: dot_q8_0((const block_q8_0 *)w, nb, (const act32 *const *)a, rows, out); break;
    case Q4_1: dot_q4_1((const block_q4_1 *)w, nb, (const act32 *const *)a, rows, out); break;
    default: dot_q5_0((const block_q5_0 *)w, nb, (const act32 *const *)a, rows, out); break;
    }
}

static void dot_any_rows(int64_t type, const uint8_t *w, int64_t nb, const void *const *a, int rows, float *out) {
    switch (rows) {
    case 1: dot_rows(type, w, nb, a, 1, out); break;
    case 2: dot_rows(type, w, nb, a, 2, out); break;
    case 3: dot_rows(type, w, nb, a, 3, out); break;
    default: dot_rows(type, w, nb, a, 4, out); break;
    }
}

ALWAYS_INLINE void dot_rows_x8(int64_t type, const uint8_t *w, int64_t nb, const act256 *const *a, int rows,
                               x8_acc *acc) {
    if (type == (Q4_K | X8)) dot_q4_Kx8((const block_q4_Kx8 *)w, nb, a, rows, acc);
    else dot_q6_Kx8((const block_q6_Kx8 *)w, nb, a, rows, acc);
}

/* acc[r] += 8 weight rows (nb super-blocks at w) dotted with activation row r (up to ROWS rows). */
static void dot_any_rows_x8(int64_t type, const uint8_t *w, int64_t nb, const act256 *const *a, int rows,
                            x8_acc *acc) {
    switch (rows) {
    case 1: dot_rows_x8(type, w, nb, a, 1, acc); break;
    case 2: dot_rows_x8(type, w, nb, a, 2, acc); break;
    case 3: dot_rows_x8(type, w, nb, a, 3, acc); break;
    default: dot_rows_x8(type, w, nb, a, 4, acc); break;
    }
}

/* acc[r]: 8 weight rows (nb super-blocks at w) dotted with activation row r of `act` (row256 super-blocks
 * a row), ROWS rows a pass. A group of 8 rows up to X8_SPAN_BYTES long takes more than one pass super-block
 * by super-block: walking such a group again for each ROWS rows was slower than walking it once (Q6_K at
 * 8 rows and K = 1536, measured: 1.4x), while longer groups (K = 8960) were faster walked whole per pass. */
static void dot_tile_x8(int64_t type, const uint8_t *w, int64_t nb, const act256 *act, int64_t row256, int64_t rows,
                        x8_acc *acc) {
    const int64_t block = gguf_x8_block_bytes(type & ~X8), span = rows > ROWS && nb * block <= X8_SPAN_BYTES ? 1 : nb;
    memset(acc, 0, rows * sizeof *acc);
    for (int64_t b = 0; b < nb; b += span)
        for (int64_t m = 0; m < rows; m += ROWS) {
            const int n = rows - m < ROWS ? (int)(rows - m) : ROWS;
            const act256 *a[ROWS];
            for (int r = 0; r < n; r++) a[r] = act + (m + r) * row256 + b;
            dot_any_rows_x8(type, w + b * block, span, a, n, acc + m);
        }
}

static inline void store(void *out, int bf16, int64_t index, float value) {
    if (bf16) ((uint16_t *)out)[index] = float_to_bf16(value);
    else ((float *)out)[index] = value;
}

/* 1 if the dot products use VNNI, 0 for the AVX2 form (so the caller can warn). */
int gguf_kernel_vnni(void) { return VNNI; }

/* 1 if the kernels of the interleaved Q4_K / Q6_K rows are AVX-512's (with VNNI and VBMI), 0 for AVX2's. */
int gguf_kernel_x8_avx512(void) { return X8_AVX512; }

static inline int64_t unit_rows(int64_t type) { return type & X8 ? 8 : 1; } /* output rows a work unit makes */

void gguf_matmul(const void *x, int x_bf16, int64_t M, int64_t K, const int64_t *types,
                 const uint8_t *const *blocks, const int64_t *segment_rows, int64_t segments, const float *bias,
                 void *out, int out_bf16, int threads) {
    int64_t N = 0, units = 0, need32 = 0, need256 = 0;
    for (int64_t s = 0; s < segments; s++) {
        N += segment_rows[s];
        units += segment_rows[s] / unit_rows(types[s]);
        if (is_k_quant(types[s])) need256 = 1;
        else need32 = 1;
    }
    const int64_t row32 = need32 ? K / 32 : 0, row256 = need256 ? K / 256 : 0; /* blocks per activation row */
    act32 *q32 = need32 ? malloc(M * row32 * sizeof(act32)) : NULL;
    act256 *q256 = need256 ? malloc(M * row256 * sizeof(act256)) : NULL;
    const int64_t act_row_bytes = row32 * sizeof(act32) + row256 * sizeof(act256);
    int64_t tile = TILE_BYTES / act_row_bytes / ROWS * ROWS;
    tile = tile < ROWS ? ROWS : tile;
    const int64_t chunk = units / (8 * threads) > 1 ? units / (8 * threads) : 1; /* ~8 chunks per thread */
#pragma omp parallel num_threads(threads)
    {
        x8_acc acc[tile < M ? tile : M]; /* a tile's rows, for the interleaved weights */
#pragma omp for schedule(static)
        for (int64_t m = 0; m < M; m++) {
            const void *row = x_bf16 ? (const void *)((const uint16_t *)x + m * K) : (const void *)((const float *)x + m * K);
            if (need32) quantize_act32(row, x_bf16, K, q32 + m * row32);
            if (need256) quantize_act256(row, x_bf16, K, q256 + m * row256);
        }
        for (int64_t m0 = 0; m0 < M; m0 += tile) {
            const int64_t m_end = m0 + tile < M ? m0 + tile : M;
#pragma omp for schedule(dynamic, chunk) nowait
            for (int64_t u = 0; u < units; u++) {
                int64_t s = 0, first_unit = 0, first_row = 0;
                while (u >= first_unit + segment_rows[s] / unit_rows(types[s])) {
                    first_unit += segment_rows[s] / unit_rows(types[s]);
                    first_row += segment_rows[s++];
                }
                const int64_t type = types[s], per = unit_rows(type), nb = K / block_values(type & ~X8);
                const int64_t n = first_row + (u - first_unit) * per;
                const int64_t unit_bytes = type & X8 ? nb * gguf_x8_block_bytes(type & ~X8) : nb * block_bytes(type);
                const uint8_t *w = blocks[s] + (u - first_unit) * unit_bytes;
                if (type & X8) {
                    dot_tile_x8(type, w, nb, q256 + m0 * row256, row256, m_end - m0, acc);
                    for (int64_t r = 0; r < m_end - m0; r++) {
                        float values[8];
                        const __m256 dots = row_values(acc[r]);
                        _mm256_storeu_ps(values, bias ? _mm256_add_ps(dots, _mm256_loadu_ps(bias + n)) : dots);
                        for (int i = 0; i < 8; i++) store(out, out_bf16, (m0 + r) * N + n + i, values[i]);
                    }
                    continue;
                }
                for (int64_t m = m0; m < m_end; m += ROWS) {
                    const int rows = m_end - m < ROWS ? (int)(m_end - m) : ROWS;
                    const void *a[ROWS];
                    for (int r = 0; r < rows; r++)
                        a[r] = is_k_quant(type) ? (const void *)(q256 + (m + r) * row256) : (const void *)(q32 + (m + r) * row32);
                    float dots[ROWS];
                    dot_any_rows(type, w, nb, a, rows, dots);
                    for (int r = 0; r < rows; r++) store(out, out_bf16, (m + r) * N + n, dots[r] + (bias ? bias[n] : 0.0f));
                }
            }
        }
    }
    free(q32);
    free(q256);
}

/* ---- dequantization of whole rows (the embedding lookup), as ggml's dequantize_row_* ---- */

static void dequantize_block(int64_t type, const uint8_t *block, float *y) {
    if (type == Q8_0) {
        const block_q8_0 *b = (const block_q8_0 *)block;
        for (int j = 0; j < 32; j++) y[j] = fp16(b->d) * b->qs[j];
    } else if (type == Q4_1) {
        const block_q4_1 *b = (const block_q4_1 *)block;
        for (int j = 0; j < 16; j++) {
            y[j] = fp16(b->d) * (b->qs[j] & 0xF) + fp16(b->m);
            y[j + 16] = fp16(b->d) * (b->qs[j] >> 4) + fp16(b->m);
        }
    } else if (type == Q5_0) {
        const block_q5_0 *b = (const block_q5_0 *)block;
        uint32_t qh;
        memcpy(&qh, b->qh, 4);
        for (int j = 0; j < 16; j++) {
            const int low = (b->qs[j] & 0xF) | (((qh >> j) & 1) << 4);
            const int high = (b->qs[j] >> 4) | (((qh >> (j + 16)) & 1) << 4);
            y[j] = fp16(b->d) * (low - 16);
            y[j + 16] = fp16(b->d) * (high - 16);
        }
    } else if (type == Q4_K) {
        const block_q4_K *b = (const block_q4_K *)block;
        const float d = fp16(b->d), dmin = fp16(b->dmin);
        for (int j = 0; j < 8; j++) {
            int scale, min;
            q4_K_scale_min(b->scales, j, &scale, &min);
            for (int l = 0; l < 32; l++) y[32 * j + l] = d * scale * q4_K_quant(b, 32 * j + l) - dmin * min;
        }
    } else {
        const block_q6_K *b = (const block_q6_K *)block;
        const float d = fp16(b->d);
        for (int i = 0; i < 256; i++) y[i] = d * b->scales[i / 16] * (q6_K_quant(b, i) - 32);
    }
}

void gguf_dequantize_rows(int64_t type, const uint8_t *blocks, const int64_t *ids, int64_t count, int64_t K,
                          void *out, int out_bf16) {
    const int64_t values = block_values(type), row_bytes = K / values * block_bytes(type);
    float y[256];
    for (int64_t i = 0; i < count; i++)
        for (int64_t b = 0; b < K / values; b++) {
            dequantize_block(type, blocks + ids[i] * row_bytes + b * block_bytes(type), y);
            for (int64_t j = 0; j < values; j++) store(out, out_bf16, i * K + b * values + j, y[j]);
        }
}

/* ---- dequantization of whole weights to a scratch matrix (long prefill chunks), vectorized ---- */

/* 32 values q (unsigned bytes) * scale - offset, the first 16 with scale[0] / offset[0], the rest [1]. */
static inline void store_32(__m256i q, const float scale[2], const float offset[2], uint16_t *out) {
    for (int i = 0; i < 4; i++) {
        const __m128i bytes = i < 2 ? _mm256_castsi256_si128(q) : _mm256_extracti128_si256(q, 1);
        const __m256 v = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(i % 2 ? _mm_srli_si128(bytes, 8) : bytes));
        const __m256 y = _mm256_fmsub_ps(v, _mm256_set1_ps(scale[i / 2]), _mm256_set1_ps(offset[i / 2]));
        _mm_storeu_si128((__m128i *)(out + 8 * i), float8_to_bf16(y));
    }
}

static void dequantize_q4_K_bf16(const block_q4_K *b, uint16_t *out) {
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    const float d = fp16(b->d), dmin = fp16(b->dmin);
    for (int c = 0; c < 4; c++) {
        const __m256i bits = _mm256_loadu_si256((const __m256i *)(b->qs + 32 * c));
        for (int half = 0; half < 2; half++) {
            const int j = 2 * c + half;
            int scale, min;
            q4_K_scale_min(b->scales, j, &scale, &min);
            const float scales[2] = {d * scale, d * scale}, offsets[2] = {dmin * min, dmin * min};
            const __m256i q = _mm256_and_si256(half ? _mm256_srli_epi16(bits, 4) : bits, low4);
            store_32(q, scales, offsets, out + 32 * j);
        }
    }
}

static void dequantize_q6_K_bf16(const block_q6_K *b, uint16_t *out) {
    const __m256i low4 = _mm256_set1_epi8(0x0F), low2 = _mm256_set1_epi8(0x03);
    const float d = fp16(b->d);
    for (int h = 0; h < 2; h++) {
        const __m256i ql0 = _mm256_loadu_si256((const __m256i *)(b->ql + 64 * h));
        const __m256i ql1 = _mm256_loadu_si256((const __m256i *)(b->ql + 64 * h + 32));
        const __m256i qh = _mm256_loadu_si256((const __m256i *)(b->qh + 32 * h));
        for (int c = 0; c < 4; c++) { /* as in dot_q6_K: values + 32 */
            const __m256i low = _mm256_and_si256(_mm256_srli_epi16(c % 2 ? ql1 : ql0, 4 * (c / 2)), low4);
            const __m256i high = _mm256_and_si256(_mm256_srli_epi16(qh, 2 * c), low2);
            const int i = 4 * h + c;
            const float scales[2] = {d * b->scales[2 * i], d * b->scales[2 * i + 1]};
            const float offsets[2] = {32 * scales[0], 32 * scales[1]};
            store_32(_mm256_or_si256(low, _mm256_slli_epi16(high, 4)), scales, offsets, out + 32 * i);
        }
    }
}

/* out [rows, K] bf16 = the blocks dequantized; rows split between threads. */
void gguf_dequantize_matrix(int64_t type, const uint8_t *blocks, int64_t rows, int64_t K, uint16_t *out,
                            int threads) {
    const int64_t values = block_values(type & ~X8), nb = K / values, size = block_bytes(type & ~X8);
    if (type & X8) {
#pragma omp parallel for schedule(static) num_threads(threads)
        for (int64_t g = 0; g < rows / 8; g++)
            for (int64_t b = 0; b < nb; b++) {
                const uint8_t *group = blocks + (g * nb + b) * gguf_x8_block_bytes(type & ~X8);
                uint16_t *o = out + 8 * g * K + 256 * b;
                if (type == (Q4_K | X8)) dequantize_q4_Kx8_bf16((const block_q4_Kx8 *)group, o, K);
                else dequantize_q6_Kx8_bf16((const block_q6_Kx8 *)group, o, K);
            }
        return;
    }
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t n = 0; n < rows; n++) {
        float y[256];
        for (int64_t b = 0; b < nb; b++) {
            const uint8_t *block = blocks + (n * nb + b) * size;
            uint16_t *o = out + n * K + b * values;
            if (type == Q4_K) dequantize_q4_K_bf16((const block_q4_K *)block, o);
            else if (type == Q6_K) dequantize_q6_K_bf16((const block_q6_K *)block, o);
            else {
                dequantize_block(type, block, y);
                for (int64_t j = 0; j < values; j++) o[j] = float_to_bf16(y[j]);
            }
        }
    }
}
