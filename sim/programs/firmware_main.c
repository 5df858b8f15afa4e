// Runs one of the PicoRV32 firmware's test programs (FIRMWARE_PROGRAM: sieve, multest, stats).
#include "soc.h"
void FIRMWARE_PROGRAM(void);
int main(void)
{
	FIRMWARE_PROGRAM();
	return 0;
}
