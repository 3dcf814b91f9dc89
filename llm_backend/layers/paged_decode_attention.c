/* Decode attention straight from the paged KV cache: one query token per sequence, bf16 cache.
 *
 * q [B, Hq, D] and out [B, Hq, D] bf16; k_cache / v_cache [num_blocks, block_size, Hkv, D] bf16;
 * block_tables [B, max_blocks] and context_lens [B] int64; scores: scratch of B * Hq * max_blocks *
 * block_size floats. Query heads share kv head h / (Hq / Hkv) (grouped-query attention): each
 * thread task is one (sequence, kv head), so a key or value is converted once for its group.
 *
 * Reading the blocks in place replaces the torch path's gather (a copy of every sequence's
 * keys and values per layer) and its small batched matmuls, which cost more than the
 * arithmetic. Math is fp32.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "bf16.h"
#if defined(__AVX2__) && defined(__FMA__)
#include "exp_negative.h"
#endif

/* The cache rows of the block holding token t0 (a multiple of block_size) of a sequence. */
static inline const uint16_t *block_start(const uint16_t *cache, const int64_t *table, int64_t t0,
                                          int64_t block_size, int64_t token_stride) {
    return cache + table[t0 / block_size] * block_size * token_stride;
}

static inline void to_float(float *dst, const uint16_t *src, int64_t count) {
    for (int64_t i = 0; i < count; i++) dst[i] = bf16_to_float(src[i]);
}

/* row[t] = e^(row[t] - highest) for t < length; returns their sum. Vectorized where the CPU can: with
 * scalar expf this loop took about a third of a decode step's attention (12 heads, 150 keys). */
static float softmax_numerators(float *row, int64_t length, float highest) {
    int64_t t = 0;
    float total = 0.0f;
#if defined(__AVX2__) && defined(__FMA__)
    __m256 sum = _mm256_setzero_ps();
    for (; t + 8 <= length; t += 8) {
        const __m256 e = exp_negative(_mm256_sub_ps(_mm256_loadu_ps(row + t), _mm256_set1_ps(highest)));
        _mm256_storeu_ps(row + t, e);
        sum = _mm256_add_ps(sum, e);
    }
    float lanes[8];
    _mm256_storeu_ps(lanes, sum);
    for (int i = 0; i < 8; i++) total += lanes[i];
#endif
    for (; t < length; t++) {
        row[t] = expf(row[t] - highest);
        total += row[t];
    }
    return total;
}

#define MAX_HEAD_DIM 256
#define MAX_GROUP 16 /* query heads per kv head */

void paged_decode_attention(const uint16_t *q, const uint16_t *k_cache, const uint16_t *v_cache,
                            const int64_t *block_tables, const int64_t *context_lens, uint16_t *out,
                            float *scores, int64_t B, int64_t Hq, int64_t Hkv, int64_t D,
                            int64_t block_size, int64_t max_blocks, float scale, int threads) {
    const int64_t group = Hq / Hkv;
    const int64_t token_stride = Hkv * D;
    const int64_t max_len = max_blocks * block_size;
#pragma omp parallel for schedule(dynamic) num_threads(threads)
    for (int64_t task = 0; task < B * Hkv; task++) {
        const int64_t b = task / Hkv, kv_head = task % Hkv, first_head = kv_head * group;
        const int64_t length = context_lens[b];
        const int64_t *table = block_tables + b * max_blocks;
        float *rows = scores + (b * Hq + first_head) * max_len; /* [group, max_len] */
        float query[MAX_GROUP][MAX_HEAD_DIM], acc[MAX_GROUP][MAX_HEAD_DIM], token[MAX_HEAD_DIM];
        float highest[MAX_GROUP], total[MAX_GROUP];
        for (int64_t h = 0; h < group; h++) {
            for (int64_t d = 0; d < D; d++) query[h][d] = bf16_to_float(q[((b * Hq) + first_head + h) * D + d]) * scale;
            highest[h] = -INFINITY;
        }
        /* Keys once per kv head, block by block (no per-token division), shared by the group. */
        for (int64_t t0 = 0; t0 < length; t0 += block_size) {
            const uint16_t *block = block_start(k_cache, table, t0, block_size, token_stride) + kv_head * D;
            for (int64_t j = 0; j < block_size && t0 + j < length; j++) {
                to_float(token, block + j * token_stride, D);
                for (int64_t h = 0; h < group; h++) {
                    float dot = 0.0f;
                    for (int64_t d = 0; d < D; d++) dot += query[h][d] * token[d];
                    rows[h * max_len + t0 + j] = dot;
                    highest[h] = dot > highest[h] ? dot : highest[h];
                }
            }
        }
        for (int64_t h = 0; h < group; h++) {
            total[h] = softmax_numerators(rows + h * max_len, length, highest[h]);
            for (int64_t d = 0; d < D; d++) acc[h][d] = 0.0f;
        }
        for (int64_t t0 = 0; t0 < length; t0 += block_size) {
            const uint16_t *block = block_start(v_cache, table, t0, block_size, token_stride) + kv_head * D;
            for (int64_t j = 0; j < block_size && t0 + j < length; j++) {
                to_float(token, block + j * token_stride, D);
                for (int64_t h = 0; h < group; h++) {
                    const float weight = rows[h * max_len + t0 + j];
                    for (int64_t d = 0; d < D; d++) acc[h][d] += weight * token[d];
                }
            }
        }
        for (int64_t h = 0; h < group; h++)
            for (int64_t d = 0; d < D; d++)
                out[((b * Hq) + first_head + h) * D + d] = float_to_bf16(acc[h][d] / total[h]);
    }
}
