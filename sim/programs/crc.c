// CRC-32 (IEEE 802.3, reflected, table-driven) of a pseudo-random buffer, repeated.
#include "soc.h"

#define BYTES SOC_SIZE(4096, 1024)
#define ROUNDS SOC_SIZE(40, 1)

static uint32_t table[256];
static uint8_t buf[BYTES];

static void make_table(void)
{
	for (uint32_t n = 0; n < 256; n++) {
		uint32_t c = n;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		table[n] = c;
	}
}

static uint32_t crc32(const uint8_t *p, int n, uint32_t crc)
{
	crc = ~crc;
	while (n--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

int main(void)
{
	uint32_t seed = 777, crc = 0;
	make_table();
	// Text-like bytes: a small alphabet, so loaded values repeat as in real inputs.
	for (int i = 0; i < BYTES; i++)
		buf[i] = (uint8_t)("etaoin shrdlu"[soc_rand(&seed) % 13]);
	for (int r = 0; r < ROUNDS; r++)
		crc = crc32(buf, BYTES, crc);
	soc_result("crc", crc);
	return crc32((const uint8_t *)"123456789", 9, 0) != 0xcbf43926u;
}
