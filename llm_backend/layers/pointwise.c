/* The element-wise steps between a decoder layer's matmuls, for bf16 activations on CPU.
 *
 * At batch 1 each of these is a few thousand values, and as torch ops (RMSNorm alone is eight:
 * float, pow, mean, add, rsqrt, mul, to, mul) the dispatch costs more than the arithmetic: a
 * decode step of the 1.5B ran ~1,500 of them. Fused here, a layer's residual add + norm, rotary
 * embedding and SiLU-and-multiply are one call each, computed in fp32 and rounded to bf16 once
 * (vLLM's fused_add_rms_norm, rotary_embedding and silu_and_mul). Long prefill chunks split
 * their tokens between threads. Built at run time by native.py; needs AVX2 and FMA.
 */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "bf16.h"
#include "exp_negative.h"

#if !defined(__AVX2__) || !defined(__FMA__)
#error "the pointwise kernels need AVX2 and FMA"
#endif

#define PARALLEL_MIN_TOKENS 16 /* below this, one thread: a parallel region costs more than the work */

static inline __m256 load_bf16(const uint16_t *p) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)), 16));
}

static inline void store_bf16(uint16_t *p, __m256 v) { /* round to nearest even, as float_to_bf16 */
    __m256i bits = _mm256_castps_si256(v);
    const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
    bits = _mm256_srli_epi32(_mm256_add_epi32(bits, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7FFF))), 16);
    _mm_storeu_si128((__m128i *)p, _mm_packus_epi32(_mm256_castsi256_si128(bits), _mm256_extracti128_si256(bits, 1)));
}

static inline float hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}

/* x += delta (if given, rounded to bf16 as the residual stream is), then
 * out = weight * x / sqrt(mean(x^2) + eps); rows of D values (D a multiple of 8). */
void add_rms_norm(uint16_t *x, const uint16_t *delta, const uint16_t *weight, uint16_t *out, int64_t T,
                  int64_t D, float eps, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads) if (T >= PARALLEL_MIN_TOKENS)
    for (int64_t t = 0; t < T; t++) {
        uint16_t *row = x + t * D;
        __m256 squares = _mm256_setzero_ps();
        for (int64_t i = 0; i < D; i += 8) {
            __m256 v = load_bf16(row + i);
            if (delta) {
                store_bf16(row + i, _mm256_add_ps(v, load_bf16(delta + t * D + i)));
                v = load_bf16(row + i);
            }
            squares = _mm256_fmadd_ps(v, v, squares);
        }
        const __m256 scale = _mm256_set1_ps(1.0f / __builtin_sqrtf(hsum(squares) / (float)D + eps));
        for (int64_t i = 0; i < D; i += 8)
            store_bf16(out + t * D + i, _mm256_mul_ps(_mm256_mul_ps(load_bf16(row + i), scale), load_bf16(weight + i)));
    }
}

/* In place on the first `heads` heads of each row (q then k of a fused q/k/v output): the
 * "rotate half" rotary embedding at each token's position; cos/sin [positions, head_dim]. */
void rotary(uint16_t *rows, int64_t T, int64_t row_stride, int64_t heads, int64_t head_dim, const int64_t *positions,
            const uint16_t *cos, const uint16_t *sin, int threads) {
    const int64_t half = head_dim / 2;
#pragma omp parallel for schedule(static) num_threads(threads) if (T >= PARALLEL_MIN_TOKENS)
    for (int64_t t = 0; t < T; t++) {
        const uint16_t *c = cos + positions[t] * head_dim, *s = sin + positions[t] * head_dim;
        for (int64_t h = 0; h < heads; h++) {
            uint16_t *v = rows + t * row_stride + h * head_dim;
            for (int64_t i = 0; i < half; i += 8) {
                const __m256 x1 = load_bf16(v + i), x2 = load_bf16(v + half + i);
                const __m256 c1 = load_bf16(c + i), s1 = load_bf16(s + i);
                const __m256 c2 = load_bf16(c + half + i), s2 = load_bf16(s + half + i);
                store_bf16(v + i, _mm256_fmsub_ps(x1, c1, _mm256_mul_ps(x2, s1)));
                store_bf16(v + half + i, _mm256_fmadd_ps(x2, c2, _mm256_mul_ps(x1, s2)));
            }
        }
    }
}

/* out[t, i] = silu(gate) * up for rows [gate (I values) | up (I values)]. */
void silu_and_mul(const uint16_t *gate_up, uint16_t *out, int64_t T, int64_t I, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads) if (T >= PARALLEL_MIN_TOKENS)
    for (int64_t t = 0; t < T; t++)
        for (int64_t i = 0; i < I; i += 8) {
            const __m256 g = load_bf16(gate_up + 2 * t * I + i), u = load_bf16(gate_up + 2 * t * I + I + i);
            /* silu(g) = g / (1 + e^-g), with e^-|g| so the exponential never overflows */
            const __m256 e = exp_negative(_mm256_sub_ps(_mm256_setzero_ps(), _mm256_andnot_ps(_mm256_set1_ps(-0.0f), g)));
            const __m256 positive = _mm256_cmp_ps(g, _mm256_setzero_ps(), _CMP_GE_OQ);
            const __m256 sigmoid = _mm256_blendv_ps(_mm256_div_ps(e, _mm256_add_ps(_mm256_set1_ps(1.0f), e)),
                                                    _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_add_ps(_mm256_set1_ps(1.0f), e)),
                                                    positive);
            store_bf16(out + t * I + i, _mm256_mul_ps(_mm256_mul_ps(g, sigmoid), u));
        }
}
