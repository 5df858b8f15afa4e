// A hash loop: word counting in an open-addressing hash table (FNV-1a keys, linear probing) over
// a pseudo-random text with a Zipf-like word distribution.
#include "soc.h"

#define WORDS SOC_SIZE(20000, 120)
#define SLOTS 1024

struct slot {
	uint32_t key;
	uint32_t count;
};

static struct slot table[SLOTS];
static const char *const vocabulary[] = {
	"the", "of", "and", "to", "in", "a", "is", "that", "for", "it", "as", "was", "with", "be",
	"by", "on", "not", "he", "this", "are", "or", "his", "from", "at", "which", "but", "have",
	"an", "had", "they", "you", "were", "their", "one", "all", "we", "can", "her", "has",
	"there", "been", "if", "more", "when", "will", "would", "who", "so", "no", "profile",
};
#define VOCAB (sizeof vocabulary / sizeof vocabulary[0])

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;
	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

static void count(uint32_t key)
{
	uint32_t i = key % SLOTS;
	while (table[i].key != 0 && table[i].key != key)
		i = (i + 1) % SLOTS;
	table[i].key = key;
	table[i].count++;
}

int main(void)
{
	uint32_t seed = 4242, sum = 0;
	for (int w = 0; w < WORDS; w++) {
		// Zipf-like: the minimum of two uniform draws favours the first words.
		uint32_t x = soc_rand(&seed) % VOCAB, y = soc_rand(&seed) % VOCAB;
		count(fnv1a(vocabulary[x < y ? x : y]));
	}
	for (int i = 0; i < SLOTS; i++)
		sum = sum * 3 + table[i].count;
	soc_result("hash", sum);
	return 0;
}
