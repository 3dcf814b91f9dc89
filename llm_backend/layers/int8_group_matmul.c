/* Weight-only int8 matmul for batch-1 decode on x86 CPUs with AVX-512.
 *
 * out[m, n] = sum over groups g of scale[n, g] * sum_{k in g} x[m, k] * w[n, k]
 * x, out: bf16 [M, K] / [M, N]; w: int8 [N, K]; scale: bf16 [N, K / GROUP].
 *
 * Decode streams every weight once per step, so its speed is memory bandwidth: int8 halves
 * the bytes of bf16. Each weight row is read once for up to ROWS activation rows, with two
 * accumulators so consecutive groups do not wait on each other's FMA; threads
 * split the output rows (OpenMP: the same libgomp torch loaded, so one thread pool).
 * Built and loaded at run time by native.py.
 */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "bf16.h"

#ifndef __AVX512F__
#error "this kernel needs AVX-512"
#endif

#define GROUP 32
#define ROWS 4
#define PREFETCH_ROWS 4 /* ahead of the row being read, each thread streams its own range */

/* `x_buf` is caller-owned scratch of M * K floats. */
void int8_group_matmul(const uint16_t *x, const int8_t *w, const uint16_t *scales, uint16_t *out,
                       int64_t M, int64_t N, int64_t K, float *x_buf, int threads) {
    for (int64_t i = 0; i < M * K; i++) x_buf[i] = bf16_to_float(x[i]);
    const int64_t groups = K / GROUP;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t n = 0; n < N; n++) {
        const int8_t *w_row = w + n * K;
        const uint16_t *scale_row = scales + n * groups;
        _mm_prefetch((const char *)(w_row + PREFETCH_ROWS * K), _MM_HINT_T0);
        for (int64_t m0 = 0; m0 < M; m0 += ROWS) {
            const int64_t rows = M - m0 < ROWS ? M - m0 : ROWS;
            __m512 acc[ROWS][2];
            for (int r = 0; r < ROWS; r++) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
            for (int64_t g = 0; g < groups; g++) {
                const int8_t *w_group = w_row + g * GROUP;
                const __m512 w0 = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)w_group)));
                const __m512 w1 = _mm512_cvtepi32_ps(
                    _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(w_group + 16))));
                const __m512 scale = _mm512_set1_ps(bf16_to_float(scale_row[g]));
                for (int64_t r = 0; r < rows; r++) {
                    const float *x_group = x_buf + (m0 + r) * K + g * GROUP;
                    __m512 dot = _mm512_mul_ps(w0, _mm512_loadu_ps(x_group));
                    dot = _mm512_fmadd_ps(w1, _mm512_loadu_ps(x_group + 16), dot);
                    acc[r][g & 1] = _mm512_fmadd_ps(dot, scale, acc[r][g & 1]);
                }
            }
            for (int64_t r = 0; r < rows; r++)
                out[(m0 + r) * N + n] = float_to_bf16(_mm512_reduce_add_ps(_mm512_add_ps(acc[r][0], acc[r][1])));
        }
    }
}
