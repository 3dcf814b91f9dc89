/* The AVX-512 intrinsics the GGUF kernels use, in plain C, so that their AVX-512 build (VNNI dot
 * products, BW masks, the 8-row interleaved kernels) runs and is tested on a CPU without AVX-512.
 *
 * Force-included (gcc -include) with -march=x86-64-v3 (tests/backend/test_gguf_kernel_paths.py): it
 * includes the compiler's intrinsics first, then defines the __AVX512*__ macros a CPU with AVX-512
 * VNNI and VBMI has, so the kernels compile their AVX-512 code, and redefines the intrinsics that
 * code calls as functions on GCC's generic 64-byte vectors. Each follows the instruction's definition
 * in Intel's intrinsics guide, lane by lane; a fused multiply-add is fmaf, one rounding, as the
 * instruction. Only what the kernels call is here.
 */
#ifndef TESTS_AVX512_EMULATION_H
#define TESTS_AVX512_EMULATION_H

#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

typedef union { __m512i v; int8_t i8[64]; uint8_t u8[64]; int16_t i16[32]; uint16_t u16[32]; int32_t i32[16];
                uint32_t u32[16]; int64_t i64[8]; } emu_i512;
typedef union { __m512 v; float f[16]; } emu_f512;
typedef union { __m256i v; int8_t i8[32]; uint8_t u8[32]; int16_t i16[16]; int32_t i32[8]; } emu_i256;
typedef union { __m256 v; float f[8]; } emu_f256;
typedef union { __m128i v; int8_t i8[16]; uint8_t u8[16]; int32_t i32[4]; } emu_i128;

#define EMU static inline __attribute__((always_inline))

EMU emu_i512 emu_zero_i(void) { emu_i512 r; memset(&r, 0, sizeof r); return r; }
EMU emu_f512 emu_zero_f(void) { emu_f512 r; memset(&r, 0, sizeof r); return r; }
EMU emu_i512 emu_i(__m512i v) { emu_i512 r; r.v = v; return r; }
EMU emu_f512 emu_f(__m512 v) { emu_f512 r; r.v = v; return r; }

EMU __m512i emu_setzero_si512(void) { return emu_zero_i().v; }
EMU __m512 emu_setzero_ps(void) { return emu_zero_f().v; }
EMU __m512i emu_set1_epi8(char x) { emu_i512 r; memset(r.i8, x, 64); return r.v; }
EMU __m512i emu_set1_epi32(int x) { emu_i512 r; for (int i = 0; i < 16; i++) r.i32[i] = x; return r.v; }
EMU __m512i emu_set1_epi64(long long x) { emu_i512 r; for (int i = 0; i < 8; i++) r.i64[i] = x; return r.v; }
EMU __m512 emu_set1_ps(float x) { emu_f512 r; for (int i = 0; i < 16; i++) r.f[i] = x; return r.v; }
EMU __m512i emu_setr_epi32(int a0, int a1, int a2, int a3, int a4, int a5, int a6, int a7, int a8, int a9, int a10,
                           int a11, int a12, int a13, int a14, int a15) {
    const int a[16] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15};
    emu_i512 r;
    memcpy(r.i32, a, sizeof a);
    return r.v;
}
EMU __m512i emu_loadu_si512(const void *p) { emu_i512 r; memcpy(r.u8, p, 64); return r.v; }

#define EMU_LANEWISE(name, view, count, expr) \
    EMU __m512i name(__m512i a_, __m512i b_) { \
        emu_i512 a = emu_i(a_), b = emu_i(b_), r; \
        for (int i = 0; i < count; i++) r.view[i] = (expr); \
        return r.v; \
    }
EMU_LANEWISE(emu_add_epi16, i16, 32, (int16_t)(a.i16[i] + b.i16[i]))
EMU_LANEWISE(emu_add_epi32, i32, 16, (int32_t)((uint32_t)a.i32[i] + (uint32_t)b.i32[i]))
EMU_LANEWISE(emu_sub_epi32, i32, 16, (int32_t)((uint32_t)a.i32[i] - (uint32_t)b.i32[i]))
EMU_LANEWISE(emu_sub_epi8, i8, 64, (int8_t)(a.i8[i] - b.i8[i]))
EMU_LANEWISE(emu_and_si512, i64, 8, a.i64[i] & b.i64[i])
EMU_LANEWISE(emu_mullo_epi32, i32, 16, (int32_t)((uint32_t)a.i32[i] * (uint32_t)b.i32[i]))

#define EMU_SHIFT(name, view, count, expr) \
    EMU __m512i name(__m512i a_, unsigned int n) { \
        emu_i512 a = emu_i(a_), r; \
        for (int i = 0; i < count; i++) r.view[i] = (expr); \
        return r.v; \
    }
EMU_SHIFT(emu_srli_epi16, u16, 32, n > 15 ? 0 : (uint16_t)(a.u16[i] >> n))
EMU_SHIFT(emu_slli_epi16, u16, 32, n > 15 ? 0 : (uint16_t)(a.u16[i] << n))
EMU_SHIFT(emu_srai_epi16, i16, 32, (int16_t)(a.i16[i] >> (n > 15 ? 15 : n)))
EMU_SHIFT(emu_srli_epi32, u32, 16, n > 31 ? 0 : a.u32[i] >> n)
EMU_SHIFT(emu_slli_epi32, u32, 16, n > 31 ? 0 : a.u32[i] << n)

EMU __m512i emu_shuffle_epi32(__m512i a_, int imm) {
    emu_i512 a = emu_i(a_), r;
    for (int i = 0; i < 16; i++) r.i32[i] = a.i32[(i & ~3) + ((imm >> (2 * (i & 3))) & 3)];
    return r.v;
}

EMU __m512i emu_ternarylogic_epi32(__m512i a_, __m512i b_, __m512i c_, int imm) {
    emu_i512 a = emu_i(a_), b = emu_i(b_), c = emu_i(c_), r;
    for (int i = 0; i < 16; i++) {
        uint32_t out = 0;
        for (int bit = 0; bit < 32; bit++) {
            const int index = (int)((a.u32[i] >> bit & 1) << 2 | (b.u32[i] >> bit & 1) << 1 | (c.u32[i] >> bit & 1));
            out |= (uint32_t)(imm >> index & 1) << bit;
        }
        r.u32[i] = out;
    }
    return r.v;
}

/* u8 x s8 pairs -> saturated int16 */
EMU __m512i emu_maddubs_epi16(__m512i a_, __m512i b_) {
    emu_i512 a = emu_i(a_), b = emu_i(b_), r;
    for (int i = 0; i < 32; i++) {
        const int sum = a.u8[2 * i] * b.i8[2 * i] + a.u8[2 * i + 1] * b.i8[2 * i + 1];
        r.i16[i] = (int16_t)(sum > 32767 ? 32767 : sum < -32768 ? -32768 : sum);
    }
    return r.v;
}

/* acc + sum of 4 u8 x s8 products per int32 lane (vpdpbusd: no saturation) */
EMU __m512i emu_dpbusd_epi32(__m512i acc_, __m512i a_, __m512i b_) {
    emu_i512 acc = emu_i(acc_), a = emu_i(a_), b = emu_i(b_);
    for (int i = 0; i < 16; i++) {
        int32_t sum = 0;
        for (int k = 0; k < 4; k++) sum += a.u8[4 * i + k] * b.i8[4 * i + k];
        acc.i32[i] = (int32_t)((uint32_t)acc.i32[i] + (uint32_t)sum);
    }
    return acc.v;
}

/* acc + sum of 2 int16 x int16 products per int32 lane (vpdpwssd: no saturation) */
EMU __m512i emu_dpwssd_epi32(__m512i acc_, __m512i a_, __m512i b_) {
    emu_i512 acc = emu_i(acc_), a = emu_i(a_), b = emu_i(b_);
    for (int i = 0; i < 16; i++) {
        const int64_t sum = (int64_t)a.i16[2 * i] * b.i16[2 * i] + (int64_t)a.i16[2 * i + 1] * b.i16[2 * i + 1];
        acc.i32[i] = (int32_t)((uint32_t)acc.i32[i] + (uint32_t)sum);
    }
    return acc.v;
}

EMU __m256i emu_dpbusd_epi32_256(__m256i acc_, __m256i a_, __m256i b_) {
    emu_i256 acc, a, b;
    acc.v = acc_, a.v = a_, b.v = b_;
    for (int i = 0; i < 8; i++) {
        int32_t sum = 0;
        for (int k = 0; k < 4; k++) sum += (uint8_t)a.i8[4 * i + k] * b.i8[4 * i + k];
        acc.i32[i] = (int32_t)((uint32_t)acc.i32[i] + (uint32_t)sum);
    }
    return acc.v;
}

EMU __m256i emu_dpwssd_epi32_256(__m256i acc_, __m256i a_, __m256i b_) {
    emu_i256 acc, a, b;
    acc.v = acc_, a.v = a_, b.v = b_;
    for (int i = 0; i < 8; i++) {
        const int64_t sum = (int64_t)a.i16[2 * i] * b.i16[2 * i] + (int64_t)a.i16[2 * i + 1] * b.i16[2 * i + 1];
        acc.i32[i] = (int32_t)((uint32_t)acc.i32[i] + (uint32_t)sum);
    }
    return acc.v;
}

EMU __m256i emu_maskz_mov_epi8_256(uint32_t mask, __m256i a_) {
    emu_i256 a, r;
    a.v = a_;
    for (int i = 0; i < 32; i++) r.i8[i] = mask >> i & 1 ? a.i8[i] : 0;
    return r.v;
}

EMU __m512i emu_maskz_permutexvar_epi8(uint64_t mask, __m512i index_, __m512i a_) {
    emu_i512 index = emu_i(index_), a = emu_i(a_), r;
    for (int i = 0; i < 64; i++) r.u8[i] = mask >> i & 1 ? a.u8[index.u8[i] & 63] : 0;
    return r.v;
}

EMU __m512i emu_maskz_permutex2var_epi8(uint64_t mask, __m512i a_, __m512i index_, __m512i b_) {
    emu_i512 a = emu_i(a_), index = emu_i(index_), b = emu_i(b_), r;
    for (int i = 0; i < 64; i++)
        r.u8[i] = mask >> i & 1 ? (index.u8[i] & 64 ? b.u8 : a.u8)[index.u8[i] & 63] : 0;
    return r.v;
}

EMU __m512i emu_cvtepu8_epi16(__m256i a_) {
    emu_i256 a;
    emu_i512 r;
    a.v = a_;
    for (int i = 0; i < 32; i++) r.i16[i] = (uint8_t)a.i8[i];
    return r.v;
}

EMU __m512i emu_cvtepu8_epi32(__m128i a_) {
    emu_i128 a;
    emu_i512 r;
    a.v = a_;
    for (int i = 0; i < 16; i++) r.i32[i] = a.u8[i];
    return r.v;
}

EMU __m512i emu_cvtepi8_epi32(__m128i a_) {
    emu_i128 a;
    emu_i512 r;
    a.v = a_;
    for (int i = 0; i < 16; i++) r.i32[i] = a.i8[i];
    return r.v;
}

EMU __m256i emu_cvtepi32_epi16(__m512i a_) {
    emu_i512 a = emu_i(a_);
    emu_i256 r;
    for (int i = 0; i < 16; i++) r.i16[i] = (int16_t)a.i32[i];
    return r.v;
}

EMU __m128i emu_extracti32x4_epi32(__m512i a_, int k) {
    emu_i512 a = emu_i(a_);
    emu_i128 r;
    memcpy(r.u8, a.u8 + 16 * k, 16);
    return r.v;
}

EMU __m512 emu_cvtepi32_ps(__m512i a_) {
    emu_i512 a = emu_i(a_);
    emu_f512 r;
    for (int i = 0; i < 16; i++) r.f[i] = (float)a.i32[i];
    return r.v;
}

EMU __m512i emu_castps_si512(__m512 a_) { emu_f512 a = emu_f(a_); emu_i512 r; memcpy(r.u8, a.f, 64); return r.v; }

EMU __m512 emu_castps256_ps512(__m256 a_) {
    emu_f256 a;
    emu_f512 r = emu_zero_f();
    a.v = a_;
    memcpy(r.f, a.f, 32);
    return r.v;
}

EMU __m256 emu_castps512_ps256(__m512 a_) {
    emu_f512 a = emu_f(a_);
    emu_f256 r;
    memcpy(r.f, a.f, 32);
    return r.v;
}

EMU __m512 emu_insertf32x8(__m512 a_, __m256 b_, int k) {
    emu_f512 a = emu_f(a_);
    emu_f256 b;
    b.v = b_;
    memcpy(a.f + 8 * k, b.f, 32);
    return a.v;
}

EMU __m512 emu_permutexvar_ps(__m512i index_, __m512 a_) {
    emu_i512 index = emu_i(index_);
    emu_f512 a = emu_f(a_), r;
    for (int i = 0; i < 16; i++) r.f[i] = a.f[index.i32[i] & 15];
    return r.v;
}

#define EMU_FLOATWISE(name, expr) \
    EMU __m512 name(__m512 a_, __m512 b_) { \
        emu_f512 a = emu_f(a_), b = emu_f(b_), r; \
        for (int i = 0; i < 16; i++) r.f[i] = (expr); \
        return r.v; \
    }
EMU_FLOATWISE(emu_mul_ps, a.f[i] * b.f[i])
EMU_FLOATWISE(emu_sub_ps, a.f[i] - b.f[i])

EMU __m512 emu_fmadd_ps(__m512 a_, __m512 b_, __m512 c_) {
    emu_f512 a = emu_f(a_), b = emu_f(b_), c = emu_f(c_), r;
    for (int i = 0; i < 16; i++) r.f[i] = fmaf(a.f[i], b.f[i], c.f[i]);
    return r.v;
}

EMU __m512 emu_fnmadd_ps(__m512 a_, __m512 b_, __m512 c_) {
    emu_f512 a = emu_f(a_), b = emu_f(b_), c = emu_f(c_), r;
    for (int i = 0; i < 16; i++) r.f[i] = fmaf(-a.f[i], b.f[i], c.f[i]);
    return r.v;
}

/* After <immintrin.h>: defined before it, these macros would make it compile its own AVX-512 code. */
#define __AVX512F__ 1
#define __AVX512BW__ 1
#define __AVX512VL__ 1
#define __AVX512VNNI__ 1
#define __AVX512VBMI__ 1

#undef _mm512_setzero_si512
#define _mm512_setzero_si512 emu_setzero_si512
#undef _mm512_setzero_ps
#define _mm512_setzero_ps emu_setzero_ps
#undef _mm512_set1_epi8
#define _mm512_set1_epi8 emu_set1_epi8
#undef _mm512_set1_epi32
#define _mm512_set1_epi32 emu_set1_epi32
#undef _mm512_set1_epi64
#define _mm512_set1_epi64 emu_set1_epi64
#undef _mm512_set1_ps
#define _mm512_set1_ps emu_set1_ps
#undef _mm512_setr_epi32
#define _mm512_setr_epi32 emu_setr_epi32
#undef _mm512_loadu_si512
#define _mm512_loadu_si512 emu_loadu_si512
#undef _mm512_add_epi16
#define _mm512_add_epi16 emu_add_epi16
#undef _mm512_add_epi32
#define _mm512_add_epi32 emu_add_epi32
#undef _mm512_sub_epi32
#define _mm512_sub_epi32 emu_sub_epi32
#undef _mm512_sub_epi8
#define _mm512_sub_epi8 emu_sub_epi8
#undef _mm512_and_si512
#define _mm512_and_si512 emu_and_si512
#undef _mm512_mullo_epi32
#define _mm512_mullo_epi32 emu_mullo_epi32
#undef _mm512_srli_epi16
#define _mm512_srli_epi16 emu_srli_epi16
#undef _mm512_slli_epi16
#define _mm512_slli_epi16 emu_slli_epi16
#undef _mm512_srai_epi16
#define _mm512_srai_epi16 emu_srai_epi16
#undef _mm512_srli_epi32
#define _mm512_srli_epi32 emu_srli_epi32
#undef _mm512_slli_epi32
#define _mm512_slli_epi32 emu_slli_epi32
#undef _mm512_shuffle_epi32
#define _mm512_shuffle_epi32 emu_shuffle_epi32
#undef _mm512_ternarylogic_epi32
#define _mm512_ternarylogic_epi32 emu_ternarylogic_epi32
#undef _mm512_maddubs_epi16
#define _mm512_maddubs_epi16 emu_maddubs_epi16
#undef _mm512_dpbusd_epi32
#define _mm512_dpbusd_epi32 emu_dpbusd_epi32
#undef _mm512_dpwssd_epi32
#define _mm512_dpwssd_epi32 emu_dpwssd_epi32
#undef _mm256_dpbusd_epi32
#define _mm256_dpbusd_epi32 emu_dpbusd_epi32_256
#undef _mm256_dpwssd_epi32
#define _mm256_dpwssd_epi32 emu_dpwssd_epi32_256
#undef _mm256_maskz_mov_epi8
#define _mm256_maskz_mov_epi8 emu_maskz_mov_epi8_256
#undef _mm512_maskz_permutexvar_epi8
#define _mm512_maskz_permutexvar_epi8 emu_maskz_permutexvar_epi8
#undef _mm512_maskz_permutex2var_epi8
#define _mm512_maskz_permutex2var_epi8 emu_maskz_permutex2var_epi8
#undef _mm512_cvtepu8_epi16
#define _mm512_cvtepu8_epi16 emu_cvtepu8_epi16
#undef _mm512_cvtepu8_epi32
#define _mm512_cvtepu8_epi32 emu_cvtepu8_epi32
#undef _mm512_cvtepi8_epi32
#define _mm512_cvtepi8_epi32 emu_cvtepi8_epi32
#undef _mm512_cvtepi32_epi16
#define _mm512_cvtepi32_epi16 emu_cvtepi32_epi16
#undef _mm512_extracti32x4_epi32
#define _mm512_extracti32x4_epi32 emu_extracti32x4_epi32
#undef _mm512_cvtepi32_ps
#define _mm512_cvtepi32_ps emu_cvtepi32_ps
#undef _mm512_castps_si512
#define _mm512_castps_si512 emu_castps_si512
#undef _mm512_castps256_ps512
#define _mm512_castps256_ps512 emu_castps256_ps512
#undef _mm512_castps512_ps256
#define _mm512_castps512_ps256 emu_castps512_ps256
#undef _mm512_insertf32x8
#define _mm512_insertf32x8 emu_insertf32x8
#undef _mm512_permutexvar_ps
#define _mm512_permutexvar_ps emu_permutexvar_ps
#undef _mm512_mul_ps
#define _mm512_mul_ps emu_mul_ps
#undef _mm512_sub_ps
#define _mm512_sub_ps emu_sub_ps
#undef _mm512_fmadd_ps
#define _mm512_fmadd_ps emu_fmadd_ps
#undef _mm512_fnmadd_ps
#define _mm512_fnmadd_ps emu_fnmadd_ps

#endif
