/* A program from outside hwprof's tree for `hwprof soc run --c examples/programs/textsearch.c`:
 * a letter histogram of a generated text, then every occurrence of a few patterns found twice,
 * by a naive scan and by Knuth-Morris-Pratt. Freestanding: <stdint.h>, the console of soc.h,
 * and int main(void), whose return value is the exit status: 0 when both searches agree. */
#include <stdint.h>
#include "soc.h"

#define TEXT 6000

static char text[TEXT + 1];
static uint32_t histogram[26];

static void generate(void)
{
	uint32_t s = 2463534242u;
	for (int i = 0; i < TEXT; i++) {
		uint32_t r = soc_rand(&s);
		/* skewed towards the first letters, so that patterns over them recur */
		text[i] = (char)('a' + ((r & 7) & (r >> 3)) + ((r >> 8) % 3 == 0 ? (r >> 12) % 26 / 4 : 0));
	}
	text[TEXT] = 0;
}

static uint32_t naive(const char *p, int m)
{
	uint32_t found = 0;
	for (int i = 0; i + m <= TEXT; i++) {
		int j = 0;
		while (j < m && text[i + j] == p[j])
			j++;
		found += j == m;
	}
	return found;
}

static uint32_t kmp(const char *p, int m)
{
	int fail[16];
	fail[0] = 0;
	for (int i = 1, k = 0; i < m; i++) {
		while (k && p[i] != p[k])
			k = fail[k - 1];
		k += p[i] == p[k];
		fail[i] = k;
	}
	uint32_t found = 0;
	for (int i = 0, k = 0; i < TEXT; i++) {
		while (k && text[i] != p[k])
			k = fail[k - 1];
		if (text[i] == p[k])
			k++;
		if (k == m) {
			found++;
			k = fail[k - 1];
		}
	}
	return found;
}

int main(void)
{
	static const char *patterns[] = { "ab", "aab", "abca", "baba", "cab", "aaaa" };
	generate();
	for (int i = 0; i < TEXT; i++)
		histogram[text[i] - 'a']++;
	int disagree = 0;
	uint32_t sum = 0;
	for (unsigned n = 0; n < sizeof patterns / sizeof *patterns; n++) {
		const char *p = patterns[n];
		int m = 0;
		while (p[m])
			m++;
		uint32_t a = naive(p, m), b = kmp(p, m);
		disagree += a != b;
		sum = sum * 31 + a;
	}
	for (int c = 0; c < 26; c++)
		sum = sum * 31 + histogram[c];
	soc_result("textsearch", sum);
	return disagree;
}
