// Integer matrix multiply C = A x B (row-major, i-k-j order), repeated with a changing A.
#include "soc.h"

#define N SOC_SIZE(32, 6)
#define ROUNDS SOC_SIZE(4, 1)

static int32_t A[N][N], B[N][N], C[N][N];

int main(void)
{
	uint32_t seed = 99, sum = 0;
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			A[i][j] = (int32_t)(soc_rand(&seed) % 16) - 8;
			B[i][j] = (int32_t)(soc_rand(&seed) % 16) - 8;
		}
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < N; i++)
			for (int j = 0; j < N; j++)
				C[i][j] = 0;
		for (int i = 0; i < N; i++)
			for (int k = 0; k < N; k++) {
				int32_t a = A[i][k];
				for (int j = 0; j < N; j++)
					C[i][j] += a * B[k][j];
			}
		for (int i = 0; i < N; i++) {
			sum = sum * 17 + (uint32_t)C[i][i];
			A[i][(i + r) % N] += 1;
		}
	}
	soc_result("matmul", sum);
	return 0;
}
