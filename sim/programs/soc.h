// The runtime of programs on hwprof's PicoRV32 system (runtime.c). SHORT (defined by
// `hwprof soc run --short`) selects inputs of a few thousand retired instructions.
#ifndef SOC_H
#define SOC_H
#include <stdint.h>

void soc_puts(const char *s);
void soc_put_hex(uint32_t v);
void soc_result(const char *name, uint32_t checksum);
uint32_t soc_rand(uint32_t *state);

#ifdef SHORT
#define SOC_SIZE(full, short_) (short_)
#else
#define SOC_SIZE(full, short_) (full)
#endif
#endif
