/* Decode attention straight from the paged KV cache: one query token per sequence, bf16 cache.
 *
 * q [B, Hq, D] and out [B, Hq, D] bf16; k_cache / v_cache [num_blocks, block_size, Hkv, D] bf16;
 * block_tables [B, max_blocks] and context_lens [B] int64; scores: scratch of B * Hq * max_blocks *
 * block_size floats. Query heads share kv head h / (Hq / Hkv) (grouped-query attention).
 *
 * Reading the blocks in place replaces the torch path's gather (a copy of every sequence's
 * keys and values per layer) and its small batched matmuls, which cost more than the
 * arithmetic. Math is fp32; threads split the (sequence, query head) pairs.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "bf16.h"

#define MAX_HEAD_DIM 256

void paged_decode_attention(const uint16_t *q, const uint16_t *k_cache, const uint16_t *v_cache,
                            const int64_t *block_tables, const int64_t *context_lens, uint16_t *out,
                            float *scores, int64_t B, int64_t Hq, int64_t Hkv, int64_t D,
                            int64_t block_size, int64_t max_blocks, float scale, int threads) {
    const int64_t group = Hq / Hkv;
    const int64_t token_stride = Hkv * D;
#pragma omp parallel for schedule(dynamic) num_threads(threads)
    for (int64_t task = 0; task < B * Hq; task++) {
        const int64_t b = task / Hq, head = task % Hq, kv_head = head / group;
        const int64_t length = context_lens[b];
        const int64_t *table = block_tables + b * max_blocks;
        float *row = scores + task * max_blocks * block_size;
        float query[MAX_HEAD_DIM], acc[MAX_HEAD_DIM];
        for (int64_t d = 0; d < D; d++) query[d] = bf16_to_float(q[task * D + d]) * scale;
        float highest = -INFINITY;
        for (int64_t t = 0; t < length; t++) {
            const uint16_t *key = k_cache + (table[t / block_size] * block_size + t % block_size) * token_stride
                                  + kv_head * D;
            float dot = 0.0f;
            for (int64_t d = 0; d < D; d++) dot += query[d] * bf16_to_float(key[d]);
            row[t] = dot;
            highest = dot > highest ? dot : highest;
        }
        float total = 0.0f;
        for (int64_t t = 0; t < length; t++) {
            row[t] = expf(row[t] - highest);
            total += row[t];
        }
        for (int64_t d = 0; d < D; d++) acc[d] = 0.0f;
        for (int64_t t = 0; t < length; t++) {
            const uint16_t *value = v_cache + (table[t / block_size] * block_size + t % block_size) * token_stride
                                    + kv_head * D;
            const float weight = row[t];
            for (int64_t d = 0; d < D; d++) acc[d] += weight * bf16_to_float(value[d]);
        }
        for (int64_t d = 0; d < D; d++) out[task * D + d] = float_to_bf16(acc[d] / total);
    }
}
