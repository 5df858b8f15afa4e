// What freestanding code compiled with -O2 may call, and the console the programs print on
// (the system's output port). Weak, so a program's own definitions win.
#include "soc.h"

#define OUTPORT ((volatile uint32_t *)0x10000000)

__attribute__((weak)) void *memset(void *d, int c, unsigned long n)
{
	unsigned char *p = d;
	while (n--)
		*p++ = (unsigned char)c;
	return d;
}

__attribute__((weak)) void *memcpy(void *d, const void *s, unsigned long n)
{
	unsigned char *p = d;
	const unsigned char *q = s;
	while (n--)
		*p++ = *q++;
	return d;
}

void soc_puts(const char *s)
{
	while (*s)
		*OUTPORT = (unsigned char)*s++;
}

void soc_put_hex(uint32_t v)
{
	for (int i = 28; i >= 0; i -= 4)
		*OUTPORT = "0123456789abcdef"[(v >> i) & 15];
}

void soc_result(const char *name, uint32_t checksum)
{
	soc_puts(name);
	soc_puts(" checksum ");
	soc_put_hex(checksum);
	soc_puts("\n");
}

uint32_t soc_rand(uint32_t *state)
{
	// xorshift32: the programs' inputs, the same on every run.
	uint32_t x = *state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *state = x;
}
