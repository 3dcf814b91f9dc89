/* bf16 <-> float for the C kernels: bf16 is the top half of a float's bits. */
#ifndef LLM_BACKEND_BF16_H
#define LLM_BACKEND_BF16_H

#include <stdint.h>
#include <string.h>

static inline float bf16_to_float(uint16_t value) {
    uint32_t bits = (uint32_t)value << 16;
    float result;
    memcpy(&result, &bits, sizeof result);
    return result;
}

static inline uint16_t float_to_bf16(float value) {
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    bits += 0x7FFF + ((bits >> 16) & 1); /* round to nearest even */
    return (uint16_t)(bits >> 16);
}

#endif
