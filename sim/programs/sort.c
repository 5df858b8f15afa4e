// Sorting: quicksort (insertion sort below 16 elements) of pseudo-random arrays, repeated.
#include "soc.h"

#define N SOC_SIZE(2048, 48)
#define ROUNDS SOC_SIZE(6, 1)

static int32_t a[N];

static void insertion(int32_t *v, int n)
{
	for (int i = 1; i < n; i++) {
		int32_t x = v[i];
		int j = i - 1;
		while (j >= 0 && v[j] > x) {
			v[j + 1] = v[j];
			j--;
		}
		v[j + 1] = x;
	}
}

static void quicksort(int32_t *v, int n)
{
	while (n > 16) {
		int32_t p = v[n / 2];
		int i = 0, j = n - 1;
		while (i <= j) {
			while (v[i] < p)
				i++;
			while (v[j] > p)
				j--;
			if (i <= j) {
				int32_t t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				j--;
			}
		}
		// Recurse into the smaller part, loop on the larger: the stack stays logarithmic.
		if (j + 1 < n - i) {
			quicksort(v, j + 1);
			v += i;
			n -= i;
		} else {
			quicksort(v + i, n - i);
			n = j + 1;
		}
	}
	insertion(v, n);
}

int main(void)
{
	uint32_t seed = 12345, sum = 0;
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < N; i++)
			a[i] = (int32_t)(soc_rand(&seed) % 1000); // many equal keys, as in real data
		quicksort(a, N);
		for (int i = 1; i < N; i++)
			if (a[i - 1] > a[i])
				return 1;
		for (int i = 0; i < N; i += 7)
			sum = sum * 31 + (uint32_t)a[i];
	}
	soc_result("sort", sum);
	return 0;
}
