/* SPDX-License-Identifier: MIT */
/* CRC32C (Castagnoli) for protocols: one implementation, SSE4.2 instruction or a table. */
#ifndef LC_CRC32C_H
#define LC_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/*
 * CRC32C (Castagnoli, reflected, init and final xor ~0) of len bytes at buf,
 * continuing from crc (0 to start): lc_crc32c(0, "123456789", 9) == 0xE3069283,
 * and lc_crc32c(lc_crc32c(0, a, n), b, m) is the CRC of a followed by b.
 * Uses the SSE4.2 crc32 instruction when the CPU has it, the table otherwise.
 */
uint32_t lc_crc32c(uint32_t crc, const void *buf, size_t len);
/* The table-driven version (any CPU). */
uint32_t lc_crc32c_sw(uint32_t crc, const void *buf, size_t len);
/* The SSE4.2 version when lc_crc32c_hw_available(), else the table. */
uint32_t lc_crc32c_hw(uint32_t crc, const void *buf, size_t len);
/* 1 when this CPU has SSE4.2 (probed once, then cached). */
int lc_crc32c_hw_available(void);

#endif /* LC_CRC32C_H */
